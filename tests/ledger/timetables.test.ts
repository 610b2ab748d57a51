import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { DefineInput } from '../../src/ledger/build-definition.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

const HOUR = 3_600_000;

/** Every ledger a test opened, closed after it. */
const opened: Ledger[] = [];

afterEach(async () => {
  while (opened.length > 0) await opened.pop()?.close();
});

/** A fresh ledger on a temp file whose clock reads `now` (movable with `at`). */
async function ledgerAt(now: string): Promise<{ ledger: Ledger; at: (instant: string) => void }> {
  let nowMs = Date.parse(now);
  const ledger = await openLedger({ db: join(tempDir('runledger-ledger-'), 'ledger.db'), clock: () => nowMs, actor: 'tester' });
  opened.push(ledger);
  return { ledger, at: (instant) => void (nowMs = Date.parse(instant)) };
}

async function definedAt(now: string, definition: DefineInput): Promise<Ledger> {
  const { ledger } = await ledgerAt(now);
  await ledger.define(definition);
  return ledger;
}

function hoursOf(interval: { start: string; end: string }): number {
  return (Date.parse(interval.end) - Date.parse(interval.start)) / HOUR;
}

const NEW_YORK_DAILY: DefineInput = { pipeline: 'ny_daily', schedule: '@daily', start: '2026-03-07', timezone: 'America/New_York' };
const JAKARTA_DAILY: DefineInput = { pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-01', timezone: 'Asia/Jakarta' };

describe('S16 through the ledger: a daily slot on a DST day is 23 or 25 hours', () => {
  test.each([
    { label: 'the day before spring forward', from: '2026-03-07', to: '2026-03-07', date: '2026-03-07', hours: 24 },
    { label: 'spring forward (02:00 -> 03:00)', from: '2026-03-07', to: '2026-03-09', date: '2026-03-08', hours: 23 },
    { label: 'the day after spring forward', from: '2026-03-09', to: '2026-03-09', date: '2026-03-09', hours: 24 },
    { label: 'fall back (02:00 -> 01:00)', from: '2026-10-31', to: '2026-11-02', date: '2026-11-01', hours: 25 },
  ])('$label: pending --from $from --to $to shows $date as a $hours-hour slot', async ({ from, to, date, hours }) => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', NEW_YORK_DAILY);
    const view = await ledger.pending({ pipeline: 'ny_daily', from, to });
    const slot = view.pending.find((p) => p.date === date);
    expect(slot).toBeDefined();
    expect(slot?.reason).toBe('missing');
    expect(hoursOf(slot?.dataInterval ?? { start: '', end: '' })).toBe(hours);
    expect(slot?.runAfter).toBe(slot?.dataInterval.end);
    // Exactly one slot per local date.
    expect(view.pending.filter((p) => p.date === date)).toHaveLength(1);
  });

  test('the 2026-03-08 slot runs from 00:00 EST to 00:00 EDT of the next day', async () => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', NEW_YORK_DAILY);
    const view = await ledger.pending({ pipeline: 'ny_daily', from: '2026-03-07', to: '2026-03-09' });
    expect(view.pending.map((p) => p.date)).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
    expect(view.pending[1]?.dataInterval).toEqual({ start: '2026-03-08T00:00:00-05:00', end: '2026-03-09T00:00:00-04:00' });
  });
});

