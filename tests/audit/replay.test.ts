import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { diffDocuments, formatDifference, replayFixture } from '../../src/testing/index.js';
import { acceptanceLedger, run } from './cli-session.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/replay');

describe('replay (S15)', () => {
  let dir: string;
  let db: string;
  let exported: string;
  let state: string;

  beforeAll(async () => {
    ({ dir, db } = await acceptanceLedger());
    exported = join(dir, 'ledger.jsonl');
    await run(['--db', db, 'export', '--out', exported]);
    state = (await run(['--db', db, 'state', 'etl_orders', '--json'])).stdout;
  });

  test('replay of an export prints exactly the state the ledger prints', async () => {
    const r = await run(['replay', exported, '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(state);
  });

  test('without --now, "now" is the moment of the export, so the answer does not drift with the clock', async () => {
    const r = await run(['replay', exported, '--json'], { RUNLEDGER_NOW: '' });
    expect(r.stdout).toBe(state);
  });

  test('with a later --now, dates that fell due since show as missing', async () => {
    const r = await run(['--now', '2026-11-07T01:00:00+07:00', 'replay', exported, '--json']);
    const dates = (JSON.parse(r.stdout) as { dates: Array<{ date: string; status: string }> }).dates;
    expect(dates.slice(-2)).toMatchObject([{ date: '2026-11-05', status: 'missing' }, { date: '2026-11-06', status: 'missing' }]);
  });

  test('replay of a filtered export equals the state too', async () => {
    const one = join(dir, 'one.jsonl');
    await run(['--db', db, 'export', '--pipeline', 'etl_orders', '--out', one]);
    expect((await run(['replay', one, '--json'])).stdout).toBe(state);
  });

  test('--expect exits 0 when the state matches, and 7 with one line per difference, naming the date, when it does not', async () => {
    const expected = join(dir, 'expected.json');
    writeFileSync(expected, state);
    const same = await run(['replay', exported, '--expect', expected]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('matches');
    const doc = JSON.parse(state) as { watermark: string; dates: Array<{ status: string }> };
    doc.watermark = '2026-11-03';
    (doc.dates[2] as { status: string }).status = 'success';
    writeFileSync(expected, JSON.stringify(doc));
    const differs = await run(['replay', exported, '--expect', expected]);
    expect(differs.code).toBe(7);
    expect(differs.stdout.trim().split('\n')).toEqual([
      `replay of ${exported} differs from ${expected} in 2 places:`,
      'watermark: expected "2026-11-03", actual "2026-11-04"',
      'dates[2026-11-04].status: expected "success", actual "cleared"',
    ]);
    const json = await run(['replay', exported, '--expect', expected, '--json']);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({ equal: false, differences: [{ path: 'watermark' }, { path: 'dates[2026-11-04].status' }] });
  });

  test('--as-of before the clear replays the cleared date as success (S13)', async () => {
    const r = await run(['replay', exported, '--as-of', '9', '--json']);
    const view = JSON.parse(r.stdout) as { dates: Array<{ date: string; status: string }>; completeThrough: string };
    expect(view.dates.find((d) => d.date === '2026-11-04')?.status).toBe('success');
    expect(view.completeThrough).toBe('2026-11-04');
  });

  test('replay refuses a damaged file with its line number, exit 2', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, readFileSync(exported, 'utf8').replace('"rows":7', '"rows":8'));
    const r = await run(['replay', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 4: .*altered; nothing was replayed/);
  });

  test('an unreadable expectation is bad input, a missing one not found', async () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{');
    expect((await run(['replay', exported, '--expect', notJson])).code).toBe(2);
    expect((await run(['replay', exported, '--expect', join(dir, 'none.json')])).code).toBe(4);
  });
});

describe('replayFixture', () => {
  test('the acceptance export replays to its expected state', async () => {
    const { actual, expected } = await replayFixture(join(FIXTURES, 'acceptance.jsonl'));
    expect(actual).toEqual(expected);
  });

  test('a hand-written event log: a success reported after its run was cleared changes nothing (S3)', async () => {
    const { actual, expected } = await replayFixture(join(FIXTURES, 'stale-success-after-clear.jsonl'), { now: '2026-11-05T01:00:00+07:00' });
    expect(actual).toEqual(expected);
    expect(actual.dates[0]).toMatchObject({ date: '2026-11-02', status: 'cleared', metrics: null });
  });

  test('as-of a position answers at the time of that event: 11-04 was not yet due then', async () => {
    const { actual } = await replayFixture(join(FIXTURES, 'stale-success-after-clear.jsonl'), { now: '2026-11-05T01:00:00+07:00', asOf: { position: 2 } });
    expect(actual.dates.map((d) => [d.date, d.status])).toEqual([['2026-11-02', 'running'], ['2026-11-03', 'missing']]);
  });
});

describe('diffDocuments', () => {
  test.each([
    { label: 'equal documents', a: { x: [1, { y: 2 }] }, b: { x: [1, { y: 2 }] }, lines: [] },
    { label: 'a changed leaf', a: { x: [1, { y: 2 }] }, b: { x: [1, { y: 3 }] }, lines: ['x[1].y: expected 2, actual 3'] },
    { label: 'a missing key', a: { x: 1, y: 2 }, b: { x: 1 }, lines: ['y: expected 2, actual (absent)'] },
    { label: 'an extra array item', a: [1], b: [1, 2], lines: ['[1]: expected (absent), actual 2'] },
    { label: 'a type change', a: { x: null }, b: { x: {} }, lines: ['x: expected null, actual {}'] },
    {
      label: 'dated items compare by their date, wherever they sit',
      a: { dates: [{ date: '2026-11-02', status: 'success' }, { date: '2026-11-03', status: 'failed' }] },
      b: { dates: [{ date: '2026-11-01', status: 'missing' }, { date: '2026-11-02', status: 'success' }, { date: '2026-11-03', status: 'success' }] },
      lines: ['dates[2026-11-03].status: expected "failed", actual "success"', 'dates[2026-11-01]: expected (absent), actual {"date":"2026-11-01","status":"missing"}'],
    },
    { label: 'a missing date', a: { dates: [{ date: '2026-11-02' }] }, b: { dates: [] }, lines: ['dates[2026-11-02]: expected {"date":"2026-11-02"}, actual (absent)'] },
  ])('$label', ({ a, b, lines }) => {
    expect(diffDocuments(a, b).map(formatDifference)).toEqual(lines);
  });
});
