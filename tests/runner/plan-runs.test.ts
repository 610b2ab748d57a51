// S9 and S10 as pure planning rules: which slots a backfill or a catchup runs, and why.
import { describe, expect, test } from 'vitest';
import type { DateState, DateStatus } from '../../projections/date-state.js';
import { latestScheduledRun, planBackfill, planCatchup, type Reprocess } from '../../projections/plan-runs.js';
import { initialState, type PipelineState } from '../../projections/pipeline-state.js';
import { initialRunHistory, type RunRecord } from '../../projections/run-history.js';
import type { Slot } from '../../projections/slot.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

/** Daily Jakarta slots from 2026-11-01; the slot of day d is due at the start of day d+1. */
function slot(day: number): Slot {
  const d = (n: number) => `2026-11-${String(n).padStart(2, '0')}`;
  const start = `${d(day)}T00:00:00+07:00`;
  const end = `${d(day + 1)}T00:00:00+07:00`;
  return { date: d(day), logicalDate: start, dataInterval: { start, end }, runAfter: end };
}
const days = (...list: number[]) => list.map(slot);

type Given = Partial<Record<number, DateStatus | 'stalled'>>;

/** A pipeline state where each given day has the status named (stalled = running with an expired lease). */
function stateWith(given: Given): PipelineState {
  const state = initialState('etl_orders');
  for (const [day, status] of Object.entries(given)) {
    const s = slot(Number(day));
    const lease = status === 'running' ? '2026-11-05T02:00:00+07:00' : '2026-11-04T00:00:00+07:00';
    const date: DateState = {
      date: s.date,
      status: status === 'stalled' ? 'running' : (status as DateStatus),
      runId: `run-${s.date}`,
      attempt: 1,
      attempts: 1,
      runType: 'scheduled',
      logicalDate: s.logicalDate,
      dataInterval: s.dataInterval,
      runAfter: s.runAfter,
      startedAt: s.runAfter,
      finishedAt: null,
      leaseExpiresAt: lease,
      metrics: null,
      outputs: [],
      error: null,
      offSchedule: false,
      forced: false,
      clearedAt: null,
      startPosition: 1,
      version: 1,
    };
    state.dates.set(s.date, date);
  }
  return state;
}

const mixed: Given = { 1: 'success', 2: 'failed', 3: 'cleared', 4: 'stalled' };

describe('planBackfill (S10)', () => {
  test.each<{ label: string; given: Given; reprocess: Reprocess; expected: string[] }>([
    { label: 'when nothing ran then every due slot runs as missing', given: {}, reprocess: 'none', expected: ['2026-11-01 missing', '2026-11-02 missing', '2026-11-03 missing', '2026-11-04 missing'] },
    { label: 'none runs missing, cleared and stalled slots only', given: mixed, reprocess: 'none', expected: ['2026-11-03 cleared', '2026-11-04 stalled'] },
    { label: 'failed adds the failed slot', given: mixed, reprocess: 'failed', expected: ['2026-11-02 failed', '2026-11-03 cleared', '2026-11-04 stalled'] },
    { label: 'completed adds the successful slot too', given: mixed, reprocess: 'completed', expected: ['2026-11-01 completed', '2026-11-02 failed', '2026-11-03 cleared', '2026-11-04 stalled'] },
    { label: 'a running slot with a live lease is never touched, even with completed', given: { 1: 'running', 2: 'running', 3: 'success', 4: 'success' }, reprocess: 'completed', expected: ['2026-11-03 completed', '2026-11-04 completed'] },
  ])('$label', ({ given, reprocess, expected }) => {
    const plan = planBackfill(stateWith(given), days(1, 2, 3, 4), { reprocess, nowMs: NOW });
    expect(plan.slots.map((s) => `${s.date} ${s.reason}`)).toEqual(expected);
  });

  test('when a slot is in flight then it is listed apart with its run', () => {
    const plan = planBackfill(stateWith({ 2: 'running' }), days(1, 2), { reprocess: 'completed', nowMs: NOW });
    expect(plan.inFlight).toEqual([{ date: '2026-11-02', runId: 'run-2026-11-02', leaseExpiresAt: '2026-11-05T02:00:00+07:00' }]);
  });

  test('when the mode leaves a slot alone then it is listed as excluded with its status', () => {
    const plan = planBackfill(stateWith(mixed), days(1, 2, 3), { reprocess: 'none', nowMs: NOW });
    expect(plan.excluded.map((e) => `${e.date} ${e.status}`)).toEqual(['2026-11-01 success', '2026-11-02 failed']);
  });

  test.each([
    { label: 'the slot of today is not due until tomorrow', nowMs: NOW, expected: ['2026-11-03', '2026-11-04'], notDue: '2026-11-05' },
    { label: 'one millisecond before midnight the slot of yesterday is not due yet', nowMs: Date.parse('2026-11-05T00:00:00+07:00') - 1, expected: ['2026-11-03'], notDue: '2026-11-04' },
    { label: 'at midnight exactly it is due', nowMs: Date.parse('2026-11-05T00:00:00+07:00'), expected: ['2026-11-03', '2026-11-04'], notDue: '2026-11-05' },
  ])('when $label then later slots are skipped', ({ nowMs, expected, notDue }) => {
    const plan = planBackfill(stateWith({}), days(3, 4, 5, 6), { reprocess: 'none', nowMs });
    expect(plan.slots.map((s) => s.date)).toEqual(expected);
    expect(plan.notDueFrom?.date).toBe(notDue);
  });

  test('when slots are endless then planning stops at the first slot not due', () => {
    function* forever(): Generator<Slot> {
      for (let day = 1; ; day++) yield slot(day);
    }
    expect(planBackfill(stateWith({}), forever(), { reprocess: 'none', nowMs: NOW }).slots).toHaveLength(4);
  });

  test('a planned slot keeps its data interval and runAfter', () => {
    const [first] = planBackfill(stateWith({}), days(2), { reprocess: 'none', nowMs: NOW }).slots;
    expect(first).toEqual({ ...slot(2), reason: 'missing' });
  });
});

