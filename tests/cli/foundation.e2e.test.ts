import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-05T01:00:00+07:00';

/** Issue 2's acceptance session, step by step, on the real binary. */
describe('a scheduler was down for three days (CLI end to end)', () => {
  const dir = tempDir();
  const env = { RUNLEDGER_DB: join(dir, 'ledger.db'), RUNLEDGER_NOW: NOW };
  const run = (...args: string[]) => cli(args, env);
  const json = (...args: string[]) => {
    const r = run(...args, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const start = (date: string, ...flags: string[]) => {
    const r = run('start', 'etl_orders', date, ...flags);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(() => {
    expect(run('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta').code).toBe(0);
  });

  test('1. pending lists the three missed dates with reason missing', () => {
    const view = json('pending', 'etl_orders');
    expect(view['pending']).toEqual([
      expect.objectContaining({ date: '2026-11-02', reason: 'missing' }),
      expect.objectContaining({ date: '2026-11-03', reason: 'missing' }),
      expect.objectContaining({ date: '2026-11-04', reason: 'missing' }),
    ]);
    expect(view).toMatchObject({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', inFlight: [] });
  });

  test('2. watermark and complete-through follow successes; a retry after a failure is attempt 2', () => {
    expect(run('succeed', start('2026-11-04')).code).toBe(0);
    expect(run('succeed', start('2026-11-02'), '--metrics', '{"rows": 7}').code).toBe(0);
    expect(json('watermark', 'etl_orders')).toEqual({ pipeline: 'etl_orders', watermark: '2026-11-04', completeThrough: '2026-11-02' });
    expect(run('fail', start('2026-11-03'), '--error', 'upstream file missing').code).toBe(0);
    const retry = run('start', 'etl_orders', '2026-11-03', '--json');
    const started = JSON.parse(retry.stdout) as { runId: string; attempt: number; dataInterval: unknown; runAfter: string };
    expect(started).toMatchObject({ attempt: 2, date: '2026-11-03', runAfter: '2026-11-04T00:00:00+07:00', dataInterval: { start: '2026-11-03T00:00:00+07:00', end: '2026-11-04T00:00:00+07:00' } });
    expect(run('succeed', started.runId).code).toBe(0);
    expect(json('watermark', 'etl_orders')).toMatchObject({ watermark: '2026-11-04', completeThrough: '2026-11-04' });
  });

  test('3. a clear keeps the watermark, lowers complete-through and makes the date pending', () => {
    expect(run('clear', 'etl_orders', '2026-11-04', '--reason', 'bad upstream file').code).toBe(0);
    expect(json('watermark', 'etl_orders')).toMatchObject({ watermark: '2026-11-04', completeThrough: '2026-11-03' });
    expect((json('pending', 'etl_orders')['pending'] as Array<{ date: string; reason: string }>).map((p) => [p.date, p.reason])).toEqual([['2026-11-04', 'cleared']]);
    const state = json('state', 'etl_orders') as { dates: Array<{ date: string; status: string; attempts: number; metrics: unknown }> };
    expect(state.dates.map((d) => [d.date, d.status])).toEqual([
      ['2026-11-02', 'success'],
      ['2026-11-03', 'success'],
      ['2026-11-04', 'cleared'],
    ]);
    expect(state.dates[0]?.metrics).toEqual({ rows: 7 });
  });

  test('4. a run cleared while running cannot succeed; a repeated success is recorded once', () => {
    const runId = start('2026-11-04');
    expect(run('clear', 'etl_orders', '2026-11-04').code).toBe(0);
    const late = run('succeed', runId);
    expect(late.code).toBe(3);
    expect(late.stderr.trim().split('\n')).toHaveLength(1);
    expect(late.stderr).toMatch(/was cleared/);
    expect((json('state', 'etl_orders') as { dates: Array<{ date: string; status: string }> }).dates.at(-1)?.status).toBe('cleared');

    const again = start('2026-11-04');
    expect(run('succeed', again).code).toBe(0);
    const count = eventCount(env.RUNLEDGER_DB);
    const repeat = run('succeed', again);
    expect(repeat.code).toBe(0);
    expect(eventCount(env.RUNLEDGER_DB)).toBe(count);
  });

  test('5. a running date refuses a second start; a successful one needs --force', () => {
    const runId = start('2026-11-03', '--force');
    const second = run('start', 'etl_orders', '2026-11-03');
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(runId);
    expect(run('succeed', runId).code).toBe(0);
    const refused = run('start', 'etl_orders', '2026-11-03');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/--force/);
    const forced = JSON.parse(run('start', 'etl_orders', '2026-11-03', '--force', '--json').stdout) as { attempt: number; forced: boolean };
    expect(forced).toMatchObject({ attempt: 4, forced: true });
  });

  test('the log records who did what and why', () => {
    const log = json('log', 'etl_orders') as { events: Array<{ type: string; metadata: { actor: string; reason?: string } }> };
    expect(log.events[0]?.type).toBe('PipelineDefined');
    expect(log.events.every((e) => e.metadata.actor === 'tester')).toBe(true);
    expect(log.events.find((e) => e.type === 'RunCleared')?.metadata.reason).toBe('bad upstream file');
  });
});

describe('bad input: one line, the documented exit code, nothing written', () => {
  const dir = tempDir();
  const db = join(dir, 'ledger.db');
  const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: NOW };
  let runId = '';
  beforeAll(() => {
    expect(cli(['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta'], env).code).toBe(0);
    runId = cli(['start', 'etl_orders', '2026-11-02'], env).stdout.trim();
  });

  test.each([
    { label: 'an invalid date', args: ['start', 'etl_orders', '2026-02-30'], code: 2, pattern: /February 2026 has 28 days/ },
    { label: 'an unknown zone', args: ['define', 'other', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Mars/Olympus'], code: 2, pattern: /not a known IANA zone/ },
    { label: 'a malformed cron', args: ['define', 'other', '--schedule', '0 25 * * *', '--start', '2026-11-02'], code: 2, pattern: /hour field '25'/ },
    { label: 'malformed metrics JSON', args: ['succeed', '__RUN__', '--metrics', '{rows: 1'], code: 2, pattern: /not valid JSON/ },
    { label: 'metrics that are not an object', args: ['succeed', '__RUN__', '--metrics', '[1,2]'], code: 2, pattern: /must be a JSON object/ },
    { label: 'an unknown run id', args: ['succeed', '01JUNKNOWNRUN0000000000000'], code: 4, pattern: /no run 01JUNKNOWNRUN/ },
    { label: 'an unknown pipeline', args: ['pending', 'nope'], code: 4, pattern: /no pipeline 'nope'/ },
    { label: 'an invalid pipeline name', args: ['define', 'Bad Name', '--schedule', '@daily', '--start', '2026-11-02'], code: 2, pattern: /not a valid pipeline name/ },
    { label: 'an unknown option', args: ['pending', 'etl_orders', '--frm', '2026-11-02'], code: 2, pattern: /unknown option/ },
    { label: 'an invalid --now', args: ['--now', 'yesterday', 'pending', 'etl_orders'], code: 2, pattern: /not an RFC 3339 instant/ },
    { label: 'an invalid lease', args: ['start', 'etl_orders', '2026-11-03', '--lease', 'soon'], code: 2, pattern: /not a duration/ },
  ])('$label → exit $code', ({ args, code, pattern }) => {
    const before = eventCount(db);
    const r = cli(args.map((a) => (a === '__RUN__' ? runId : a)), env);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^(runledger: |error: )/);
    expect(r.stdout).toBe('');
    expect(eventCount(db)).toBe(before);
  });

  test('a file that is not a ledger is refused and left untouched', () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'hello, not a database at all\n'.repeat(200));
    const r = cli(['--db', text, 'pipelines'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a SQLite database/);
    const other = join(dir, 'other.db');
    new Database(other).exec('CREATE TABLE customers (id INTEGER)');
    const r2 = cli(['--db', other, 'define', 'x', '--schedule', '@daily', '--start', '2026-11-02'], env);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/not a runledger ledger/);
  });

  test('a ledger from a newer version is refused', () => {
    const newer = join(dir, 'newer.db');
    expect(cli(['--db', newer, 'define', 'x', '--schedule', '@daily', '--start', '2026-11-02'], env).code).toBe(0);
    const raw = new Database(newer);
    raw.prepare(`UPDATE runledger_meta SET value = '99' WHERE key = 'schemaVersion'`).run();
    raw.close();
    const r = cli(['--db', newer, 'pipelines'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/newer than this runledger understands/);
  });

  test('a query on a ledger that does not exist creates nothing', () => {
    const missing = join(dir, 'missing.db');
    const r = cli(['--db', missing, 'state', 'etl_orders'], env);
    expect(r.code).toBe(4);
    expect(() => eventCount(missing)).toThrow();
  });
});

describe('S1: the events table refuses UPDATE and DELETE from any SQLite client', () => {
  test.each(['UPDATE events SET type = type', 'DELETE FROM events', 'DELETE FROM events WHERE position = 1'])('%s', (sql) => {
    const db = join(tempDir(), 'ledger.db');
    expect(cli(['--db', db, 'define', 'x', '--schedule', '@daily', '--start', '2026-11-02']).code).toBe(0);
    const raw = new Database(db);
    expect(() => raw.prepare(sql).run()).toThrow(/immutable/);
    raw.close();
    expect(eventCount(db)).toBe(1);
  });
});
