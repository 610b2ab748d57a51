import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, test } from 'vitest';
import { cli, tempDir } from '../support/run-cli.js';

/** Issue 5's acceptance, on the real binary (`npm test` builds it first). */
// Each spawn of the binary costs a few hundred ms; under a parallel test run it can take far more.
describe('audit acceptance (e2e)', { timeout: 60_000 }, () => {
  const env = { RUNLEDGER_NOW: '2026-11-05T01:00:00+07:00' };
  let dir: string;
  let db: string;
  const ok = (args: string[], extra: Record<string, string> = {}) => {
    const r = cli(['--db', db, ...args], { ...env, ...extra });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(() => {
    dir = tempDir('runledger-audit-e2e-');
    db = join(dir, 'ledger.db');
    ok(['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta']);
    ok(['succeed', ok(['start', 'etl_orders', '2026-11-04'])]);
    ok(['succeed', ok(['start', 'etl_orders', '2026-11-02'])]);
    ok(['fail', ok(['start', 'etl_orders', '2026-11-03']), '--error', 'source late']);
    ok(['succeed', ok(['start', 'etl_orders', '2026-11-03'])]);
    ok(['clear', 'etl_orders', '2026-11-04', '--reason', 'bad upstream file']);
  }, 60_000);

  test('1. verify is ok; after one event is changed with the triggers dropped, exit 5 naming its position', () => {
    const report = JSON.parse(ok(['verify', '--json'])) as { ok: boolean; events: number; head: { position: number } };
    expect(report).toMatchObject({ ok: true, events: 10, head: { position: 10 } });
    const tampered = join(dir, 'tampered.db');
    copyFileSync(db, tampered);
    const raw = new Database(tampered);
    raw.exec('DROP TRIGGER events_are_immutable');
    const { payload } = raw.prepare('SELECT payload FROM events WHERE position = 7').get() as { payload: string };
    raw.prepare('UPDATE events SET payload = ? WHERE position = 7').run(payload.replace('source late', 'source LATE'));
    raw.close();
    const r = cli(['--db', tampered, 'verify'], env);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('position 7');
    const json = cli(['--db', tampered, 'verify', '--json'], env);
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, firstBadPosition: 7 });
  });

  test('2. export, import into a new ledger, verify: same head hash and identical state --json', () => {
    const file = join(dir, 'ledger.jsonl');
    ok(['export', '--out', file]);
    const copy = join(dir, 'copy.db');
    expect(cli(['--db', copy, 'import', file], env).code).toBe(0);
    const head = (path: string) => (JSON.parse(cli(['--db', path, 'verify', '--json'], env).stdout) as { head: unknown }).head;
    expect(head(copy)).toEqual(head(db));
    expect(cli(['--db', copy, 'state', 'etl_orders', '--json'], env).stdout).toBe(ok(['state', 'etl_orders', '--json']) + '\n');
  });

  test('3. replay --expect exits 0, and 7 (an expectation that does not hold) with a diff after the expectation is edited', () => {
    const file = join(dir, 'replay.jsonl');
    ok(['export', '--out', file]);
    const expected = join(dir, 'expected.json');
    writeFileSync(expected, ok(['state', 'etl_orders', '--json']));
    expect(cli(['replay', file, '--expect', expected], env).code).toBe(0);
    writeFileSync(expected, readFileSync(expected, 'utf8').replace('"completeThrough": "2026-11-03"', '"completeThrough": "2026-11-04"'));
    const r = cli(['replay', file, '--expect', expected], env);
    expect(r.code).toBe(7);
    expect(r.stdout).toContain('completeThrough: expected "2026-11-04", actual "2026-11-03"');
  });

  test('4. state --as-of the position before the clear shows the cleared date as success', () => {
    const view = JSON.parse(ok(['state', 'etl_orders', '--as-of', '9', '--json'])) as { dates: Array<{ date: string; status: string }> };
    expect(view.dates.find((d) => d.date === '2026-11-04')?.status).toBe('success');
    const now = JSON.parse(ok(['state', 'etl_orders', '--json'])) as { dates: Array<{ date: string; status: string }> };
    expect(now.dates.find((d) => d.date === '2026-11-04')?.status).toBe('cleared');
  });
});