describe('planCatchup (S9)', () => {
  test.each<{ label: string; given: Given; catchup: boolean; after: number | null; reprocess?: Reprocess; expected: string[] }>([
    { label: 'with no scheduled run, every pending due slot from the start', given: {}, catchup: true, after: null, expected: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'] },
    { label: 'only the slots after the latest scheduled run', given: { 2: 'success' }, catchup: true, after: 2, expected: ['2026-11-03', '2026-11-04'] },
    { label: 'gaps before the latest scheduled run are left to pending', given: { 3: 'success' }, catchup: true, after: 3, expected: ['2026-11-04'] },
    { label: 'pending means S7: a failed slot after the latest run is included', given: { 1: 'success', 3: 'failed' }, catchup: true, after: 1, expected: ['2026-11-02', '2026-11-03', '2026-11-04'] },
    { label: 'reprocess none leaves failed slots alone', given: { 1: 'success', 3: 'failed' }, catchup: true, after: 1, reprocess: 'none', expected: ['2026-11-02', '2026-11-04'] },
    { label: 'successful slots (say, from a backfill) after the latest run are not pending', given: { 3: 'success', 4: 'success' }, catchup: true, after: null, expected: ['2026-11-01', '2026-11-02'] },
    { label: 'with catchup off, only the latest due slot', given: {}, catchup: false, after: null, expected: ['2026-11-04'] },
    { label: 'with catchup off and the latest due slot done, nothing', given: { 4: 'success' }, catchup: false, after: null, expected: [] },
    { label: 'with catchup off and the latest due slot already scheduled, nothing', given: { 4: 'failed' }, catchup: false, after: 4, expected: [] },
    { label: 'with catchup off and a stalled latest slot, it is taken over', given: { 4: 'stalled' }, catchup: false, after: 3, expected: ['2026-11-04'] },
  ])('$label', ({ given, catchup, after, reprocess, expected }) => {
    const plan = planCatchup(stateWith(given), days(1, 2, 3, 4, 5, 6), {
      nowMs: NOW,
      catchup,
      after: after === null ? null : slot(after).logicalDate,
      ...(reprocess ? { reprocess } : {}),
    });
    expect(plan.slots.map((s) => s.date)).toEqual(expected);
    expect(plan.notDueFrom?.date).toBe('2026-11-05');
  });

  test('with catchup off and the latest due slot in flight, it is reported in flight', () => {
    const plan = planCatchup(stateWith({ 4: 'running' }), days(1, 2, 3, 4), { nowMs: NOW, catchup: false, after: null });
    expect(plan.slots).toEqual([]);
    expect(plan.inFlight.map((r) => r.date)).toEqual(['2026-11-04']);
  });
});

describe('latestScheduledRun', () => {
  function run(day: number, runType: RunRecord['runType']): RunRecord {
    const s = slot(day);
    return {
      runId: `r${day}${runType}`, date: s.date, attempt: 1, runType, status: 'success', logicalDate: s.logicalDate, dataInterval: s.dataInterval,
      startedAt: s.runAfter, finishedAt: null, leaseExpiresAt: s.runAfter, actor: 't', forced: false, offSchedule: false, metrics: null, error: null,
    };
  }
  test.each<{ label: string; runs: RunRecord[]; expected: string | null }>([
    { label: 'no runs: none', runs: [], expected: null },
    { label: 'backfill and manual runs do not count', runs: [run(4, 'backfill'), run(3, 'manual')], expected: null },
    { label: 'the greatest logical date of scheduled and catchup runs', runs: [run(3, 'catchup'), run(2, 'scheduled'), run(4, 'backfill')], expected: slot(3).logicalDate },
  ])('$label', ({ runs, expected }) => {
    const history = initialRunHistory();
    for (const r of runs) history.runs.set(r.runId, r);
    expect(latestScheduledRun(history)).toBe(expected);
  });
});
