import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir, type CliResult } from '../support/run-cli.js';

const HOUR = 3_600_000;
/** Each test spawns the binary several times; on a busy machine that outlasts vitest's 5 s default. Not a speed assertion, only a guard against hangs. */
const SPAWNS = { timeout: 60_000 };

type Interval = { start: string; end: string };
type PendingView = { pipeline: string; from: string | null; to: string | null; pending: Array<{ date: string; reason: string; runAfter: string; dataInterval: Interval }>; inFlight: unknown[] };
type StateView = { dates: Array<{ date: string; status: string; runType: string | null; offSchedule: boolean; dataInterval: Interval; logicalDate: string }> };
type StartView = { runId: string; date: string; logicalDate: string; runType: string; offSchedule: boolean; dataInterval: Interval; runAfter: string };
type LogView = { events: Array<{ position: number; type: string; recordedAt: string; data: Record<string, unknown>; metadata: { actor: string; reason?: string } }> };

/** A fresh ledger file and a runner of the real binary against it, with a fixed clock. */
function session(now: string) {
  const db = join(tempDir('runledger-tt-'), 'ledger.db');
  const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: now };
  const run = (...args: string[]): CliResult => cli(args, env);
  const ok = (...args: string[]): string => {
    const r = run(...args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const json = <T>(...args: string[]): T => JSON.parse(ok(...args, '--json')) as T;
  return { db, run, ok, json };
}

function hoursOf(interval: Interval): number {
  return (Date.parse(interval.end) - Date.parse(interval.start)) / HOUR;
}

/** A refusal: the exit code, one line on stderr, nothing on stdout, nothing written. */
function expectRefused(r: CliResult, code: number, message: RegExp): void {
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message);
}

describe('issue 3 acceptance 1: @daily in America/New_York has a 23-hour and a 25-hour slot', SPAWNS, () => {
  test.each([
    { label: 'spring forward', from: '2026-03-07', to: '2026-03-09', date: '2026-03-08', hours: 23, interval: { start: '2026-03-08T00:00:00-05:00', end: '2026-03-09T00:00:00-04:00' } },
    { label: 'fall back', from: '2026-10-31', to: '2026-11-02', date: '2026-11-01', hours: 25, interval: { start: '2026-11-01T00:00:00-04:00', end: '2026-11-02T00:00:00-05:00' } },
  ])('$label: pending --from $from --to $to shows $date with a $hours-hour data interval', ({ from, to, date, hours, interval }) => {
    const s = session('2026-11-30T12:00:00Z');
    s.ok('define', 'ny_daily', '--schedule', '@daily', '--start', '2026-03-07', '--tz', 'America/New_York');
    const view = s.json<PendingView>('pending', 'ny_daily', '--from', from, '--to', to);
    expect(view).toMatchObject({ pipeline: 'ny_daily', from, to, inFlight: [] });
    expect(view.pending.map((p) => [p.date, hoursOf(p.dataInterval)])).toEqual([
      [from, 24],
      [date, hours],
      [to, 24],
    ]);
    const slot = view.pending[1];
    expect(slot).toMatchObject({ reason: 'missing', dataInterval: interval, runAfter: interval.end });
  });
});

describe('issue 3 acceptance 2: 0 * * * * in America/New_York has 23 slots on 2026-03-08 and 25 on 2026-11-01', SPAWNS, () => {
  const s = session('2026-11-30T12:00:00Z');
  beforeAll(() => {
    s.ok('define', 'ny_hourly', '--schedule', '0 * * * *', '--start', '2026-03-01', '--tz', 'America/New_York');
  });

  test.each([
    { label: 'spring forward, pending', command: 'pending', from: '2026-03-08T00:00:00-05:00', to: '2026-03-08T23:59:59-04:00', count: 23 },
    { label: 'spring forward, state', command: 'state', from: '2026-03-08T05:00:00Z', to: '2026-03-09T03:59:59Z', count: 23 },
    { label: 'fall back, pending', command: 'pending', from: '2026-11-01T00:00:00-04:00', to: '2026-11-01T23:59:59-05:00', count: 25 },
    { label: 'fall back, state', command: 'state', from: '2026-11-01T04:00:00Z', to: '2026-11-02T04:59:59Z', count: 25 },
  ])('$label --from $from --to $to: $count slots', ({ command, from, to, count }) => {
    const dates =
      command === 'pending'
        ? s.json<PendingView>('pending', 'ny_hourly', '--from', from, '--to', to).pending.map((p) => p.date)
        : s.json<StateView>('state', 'ny_hourly', '--from', from, '--to', to).dates.map((d) => d.date);
    expect(dates).toHaveLength(count);
    expect(new Set(dates).size).toBe(count);
  });

  test('both 01:00 hours of 2026-11-01 are slots; 02:00 of 2026-03-08 is not', () => {
    const fall = s.json<PendingView>('pending', 'ny_hourly', '--from', '2026-11-01T01:00:00-04:00', '--to', '2026-11-01T01:00:00-05:00');
    expect(fall.pending.map((p) => p.date)).toEqual(['2026-11-01T01:00:00-04:00', '2026-11-01T01:00:00-05:00']);
    const spring = s.json<PendingView>('pending', 'ny_hourly', '--from', '2026-03-08T01:00:00-05:00', '--to', '2026-03-08T03:00:00-04:00');
    expect(spring.pending.map((p) => p.date)).toEqual(['2026-03-08T01:00:00-05:00', '2026-03-08T03:00:00-04:00']);
  });
});