describe('S16 through the ledger: an hourly cron has 23 slots on spring forward and 25 on fall back', () => {
  const HOURLY: DefineInput = { pipeline: 'ny_hourly', schedule: '0 * * * *', start: '2026-03-01', timezone: 'America/New_York' };

  test.each([
    { label: 'spring forward, pending', query: 'pending', from: '2026-03-08T00:00:00-05:00', to: '2026-03-08T23:59:59-04:00', count: 23 },
    { label: 'spring forward, state', query: 'state', from: '2026-03-08T05:00:00Z', to: '2026-03-09T03:59:59Z', count: 23 },
    { label: 'fall back, pending', query: 'pending', from: '2026-11-01T00:00:00-04:00', to: '2026-11-01T23:59:59-05:00', count: 25 },
    { label: 'fall back, state', query: 'state', from: '2026-11-01T04:00:00Z', to: '2026-11-02T04:59:59Z', count: 25 },
    { label: 'an ordinary day', query: 'pending', from: '2026-03-09T00:00:00-04:00', to: '2026-03-09T23:59:59-04:00', count: 24 },
  ])('$label: $count slots', async ({ query, from, to, count }) => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', HOURLY);
    const dates =
      query === 'pending'
        ? (await ledger.pending({ pipeline: 'ny_hourly', from, to })).pending.map((p) => p.date)
        : (await ledger.state({ pipeline: 'ny_hourly', from, to })).dates.map((d) => d.date);
    expect(dates).toHaveLength(count);
    expect(new Set(dates).size).toBe(count);
  });

  test('fall back: both 01:00 hours are slots, one EDT and one EST', async () => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', HOURLY);
    const view = await ledger.pending({ pipeline: 'ny_hourly', from: '2026-11-01T00:30:00-04:00', to: '2026-11-01T02:00:00-05:00' });
    expect(view.pending.map((p) => p.date)).toEqual(['2026-11-01T01:00:00-04:00', '2026-11-01T01:00:00-05:00', '2026-11-01T02:00:00-05:00']);
  });

  test('spring forward: no slot at 02:00, 01:00 EST is followed by 03:00 EDT one hour later', async () => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', HOURLY);
    const view = await ledger.pending({ pipeline: 'ny_hourly', from: '2026-03-08T01:00:00-05:00', to: '2026-03-08T03:00:00-04:00' });
    expect(view.pending.map((p) => [p.date, hoursOf(p.dataInterval)])).toEqual([
      ['2026-03-08T01:00:00-05:00', 1],
      ['2026-03-08T03:00:00-04:00', 1],
    ]);
  });
});

describe('S16 through the ledger: a fixed duration keeps absolute spacing across DST', () => {
  test.each([
    { label: 'spring forward', from: '2026-03-07T18:00:00-05:00', to: '2026-03-08T19:00:00-04:00' },
    { label: 'fall back', from: '2026-10-31T18:00:00-04:00', to: '2026-11-01T17:00:00-05:00' },
  ])('every 6h around $label: every slot is exactly 6 hours', async ({ from, to }) => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', { pipeline: 'six', schedule: 'every 6h', start: '2026-03-01', timezone: 'America/New_York' });
    const view = await ledger.pending({ pipeline: 'six', from, to });
    expect(view.pending.length).toBeGreaterThan(3);
    for (const slot of view.pending) expect(hoursOf(slot.dataInterval)).toBe(6);
  });
});

