import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir, type CliResult } from '../support/run-cli.js';

// The two repros of definitions changed over time (a zone change and a schedule change on a pipeline with
// history) end consistent: the history stays as it was made, the new timetable starts at --effective, and
// every answer (state, pending, watermark, status, check, runs, catchup --all, metrics, report, export and
// import) agrees.

/** Spawns of the CLI on a busy machine: a guard against hangs, not a speed assertion. */
const SPAWNS = { timeout: 90_000 };

type Interval = { start: string; end: string };
type StateView = { watermark: string | null; completeThrough: string | null; dates: Array<{ date: string; status: string; dataInterval: Interval; logicalDate: string; runType: string | null }> };
type PendingView = { pending: Array<{ date: string; reason: string; dataInterval: Interval }> };

function session() {
  const dir = tempDir('runledger-effective-');
  const db = join(dir, 'ledger.db');
  const run = (now: string, ...args: string[]): CliResult => cli(args, { RUNLEDGER_DB: db, RUNLEDGER_NOW: now });
  const ok = (now: string, ...args: string[]): string => {
    const r = run(now, ...args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const json = <T>(now: string, ...args: string[]): T => JSON.parse(ok(now, ...args, '--json')) as T;
  return { dir, db, run, ok, json };
}

/** Every date at or below complete-through that the state lists is done: nothing missing under the line. */
function expectNothingMissingBelowCompleteThrough(state: StateView): void {
  const through = state.dates.find((d) => d.date === state.completeThrough);
  expect(through).toBeDefined();
  const throughMs = Date.parse(through?.logicalDate ?? '');
  for (const d of state.dates) if (Date.parse(d.logicalDate) <= throughMs) expect(d.status, d.date).toBe('success');
}

describe('a zone change on a daily UTC pipeline with history (define etl2 --tz Asia/Jakarta)', () => {
  test('is refused without --effective; with it the UTC days stay, the Jakarta days start at the instant, and catchup --all runs only what is due and not done', SPAWNS, () => {
    const s = session();
    const T0 = '2026-11-05T10:00:00Z';
    s.ok(T0, 'define', 'etl2', '--schedule', '@daily', '--start', '2026-11-01', '--command', '--', 'true');
    s.ok(T0, 'backfill', 'etl2', '--from', '2026-11-01', '--to', '2026-11-04');
    const before = s.json<StateView>(T0, 'state', 'etl2');

    // Without --effective: one line saying what the change would do and how to say from when; nothing written.
    const events = eventCount(s.db);
    const refused = s.run(T0, 'define', 'etl2', '--tz', 'Asia/Jakarta');
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/zone UTC -> Asia\/Jakarta would re-key or drop 4 recorded dates, 2026-11-01 to 2026-11-04.*--effective now/);
    expect(eventCount(s.db)).toBe(events);

    const defined = s.ok(T0, 'define', 'etl2', '--tz', 'Asia/Jakarta', '--effective', 'now');
    expect(defined).toContain('from 2026-11-05T17:00:00+07:00: 2026-11-05 is the last date under the old timetable, 2026-11-06 the first under the new one');
    expect(defined).toContain('timetables: @daily UTC until 2026-11-05T10:00:00+00:00, then @daily Asia/Jakarta');

    // The UTC history stays exactly as it was, with complete-through over it.
    const after = s.json<StateView>(T0, 'state', 'etl2');
    expect({ ...after, position: null }).toEqual({ ...before, position: null });
    expect(after.completeThrough).toBe('2026-11-04');
    expectNothingMissingBelowCompleteThrough(after);

    // Three days later: the last UTC day and two Jakarta days are due; each has its own timetable's interval.
    const T1 = '2026-11-08T10:00:00Z';
    const pending = s.json<PendingView>(T1, 'pending', 'etl2');
    expect(pending.pending.map((p) => [p.date, p.dataInterval.start, p.dataInterval.end])).toEqual([
      ['2026-11-05', '2026-11-05T00:00:00+00:00', '2026-11-06T00:00:00+00:00'],
      ['2026-11-06', '2026-11-06T00:00:00+07:00', '2026-11-07T00:00:00+07:00'],
      ['2026-11-07', '2026-11-07T00:00:00+07:00', '2026-11-08T00:00:00+07:00'],
    ]);
    const status = s.json<{ pipelines: unknown[] }>(T1, 'status');
    expect(status.pipelines[0]).toMatchObject({ pipeline: 'etl2', pending: { total: 3, missing: 3 }, behind: 3, completeThrough: '2026-11-04' });
    expect(s.run(T1, 'check', '--max-pending', '0').code).toBe(7);

    // catchup --all runs exactly those: due under their own timetable and not done; nothing else.
    const catchup = s.json<{ pipelines: Array<{ pipeline: string; runs: Array<{ date: string }> }> }>(T1, 'catchup', '--all', '--all-pending');
    expect(catchup.pipelines.flatMap((p) => p.runs.map((r) => r.date))).toEqual(['2026-11-05', '2026-11-06', '2026-11-07']);
    const done = s.json<StateView>(T1, 'state', 'etl2');
    expect(done.completeThrough).toBe('2026-11-07');
    expect(done.watermark).toBe('2026-11-07');
    expectNothingMissingBelowCompleteThrough(done);
    expect(s.json<PendingView>(T1, 'pending', 'etl2').pending).toEqual([]);
    expect(s.run(T1, 'check', '--max-pending', '0').code).toBe(0);
    const runs = s.json<{ runs: Array<{ date: string; dataInterval: Interval }> }>(T1, 'runs', 'etl2');
    expect(runs.runs.map((r) => r.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']);
    expect(s.ok(T1, 'metrics')).toContain('runledger_pipeline_pending{pipeline="etl2",reason="missing"} 0');

    // pipelines and the report's pipeline page show the history; the tables equal the fold.
    expect(s.ok(T1, 'pipelines')).toContain('@daily UTC until 2026-11-05T10:00:00+00:00, then @daily Asia/Jakarta');
    s.ok(T1, 'report', '--html', join(s.dir, 'report.html'));
    expect(readFileSync(join(s.dir, 'report.html'), 'utf8')).toContain('@daily UTC until 2026-11-05T10:00:00+00:00, then @daily Asia/Jakarta');
    expect(s.ok(T1, 'verify', '--projections')).toContain('equal to a fresh fold');

    // Export, import into a new ledger and replay answer the same.
    s.ok(T1, 'export', '--out', join(s.dir, 'ledger.jsonl'));
    const copy = join(s.dir, 'copy.db');
    expect(cli(['import', join(s.dir, 'ledger.jsonl')], { RUNLEDGER_DB: copy, RUNLEDGER_NOW: T1 }).code).toBe(0);
    expect(JSON.parse(cli(['state', 'etl2', '--json'], { RUNLEDGER_DB: copy, RUNLEDGER_NOW: T1 }).stdout)).toEqual(done);
    const replayed = JSON.parse(s.ok(T1, 'replay', join(s.dir, 'ledger.jsonl'), '--pipeline', 'etl2', '--json')) as { completeThrough: string; watermark: string };
    expect(replayed).toMatchObject({ completeThrough: '2026-11-07', watermark: '2026-11-07' });
  });
});

describe("a schedule change on a @daily pipeline with history (define --schedule '0 6 * * *')", () => {
  test('does not turn the history missing nor drop complete-through, and the 06:00 slots start at --effective', SPAWNS, () => {
    const s = session();
    const T0 = '2026-11-05T10:00:00Z';
    s.ok(T0, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-01', '--command', '--', 'true');
    s.ok(T0, 'backfill', 'etl', '--from', '2026-11-01', '--to', '2026-11-04');
    const refused = s.run(T0, 'define', 'etl', '--schedule', '0 6 * * *');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/schedule @daily -> 0 6 \* \* \* would re-key or drop 4 recorded dates/);

    const defined = s.ok(T0, 'define', 'etl', '--schedule', '0 6 * * *', '--effective', '2026-11-06T00:00:00Z');
    expect(defined).toContain('2026-11-05 is the last date under the old timetable, 2026-11-06T06:00:00+00:00 the first under the new one');
    const state = s.json<StateView>(T0, 'state', 'etl');
    expect(state.dates.map((d) => [d.date, d.status])).toEqual([
      ['2026-11-01', 'success'],
      ['2026-11-02', 'success'],
      ['2026-11-03', 'success'],
      ['2026-11-04', 'success'],
    ]);
    expect(state.completeThrough).toBe('2026-11-04');
    expect(s.json<{ completeThrough: string }>(T0, 'watermark', 'etl').completeThrough).toBe('2026-11-04');

    // A dry run of catchup --all plans the last midnight day, then the 06:00 slots, and nothing of the history.
    const T1 = '2026-11-08T10:00:00Z';
    const plan = s.json<{ pipelines: Array<{ slots: Array<{ date: string }> }> }>(T1, 'catchup', '--all', '--all-pending', '--dry-run');
    expect(plan.pipelines.flatMap((p) => p.slots.map((slot) => slot.date))).toEqual(['2026-11-05', '2026-11-06T06:00:00+00:00', '2026-11-07T06:00:00+00:00']);
    // The backfill over the whole range finds the history done.
    const backfill = s.json<{ slots: Array<{ date: string }> }>(T1, 'backfill', 'etl', '--from', '2026-11-01', '--to', '2026-11-07', '--dry-run');
    expect(backfill.slots.map((slot) => slot.date)).toEqual(['2026-11-05', '2026-11-06T06:00:00+00:00', '2026-11-07T06:00:00+00:00']);
  });

  test('--effective without a change of timetable, or before the current one took effect, is bad input', SPAWNS, () => {
    const s = session();
    const T0 = '2026-11-05T10:00:00Z';
    s.ok(T0, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-01');
    const noChange = s.run(T0, 'define', 'etl', '--retries', '2', '--effective', 'now');
    expect(noChange.code).toBe(2);
    expect(noChange.stderr).toMatch(/--effective goes with a change of --schedule, --tz, --start or --timetable/);
    const tooEarly = s.run(T0, 'define', 'etl', '--tz', 'Europe/Berlin', '--effective', '2026-10-01');
    expect(tooEarly.code).toBe(2);
    expect(tooEarly.stderr).toMatch(/is not after 2026-11-01T00:00:00\+00:00/);
    const fresh = s.run(T0, 'define', 'fresh', '--schedule', '@daily', '--start', '2026-11-01', '--effective', 'now');
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toMatch(/fresh is new, so its --start says where it begins/);
    // Options that move no slot need no --effective, on a pipeline with history too.
    const run = s.ok(T0, 'start', 'etl', '2026-11-02').trim();
    s.ok(T0, 'succeed', run);
    s.ok(T0, 'define', 'etl', '--retries', '2', '--timeout', '1h', '--sla', '2h');
  });
});