describe('issue 3 acceptance 4 and S11: manual runs', SPAWNS, () => {
  const NOW = '2026-11-05T01:00:00+07:00';
  const define = (s: ReturnType<typeof session>) => s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta');

  test.each([
    { label: 'a future date key', date: '2026-11-20', extra: [] as string[] },
    { label: 'a future instant', date: '2026-11-05T02:00:00+07:00', extra: [] },
    { label: 'a future date with an explicit interval', date: '2026-11-06', extra: ['--interval-start', '2026-11-01', '--interval-end', '2026-11-02'] },
  ])('a manual start of $label is refused with exit 3 and nothing is written', ({ date, extra }) => {
    const s = session(NOW);
    define(s);
    const before = eventCount(s.db);
    expectRefused(s.run('start', 'etl_orders', date, '--type', 'manual', ...extra), 3, /is in the future/);
    expect(eventCount(s.db)).toBe(before);
  });

  test('an off-schedule manual start is accepted and shown as off-schedule in state', () => {
    const s = session(NOW);
    define(s);
    const run = s.json<StartView>('start', 'etl_orders', '2026-11-03T12:00:00+07:00', '--type', 'manual');
    expect(run).toMatchObject({ date: '2026-11-03T12:00:00+07:00', logicalDate: '2026-11-03T12:00:00+07:00', runType: 'manual', offSchedule: true });
    const state = s.json<StateView>('state', 'etl_orders');
    expect(state.dates.find((d) => d.date === '2026-11-03T12:00:00+07:00')).toMatchObject({ status: 'running', runType: 'manual', offSchedule: true });
    expect(state.dates.find((d) => d.date === '2026-11-03')).toMatchObject({ status: 'missing', offSchedule: false });
    const table = s.ok('state', 'etl_orders');
    expect(table.split('\n').find((line) => line.startsWith('2026-11-03T12:00:00+07:00'))).toMatch(/running .*manual .*off-schedule/);
    expect(s.ok('log', 'etl_orders')).toMatch(/started etl_orders 2026-11-03T12:00:00\+07:00 attempt 1 \(manual, off-schedule\)/);
  });

  test('a scheduled start of an off-schedule instant is refused with exit 3', () => {
    const s = session(NOW);
    define(s);
    const before = eventCount(s.db);
    expectRefused(s.run('start', 'etl_orders', '2026-11-03T12:00:00+07:00'), 3, /is not a slot .*--type manual/);
    expect(eventCount(s.db)).toBe(before);
  });

  test.each([
    {
      label: 'a real slot records the timetable interval',
      date: '2026-11-02',
      extra: [] as string[],
      expected: { date: '2026-11-02', offSchedule: false, dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' } },
    },
    {
      label: 'an explicit --interval-start/--interval-end is recorded in the pipeline zone',
      date: '2026-11-02',
      extra: ['--interval-start', '2026-11-01T23:00:00Z', '--interval-end', '2026-11-02T23:00:00Z'],
      expected: { date: '2026-11-02', offSchedule: false, dataInterval: { start: '2026-11-02T06:00:00+07:00', end: '2026-11-03T06:00:00+07:00' } },
    },
    {
      label: 'an explicit interval on an off-schedule instant',
      date: '2026-11-03T12:00:00+07:00',
      extra: ['--interval-start', '2026-11-03T06:00:00+07:00', '--interval-end', '2026-11-03T12:00:00+07:00'],
      expected: { date: '2026-11-03T12:00:00+07:00', offSchedule: true, dataInterval: { start: '2026-11-03T06:00:00+07:00', end: '2026-11-03T12:00:00+07:00' } },
    },
  ])('manual start: $label', ({ date, extra, expected }) => {
    const s = session(NOW);
    define(s);
    const run = s.json<StartView>('start', 'etl_orders', date, '--type', 'manual', ...extra);
    expect(run).toMatchObject({ runType: 'manual', ...expected });
    const row = s.json<StateView>('state', 'etl_orders').dates.find((d) => d.date === expected.date);
    expect(row).toMatchObject({ status: 'running', runType: 'manual', offSchedule: expected.offSchedule, dataInterval: expected.dataInterval });
    const started = s.json<LogView>('log', 'etl_orders', '--type', 'RunStarted').events[0];
    expect(started?.data).toMatchObject({ date: expected.date, dataInterval: expected.dataInterval, offSchedule: expected.offSchedule, runType: 'manual' });
  });

  test.each([
    { label: 'an explicit interval on a scheduled run', args: ['2026-11-02', '--interval-start', '2026-11-02', '--interval-end', '2026-11-03'], message: /only for manual runs/ },
    { label: 'only one bound of the interval', args: ['2026-11-02', '--type', 'manual', '--interval-start', '2026-11-02'], message: /both --interval-start and --interval-end/ },
    { label: 'an interval that ends before it starts', args: ['2026-11-02', '--type', 'manual', '--interval-start', '2026-11-03', '--interval-end', '2026-11-02'], message: /is before --interval-start/ },
  ])('$label is bad input: exit 2, nothing written', ({ args, message }) => {
    const s = session(NOW);
    define(s);
    const before = eventCount(s.db);
    expectRefused(s.run('start', 'etl_orders', ...args), 2, message);
    expect(eventCount(s.db)).toBe(before);
  });
});

describe('date normalisation: start and clear accept the key or any instant that is exactly the logical date', SPAWNS, () => {
  test.each([
    { label: 'the key', text: '2026-11-02' },
    { label: 'the logical date with its local offset', text: '2026-11-02T00:00:00+07:00' },
    { label: 'the logical date in UTC', text: '2026-11-01T17:00:00Z' },
  ])('$label ($text) is recorded as 2026-11-02', ({ text }) => {
    const s = session('2026-11-05T01:00:00+07:00');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta');
    const run = s.json<StartView>('start', 'etl_orders', text);
    expect(run).toMatchObject({ date: '2026-11-02', logicalDate: '2026-11-02T00:00:00+07:00', offSchedule: false });
    s.ok('fail', run.runId, '--error', 'boom');
    const cleared = s.json<{ cleared: Array<{ date: string }> }>('clear', 'etl_orders', text);
    expect(cleared.cleared.map((c) => c.date)).toEqual(['2026-11-02']);
    const events = s.json<LogView>('log', 'etl_orders', '--date', text).events;
    expect(events.map((e) => [e.type, e.data['date']])).toEqual([
      ['RunStarted', '2026-11-02'],
      ['RunFailed', '2026-11-02'],
      ['RunCleared', '2026-11-02'],
    ]);
  });
});

describe('--start and --end bounds', SPAWNS, () => {
  test.each([
    { label: 'a start at local midnight is the first slot', args: ['--start', '2026-11-01'], from: '2026-11-01', to: '2026-11-09' },
    { label: 'a start not aligned to the schedule begins at the first tick after it', args: ['--start', '2026-11-01T05:00:00+07:00'], from: '2026-11-02', to: '2026-11-09' },
    { label: 'the end is inclusive', args: ['--start', '2026-11-01', '--end', '2026-11-04'], from: '2026-11-01', to: '2026-11-04' },
    { label: 'an end between ticks keeps the last tick before it', args: ['--start', '2026-11-01', '--end', '2026-11-04T12:00:00+07:00'], from: '2026-11-01', to: '2026-11-04' },
  ])('$label', ({ args, from, to }) => {
    const s = session('2026-11-10T00:00:00+07:00');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--tz', 'Asia/Jakarta', ...args);
    expect(s.json<PendingView>('pending', 'etl_orders')).toMatchObject({ from, to });
    // pending never lists a slot before the start or past the end, whatever the range asked for.
    const wide = s.json<PendingView>('pending', 'etl_orders', '--from', '2026-10-01', '--to', '2026-11-30');
    expect([wide.pending[0]?.date, wide.pending.at(-1)?.date]).toEqual([from, to]);
  });

  test('a slot not due yet is not pending, even inside an explicit --to', () => {
    const s = session('2026-11-05T01:00:00+07:00');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta');
    const view = s.json<PendingView>('pending', 'etl_orders', '--from', '2026-11-01', '--to', '2026-11-30');
    expect(view.pending.map((p) => p.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
  });

  test('a date past the end is not a slot: a scheduled start of it is refused, saying it is after the end', () => {
    const s = session('2026-11-10T00:00:00+07:00');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--end', '2026-11-04', '--tz', 'Asia/Jakarta');
    s.ok('start', 'etl_orders', '2026-11-04');
    expectRefused(s.run('start', 'etl_orders', '2026-11-05'), 3, /is after etl_orders's end \(2026-11-04T00:00:00\+07:00\)/);
  });
});

describe('timetable kinds from the CLI', SPAWNS, () => {
  test.each([
    { label: 'interval: the slot covers the day and is due at the next tick', kind: 'interval', end: '2026-11-03T00:00:00+07:00', last: '2026-11-04' },
    { label: 'trigger: the slot is zero-width and due at its tick', kind: 'trigger', end: '2026-11-02T00:00:00+07:00', last: '2026-11-05' },
  ])('$label', ({ kind, end, last }) => {
    const s = session('2026-11-05T00:00:00+07:00');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta', '--timetable', kind);
    const view = s.json<PendingView>('pending', 'etl_orders');
    expect(view.to).toBe(last);
    expect(view.pending.find((p) => p.date === '2026-11-02')).toMatchObject({ runAfter: end, dataInterval: { start: '2026-11-02T00:00:00+07:00', end } });
  });
});

describe('redefinition', SPAWNS, () => {
  test.each([
    { label: 'another schedule', args: ['--schedule', '0 6 * * *', '--tz', 'Asia/Jakarta'], changes: [{ field: 'schedule', from: '@daily', to: '0 6 * * *' }], first: '2026-11-01T06:00:00+07:00' },
    {
      label: 'another zone',
      args: ['--schedule', '@daily', '--tz', 'America/New_York'],
      changes: [
        { field: 'timezone', from: 'Asia/Jakarta', to: 'America/New_York' },
        { field: 'start', from: '2026-11-01T00:00:00+07:00', to: '2026-11-01T00:00:00-04:00' },
      ],
      first: '2026-11-01',
    },
  ])('define again with $label appends PipelineRedefined; pending follows it; log shows who and when', ({ args, changes, first }) => {
    const s = session('2026-11-05T12:00:00Z');
    s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta');
    const out = cli(['define', 'etl_orders', '--start', '2026-11-01', ...args, '--reason', 'new upstream SLA'], { RUNLEDGER_DB: s.db, RUNLEDGER_NOW: '2026-11-06T09:00:00Z', RUNLEDGER_ACTOR: 'alice' });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^redefined etl_orders/);
    const events = s.json<LogView>('log', 'etl_orders').events;
    expect(events.map((e) => e.type)).toEqual(['PipelineDefined', 'PipelineRedefined']);
    expect(events[1]).toMatchObject({ recordedAt: '2026-11-06T09:00:00.000Z', metadata: { actor: 'alice', reason: 'new upstream SLA' } });
    // The order of the changed fields is not part of the contract.
    const byField = (list: Array<{ field: string }>) => [...list].sort((a, b) => a.field.localeCompare(b.field));
    expect(byField(events[1]?.data['changes'] as Array<{ field: string }>)).toEqual(byField(changes));
    expect(s.ok('log', 'etl_orders')).toMatch(/alice .*redefined etl_orders: /);
    expect(s.json<PendingView>('pending', 'etl_orders').pending[0]?.date).toBe(first);
  });

  test('define with identical options records nothing', () => {
    const s = session('2026-11-05T12:00:00Z');
    const args = ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta'];
    s.ok(...args);
    const before = eventCount(s.db);
    expect(s.ok(...args)).toMatch(/already defined like this; nothing recorded/);
    expect(s.ok('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-10-31T17:00:00Z', '--tz', 'Asia/Jakarta')).toMatch(/nothing recorded/);
    expect(eventCount(s.db)).toBe(before);
  });
});