describe('timetable kinds: when a slot is due', () => {
  test.each([
    { label: 'interval: due at the next tick', timetable: 'interval' as const, runAfter: '2026-11-03T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' },
    { label: 'trigger: zero-width, due at its own tick', timetable: 'trigger' as const, runAfter: '2026-11-02T00:00:00+07:00', end: '2026-11-02T00:00:00+07:00' },
  ])('$label', async ({ timetable, runAfter, end }) => {
    const ledger = await definedAt('2026-11-05T00:00:00+07:00', { ...JAKARTA_DAILY, timetable });
    const view = await ledger.pending({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02' });
    expect(view.pending).toEqual([
      { date: '2026-11-02', reason: 'missing', logicalDate: '2026-11-02T00:00:00+07:00', runAfter, dataInterval: { start: '2026-11-02T00:00:00+07:00', end } },
    ]);
  });

  test.each([
    { label: 'interval: the slot that began at now is not due yet', timetable: 'interval' as const, lastDue: '2026-11-04', started: false },
    { label: 'trigger: the tick at now is due', timetable: 'trigger' as const, lastDue: '2026-11-05', started: true },
  ])('$label (now = 2026-11-05 00:00 local)', async ({ timetable, lastDue, started }) => {
    const ledger = await definedAt('2026-11-05T00:00:00+07:00', { ...JAKARTA_DAILY, timetable });
    expect((await ledger.pending({ pipeline: 'etl_orders' })).to).toBe(lastDue);
    const start = ledger.start({ pipeline: 'etl_orders', date: '2026-11-05' });
    if (started) await expect(start).resolves.toMatchObject({ date: '2026-11-05', runAfter: '2026-11-05T00:00:00+07:00' });
    else await expect(start).rejects.toMatchObject({ code: 'ledger.notDue', exitCode: 3 });
  });
});

describe('start and end bounds', () => {
  test.each([
    { label: 'a start at local midnight is the first slot', start: '2026-11-01', end: null, first: '2026-11-01', last: '2026-11-09' },
    { label: 'a start not aligned to the schedule begins at the first tick after it', start: '2026-11-01T05:00:00+07:00', end: null, first: '2026-11-02', last: '2026-11-09' },
    { label: 'a start given in another offset is the same instant', start: '2026-10-31T17:00:00Z', end: null, first: '2026-11-01', last: '2026-11-09' },
    { label: 'the end is inclusive', start: '2026-11-01', end: '2026-11-04', first: '2026-11-01', last: '2026-11-04' },
    { label: 'an end between ticks keeps the last tick before it', start: '2026-11-01', end: '2026-11-04T12:00:00+07:00', first: '2026-11-01', last: '2026-11-04' },
  ])('$label', async ({ start, end, first, last }) => {
    const ledger = await definedAt('2026-11-10T00:00:00+07:00', { ...JAKARTA_DAILY, start, end });
    const view = await ledger.pending({ pipeline: 'etl_orders' });
    expect([view.from, view.to]).toEqual([first, last]);
    // An explicit range wider than the bounds is clipped to them.
    const wide = await ledger.pending({ pipeline: 'etl_orders', from: '2026-10-20', to: '2026-12-31' });
    expect([wide.pending[0]?.date, wide.pending.at(-1)?.date]).toEqual([first, last]);
  });

  test.each([
    { label: 'interval', timetable: 'interval' as const, last: '2026-11-04' },
    { label: 'trigger', timetable: 'trigger' as const, last: '2026-11-05' },
  ])('$label: a slot not due yet is not pending, even inside an explicit --to', async ({ timetable, last }) => {
    const ledger = await definedAt('2026-11-05T01:00:00+07:00', { ...JAKARTA_DAILY, timetable });
    const view = await ledger.pending({ pipeline: 'etl_orders', from: '2026-11-01', to: '2026-11-30' });
    expect(view.pending.at(-1)?.date).toBe(last);
    expect(view.to).toBe(last);
  });

  test('a slot started early by a manual run shows as in flight before it is due', async () => {
    const ledger = await definedAt('2026-11-05T01:00:00+07:00', JAKARTA_DAILY);
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05', runType: 'manual' });
    const view = await ledger.pending({ pipeline: 'etl_orders', from: '2026-11-01', to: '2026-11-30' });
    expect(view.inFlight).toEqual([expect.objectContaining({ date: '2026-11-05', runId: run.runId })]);
    expect(view.pending.map((p) => p.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
  });

  test('a date past the end is not a slot: a scheduled start of it is refused', async () => {
    const ledger = await definedAt('2026-11-10T00:00:00+07:00', { ...JAKARTA_DAILY, end: '2026-11-04' });
    await expect(ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' })).resolves.toMatchObject({ date: '2026-11-04' });
    await expect(ledger.start({ pipeline: 'etl_orders', date: '2026-11-05' })).rejects.toMatchObject({ code: 'ledger.notASlot', exitCode: 3 });
  });
});

describe('S11 manual runs', () => {
  const NOW = '2026-11-05T01:00:00+07:00';

  test.each([
    { label: 'a future date key', date: '2026-11-20' },
    { label: 'a future instant, off schedule', date: '2026-11-05T02:00:00+07:00' },
    { label: 'a future instant with an explicit interval', date: '2026-11-06', dataInterval: { start: '2026-11-01', end: '2026-11-02' } },
  ])('a manual start of $label is refused', async ({ date, dataInterval }) => {
    const ledger = await definedAt(NOW, JAKARTA_DAILY);
    const start = ledger.start({ pipeline: 'etl_orders', date, runType: 'manual', ...(dataInterval ? { dataInterval } : {}) });
    await expect(start).rejects.toMatchObject({ code: 'ledger.futureDate', exitCode: 3, message: expect.stringMatching(/in the future/) });
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates.every((d) => d.status === 'missing')).toBe(true);
  });

  test.each([
    {
      label: 'a real slot gets the timetable interval',
      date: '2026-11-02',
      expected: { date: '2026-11-02', logicalDate: '2026-11-02T00:00:00+07:00', offSchedule: false, dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' } },
    },
    {
      label: 'a real slot that is not due yet can run early',
      date: '2026-11-05',
      expected: { date: '2026-11-05', offSchedule: false, dataInterval: { start: '2026-11-05T00:00:00+07:00', end: '2026-11-06T00:00:00+07:00' } },
    },
    {
      label: 'an off-schedule instant gets the interval of the slot that contains it, not a zero-width one',
      date: '2026-11-03T12:00:00+07:00',
      expected: { date: '2026-11-03T12:00:00+07:00', logicalDate: '2026-11-03T12:00:00+07:00', offSchedule: true, dataInterval: { start: '2026-11-03T00:00:00+07:00', end: '2026-11-04T00:00:00+07:00' } },
    },
    {
      label: 'an explicit interval is recorded as given, in the pipeline zone',
      date: '2026-11-02',
      dataInterval: { start: '2026-11-01T23:00:00Z', end: '2026-11-02T23:00:00Z' },
      expected: { date: '2026-11-02', offSchedule: false, dataInterval: { start: '2026-11-02T06:00:00+07:00', end: '2026-11-03T06:00:00+07:00' } },
    },
    {
      label: 'an explicit interval on an off-schedule instant',
      date: '2026-11-03T12:00:00+07:00',
      dataInterval: { start: '2026-11-03T06:00:00+07:00', end: '2026-11-03T12:00:00+07:00' },
      expected: { date: '2026-11-03T12:00:00+07:00', offSchedule: true, dataInterval: { start: '2026-11-03T06:00:00+07:00', end: '2026-11-03T12:00:00+07:00' } },
    },
  ])('$label', async ({ date, dataInterval, expected }) => {
    const ledger = await definedAt(NOW, JAKARTA_DAILY);
    const run = await ledger.start({ pipeline: 'etl_orders', date, runType: 'manual', ...(dataInterval ? { dataInterval } : {}) });
    expect(run).toMatchObject({ runType: 'manual', attempt: 1, ...expected });
    const row = (await ledger.state({ pipeline: 'etl_orders', from: '2026-11-01', to: NOW })).dates.find((d) => d.date === expected.date);
    expect(row).toMatchObject({ status: 'running', runType: 'manual', offSchedule: expected.offSchedule, dataInterval: expected.dataInterval });
  });

  test.each([
    { label: 'a scheduled start of an off-schedule instant', input: { date: '2026-11-03T12:00:00+07:00', runType: 'scheduled' as const }, code: 'ledger.notASlot', exitCode: 3 },
    { label: 'a backfill start of an off-schedule instant', input: { date: '2026-11-03T12:00:00+07:00', runType: 'backfill' as const }, code: 'ledger.notASlot', exitCode: 3 },
    { label: 'a scheduled start with an explicit interval', input: { date: '2026-11-02', dataInterval: { start: '2026-11-02', end: '2026-11-03' } }, code: 'input.intervalNeedsManual', exitCode: 2 },
    { label: 'an interval that ends before it starts', input: { date: '2026-11-02', runType: 'manual' as const, dataInterval: { start: '2026-11-03', end: '2026-11-02' } }, code: 'input.invalidInterval', exitCode: 2 },
  ])('$label is refused and nothing is recorded', async ({ input, code, exitCode }) => {
    const ledger = await definedAt(NOW, JAKARTA_DAILY);
    const before = (await ledger.store.head()).position;
    await expect(ledger.start({ pipeline: 'etl_orders', ...input })).rejects.toMatchObject({ code, exitCode });
    expect((await ledger.store.head()).position).toBe(before);
  });

  test('an off-schedule run sits beside the slot that contains it, which stays missing', async () => {
    const ledger = await definedAt(NOW, JAKARTA_DAILY);
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03T12:00:00+07:00', runType: 'manual' });
    await ledger.succeed({ runId: run.runId });
    const state = await ledger.state({ pipeline: 'etl_orders', from: '2026-11-03', to: '2026-11-03T23:59:59+07:00' });
    expect(state.dates.map((d) => [d.date, d.status, d.offSchedule])).toEqual([
      ['2026-11-03', 'missing', false],
      ['2026-11-03T12:00:00+07:00', 'success', true],
    ]);
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending.map((p) => p.date)).toContain('2026-11-03');
  });
});

describe('date normalisation: the key, or any instant that is exactly the logical date', () => {
  test.each([
    { label: 'the key', text: '2026-11-02' },
    { label: 'the logical date with its local offset', text: '2026-11-02T00:00:00+07:00' },
    { label: 'the logical date in UTC', text: '2026-11-01T17:00:00Z' },
    { label: 'the logical date as local wall time without an offset', text: '2026-11-02T00:00' },
    { label: 'the logical date with milliseconds', text: '2026-11-01T17:00:00.000Z' },
  ])('start and clear of $label ($text) record the key 2026-11-02', async ({ text }) => {
    const ledger = await definedAt('2026-11-05T01:00:00+07:00', JAKARTA_DAILY);
    const run = await ledger.start({ pipeline: 'etl_orders', date: text });
    expect(run).toMatchObject({ date: '2026-11-02', logicalDate: '2026-11-02T00:00:00+07:00', offSchedule: false });
    await ledger.fail({ runId: run.runId, error: 'boom' });
    const cleared = await ledger.clear({ pipeline: 'etl_orders', dates: [text] });
    expect(cleared.cleared).toEqual([{ date: '2026-11-02', runId: run.runId, previousStatus: 'failed' }]);
    const { events } = await ledger.log({ pipeline: 'etl_orders', date: text });
    expect(events.map((e) => [e.type, 'date' in e.data ? e.data.date : null])).toEqual([
      ['RunStarted', '2026-11-02'],
      ['RunFailed', '2026-11-02'],
      ['RunCleared', '2026-11-02'],
    ]);
  });

  test.each([
    { label: 'New York spring forward, given in UTC', pipeline: NEW_YORK_DAILY, text: '2026-03-08T05:00:00Z', key: '2026-03-08' },
    { label: 'New York fall back, given in EDT', pipeline: NEW_YORK_DAILY, text: '2026-11-01T00:00:00-04:00', key: '2026-11-01' },
    { label: 'New York the day after fall back, given in UTC', pipeline: NEW_YORK_DAILY, text: '2026-11-02T05:00:00Z', key: '2026-11-02' },
  ])('$label: $text is the key $key', async ({ pipeline, text, key }) => {
    const ledger = await definedAt('2026-12-01T00:00:00Z', pipeline);
    await expect(ledger.start({ pipeline: pipeline.pipeline, date: text })).resolves.toMatchObject({ date: key, offSchedule: false });
  });
});

describe('redefinition', () => {
  test.each([
    {
      label: 'another schedule',
      change: { schedule: '0 6 * * *' },
      changes: [{ field: 'schedule', from: '@daily', to: '0 6 * * *' }],
      firstPending: '2026-11-01T06:00:00+07:00',
    },
    {
      label: 'another zone (the start date is re-read in it)',
      change: { timezone: 'UTC' },
      changes: [
        { field: 'timezone', from: 'Asia/Jakarta', to: 'UTC' },
        { field: 'start', from: '2026-11-01T00:00:00+07:00', to: '2026-11-01T00:00:00+00:00' },
      ],
      firstPending: '2026-11-01',
    },
    {
      label: 'another timetable kind',
      change: { timetable: 'trigger' as const },
      changes: [{ field: 'timetable', from: 'interval', to: 'trigger' }],
      firstPending: '2026-11-01',
    },
  ])('define again with $label appends PipelineRedefined with the changes, and pending follows it', async ({ change, changes, firstPending }) => {
    const { ledger, at } = await ledgerAt('2026-11-01T00:00:00Z');
    await ledger.define(JAKARTA_DAILY);
    at('2026-11-05T12:00:00Z');
    const result = await ledger.define({ ...JAKARTA_DAILY, ...change, reason: 'moved' });
    expect(result.outcome).toBe('redefined');
    expect(result.changes).toEqual(expect.arrayContaining(changes));
    expect(result.changes).toHaveLength(changes.length);

    const { events } = await ledger.log({ pipeline: 'etl_orders' });
    expect(events.map((e) => e.type)).toEqual(['PipelineDefined', 'PipelineRedefined']);
    expect(events[1]).toMatchObject({ recordedAt: '2026-11-05T12:00:00.000Z', metadata: { actor: 'tester', reason: 'moved' }, data: { changes: result.changes } });

    const pending = await ledger.pending({ pipeline: 'etl_orders' });
    expect(pending.pending[0]?.date).toBe(firstPending);
    expect((await ledger.pipeline('etl_orders')).definition).toEqual(result.definition);
  });

  test.each([
    { label: 'identical options', again: JAKARTA_DAILY },
    { label: 'the start as an equal instant in another offset', again: { ...JAKARTA_DAILY, start: '2026-10-31T17:00:00Z' } },
    { label: 'the defaults spelled out', again: { ...JAKARTA_DAILY, timetable: 'interval' as const, catchup: true, maxActiveRuns: 1, end: null } },
  ])('define again with $label records nothing', async ({ again }) => {
    const { ledger } = await ledgerAt('2026-11-05T00:00:00Z');
    await ledger.define(JAKARTA_DAILY);
    const head = (await ledger.store.head()).position;
    expect(await ledger.define(again)).toMatchObject({ outcome: 'unchanged', changes: [] });
    expect((await ledger.store.head()).position).toBe(head);
  });

  test('runs recorded under the old schedule stay in state; pending lists the old slots before --effective and the new ones from it', async () => {
    const { ledger } = await ledgerAt('2026-11-05T12:00:00Z');
    await ledger.define(JAKARTA_DAILY);
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
    await ledger.succeed({ runId: run.runId });
    // Over the whole history the new schedule would drop the recorded 2026-11-02: refused, nothing written.
    await expect(ledger.define({ ...JAKARTA_DAILY, schedule: '0 12 * * *' })).rejects.toMatchObject({ code: 'ledger.timetableChange', exitCode: 3 });
    const changed = await ledger.define({ ...JAKARTA_DAILY, schedule: '0 12 * * *', effective: '2026-11-04' });
    expect(changed.effective).toEqual({ at: '2026-11-04T00:00:00+07:00', lastOld: '2026-11-03', firstNew: '2026-11-04T12:00:00+07:00' });
    const pending = await ledger.pending({ pipeline: 'etl_orders' });
    expect(pending.pending.map((p) => p.date)).toEqual(['2026-11-01', '2026-11-03', '2026-11-04T12:00:00+07:00']);
    const state = await ledger.state({ pipeline: 'etl_orders' });
    expect(state.dates.find((d) => d.date === '2026-11-02')).toMatchObject({ status: 'success' });
    expect(state.watermark).toBe('2026-11-02');
  });

  test('with depends-on-past, the first date under the new timetable waits for the last date under the old one', async () => {
    const { ledger } = await ledgerAt('2026-11-05T12:00:00Z');
    await ledger.define({ ...JAKARTA_DAILY, dependsOnPast: true });
    for (const date of ['2026-11-01', '2026-11-02']) await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl_orders', date })).runId });
    await ledger.fail({ runId: (await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' })).runId, error: 'source late' });
    await ledger.define({ ...JAKARTA_DAILY, dependsOnPast: true, schedule: '0 12 * * *', effective: '2026-11-04' });
    const first = '2026-11-04T12:00:00+07:00';
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending.map((p) => `${p.date} ${p.reason} ${p.previous ?? ''}`.trim())).toEqual([
      '2026-11-03 failed',
      `${first} waitingForPrevious 2026-11-03`,
    ]);
    const refused = await ledger.start({ pipeline: 'etl_orders', date: first }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'ledger.waitingForPrevious' });
    // Once the old timetable's last date succeeds, the new one's first may run.
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' })).runId });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl_orders', date: first })).runId });
    const state = await ledger.state({ pipeline: 'etl_orders' });
    expect(state.completeThrough).toBe(first);
  });
});
