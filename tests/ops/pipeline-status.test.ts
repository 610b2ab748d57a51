import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { evolve, initialState } from '../../projections/pipeline-state.js';
import { evolveRunHistory, initialRunHistory } from '../../projections/run-history.js';
import { checkStatus, hasRules } from '../../projections/views/check-status.js';
import { formatLag } from '../../projections/views/format-lag.js';
import { compareWorstFirst, pipelineStatus, sortWorstFirst, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { compareNames } from '../../projections/views/compare-names.js';
import fc from 'fast-check';
import { slotsFrom } from '../../src/ledger/ledger.js';
import { createTimetableHistory } from '../../src/timetable/timetable-history.js';
import { recordAll } from '../support/event-factory.js';

const P = 'etl_orders';
const definition: PipelineDefinition = {
  pipeline: P,
  schedule: '@daily',
  timetable: 'interval',
  timezone: 'Asia/Jakarta',
  start: '2026-11-02T00:00:00+07:00',
  end: null,
  catchup: true,
  maxActiveRuns: 1,
  leaseMs: 3_600_000,
};
const day = (date: string) => ({ start: `${date}T00:00:00+07:00`, end: `${nextDay(date)}T00:00:00+07:00` });
function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
const started = (date: string, runId: string, lease = '2026-11-07T00:30:00.000Z'): LedgerEvent & { recordedAt: string } => ({
  type: 'RunStarted',
  schemaVersion: 1,
  recordedAt: '2026-11-06T18:00:00.000Z',
  data: { pipeline: P, date, runId, attempt: 1, runType: 'backfill', logicalDate: day(date).start, dataInterval: day(date), runAfter: day(date).end, leaseExpiresAt: lease, force: false, offSchedule: false, takeoverOf: null },
});
const succeeded = (date: string, runId: string): LedgerEvent => ({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: P, date, runId, metrics: {}, outputs: [] } });
const failed = (date: string, runId: string, error: string, at: string): LedgerEvent & { recordedAt: string } => ({
  type: 'RunFailed',
  schemaVersion: 1,
  recordedAt: at,
  data: { pipeline: P, date, runId, error, code: null },
});
const cleared = (date: string, runId: string): LedgerEvent => ({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: P, date, runId, previousStatus: 'success' } });

function statusOf(events: Array<LedgerEvent & { recordedAt?: string }>, now: string, over: Partial<PipelineDefinition> = {}): PipelineStatus {
  const recorded = recordAll([{ type: 'PipelineDefined', schemaVersion: 1, data: { ...definition, ...over } }, ...events]);
  const state = recorded.reduce(evolve, initialState(P));
  const history = recorded.reduce(evolveRunHistory, initialRunHistory());
  const timetable = createTimetableHistory({ ...definition, ...over });
  return pipelineStatus({ state, history, slots: slotsFrom(timetable), nowMs: Date.parse(now) });
}

/** The demo's story at its later clock: 11-02..04 done, 11-05 failed, 11-06 done. */
const demo = [
  started('2026-11-02', 'A'), succeeded('2026-11-02', 'A'),
  started('2026-11-03', 'B'), succeeded('2026-11-03', 'B'),
  started('2026-11-04', 'C'), succeeded('2026-11-04', 'C'),
  started('2026-11-05', 'D'), failed('2026-11-05', 'D', 'raw file missing: orders-2026-11-05.csv\n  at etl.mjs:12', '2026-11-06T18:00:01.000Z'),
  started('2026-11-06', 'E'), succeeded('2026-11-06', 'E'),
];

describe('pipelineStatus', () => {
  test('on the demo ledger two days later, etl_orders is two days (and an hour) behind, with one failed date', () => {
    const status = statusOf(demo, '2026-11-07T01:00:00+07:00');
    expect(status).toMatchObject({
      pipeline: P,
      schedule: '@daily',
      watermark: '2026-11-06',
      completeThrough: '2026-11-04',
      completeUntil: '2026-11-05T00:00:00+07:00',
      lagSeconds: (2 * 24 + 1) * 3600,
      lag: '2d 1h',
      behind: 2,
      pending: { total: 1, missing: 0, failed: 1, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 0, waitingForPrevious: 0, upstream: 0 },
      inFlight: [],
      stalled: [],
      lastFailure: { date: '2026-11-05', runId: 'D', at: '2026-11-06T18:00:01.000Z', error: 'raw file missing: orders-2026-11-05.csv' },
      freshnessSeconds: null,
    });
  });

  test('when every due date succeeded, the lag is the time since the last interval ended', () => {
    const status = statusOf(demo.slice(0, 6), '2026-11-05T01:00:00+07:00');
    expect(status.completeThrough).toBe('2026-11-04');
    expect(status.lagSeconds).toBe(3600);
    expect(status.lag).toBe('1h');
    expect(status.behind).toBe(0);
    expect(status.pending.total).toBe(0);
    expect(status.lastFailure).toBeNull();
  });

  test('when nothing succeeded yet, the lag runs from the first slot start and every due date is missing', () => {
    const status = statusOf([], '2026-11-05T01:00:00+07:00');
    expect(status.completeThrough).toBeNull();
    expect(status.completeUntil).toBeNull();
    expect(status.lagSeconds).toBe((Date.parse('2026-11-05T01:00:00+07:00') - Date.parse('2026-11-02T00:00:00+07:00')) / 1000);
    expect(status.pending).toEqual({ total: 3, missing: 3, failed: 0, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 0, waitingForPrevious: 0, upstream: 0 });
    expect(status.behind).toBe(3);
  });

  test('before the first slot is due there is no lag', () => {
    const status = statusOf([], '2026-11-02T12:00:00+07:00');
    expect(status.lagSeconds).toBeNull();
    expect(status.lag).toBe('-');
    expect(status.pending.total).toBe(0);
  });

  test('a running date with a live lease is in flight; one whose lease expired is stalled and pending', () => {
    const events = [
      started('2026-11-02', 'A'), succeeded('2026-11-02', 'A'),
      started('2026-11-03', 'B', '2026-11-04T18:00:00.000Z'),
      started('2026-11-04', 'C', '2026-11-05T00:00:00.000Z'),
    ];
    const status = statusOf(events, '2026-11-05T01:00:00+07:00'); // 2026-11-04T18:00Z
    expect(status.stalled.map((r) => r.runId)).toEqual(['B']);
    expect(status.inFlight.map((r) => r.runId)).toEqual(['C']);
    expect(status.pending).toEqual({ total: 1, missing: 0, failed: 0, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 1, waitingForPrevious: 0, upstream: 0 });
  });

  test('a clear lowers complete-through and counts as pending; the watermark stays', () => {
    const status = statusOf([...demo.slice(0, 6), cleared('2026-11-03', 'B')], '2026-11-05T01:00:00+07:00');
    expect(status.watermark).toBe('2026-11-04');
    expect(status.completeThrough).toBe('2026-11-02');
    expect(status.pending).toEqual({ total: 1, missing: 0, failed: 0, up_for_retry: 0, interrupted: 0, cleared: 1, stalled: 0, waitingForPrevious: 0, upstream: 0 });
    expect(status.behind).toBe(2);
  });

  test('the freshness the pipeline was defined with is carried', () => {
    expect(statusOf([], '2026-11-05T01:00:00+07:00', { freshnessMs: 86_400_000 }).freshnessSeconds).toBe(86_400);
  });
});

describe('compareWorstFirst', () => {
  const row = (pipeline: string, over: Partial<PipelineStatus>): PipelineStatus => ({
    ...statusOf(demo.slice(0, 6), '2026-11-05T01:00:00+07:00'),
    pipeline,
    ...over,
  });
  test('failed or stalled first, then the largest lag, then the most pending, then by name', () => {
    const rows = [
      row('fresh', { lagSeconds: 60 }),
      row('late', { lagSeconds: 86_400 * 3 }),
      row('broken', { lagSeconds: 1, pending: { total: 1, missing: 0, failed: 1, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 0, waitingForPrevious: 0, upstream: 0 } }),
      row('not-due', { lagSeconds: null }),
      row('a-fresh', { lagSeconds: 60 }),
    ];
    expect(rows.sort(compareWorstFirst).map((r) => r.pipeline)).toEqual(['broken', 'late', 'a-fresh', 'fresh', 'not-due']);
  });
});

describe('formatLag', () => {
  test.each([
    { label: 'nothing', ms: 0, words: '0s' },
    { label: 'seconds', ms: 45_000, words: '45s' },
    { label: 'minutes and seconds', ms: 125_000, words: '2m 5s' },
    { label: 'two largest units only', ms: 90_061_000, words: '1d 1h' },
    { label: 'a zero second unit is left out', ms: 2 * 86_400_000 + 5 * 60_000, words: '2d' },
  ])('$label', ({ ms, words }) => expect(formatLag(ms)).toBe(words));
});

describe('checkStatus', () => {
  const later = () => statusOf(demo, '2026-11-07T01:00:00+07:00');
  test.each([
    { label: 'a lag over --max-lag breaks the lag rule', rules: { maxLagSeconds: 86_400 }, over: {}, broken: ['lag'] },
    { label: 'a lag under --max-lag holds', rules: { maxLagSeconds: 3 * 86_400 }, over: {}, broken: [] },
    { label: "without --max-lag the pipeline's freshness is the limit", rules: {}, over: { freshnessMs: 86_400_000 }, broken: ['lag'] },
    { label: '--max-lag overrides the freshness', rules: { maxLagSeconds: 3 * 86_400 }, over: { freshnessMs: 86_400_000 }, broken: [] },
    { label: 'no rule and no freshness: nothing to break', rules: {}, over: {}, broken: [] },
    { label: 'one failed date is over --max-pending 0 and breaks --no-failed', rules: { maxPending: 0, noFailed: true }, over: {}, broken: ['pending', 'failed'] },
    { label: '--max-pending 1 allows the one failed date', rules: { maxPending: 1 }, over: {}, broken: [] },
    { label: '--no-stalled holds with no stalled run', rules: { noStalled: true }, over: {}, broken: [] },
  ])('$label', ({ rules, over, broken }) => {
    const status = statusOf(demo, '2026-11-07T01:00:00+07:00', over);
    expect(checkStatus(status, rules).map((v) => v.rule)).toEqual(broken);
  });

  test('a stalled run breaks --no-stalled, naming its date', () => {
    const status = statusOf([started('2026-11-02', 'A', '2026-11-02T20:00:00.000Z')], '2026-11-04T01:00:00+07:00');
    const [violation] = checkStatus(status, { noStalled: true });
    expect(violation?.message).toBe('etl_orders: 1 run stalled (2026-11-02, lease expired 2026-11-02T20:00:00.000Z)');
  });

  test('the lag line says the lag, the limit and how far behind', () => {
    expect(checkStatus(later(), { maxLagSeconds: 86_400 })[0]).toEqual({
      pipeline: P,
      rule: 'lag',
      actual: 176_400,
      limit: 86_400,
      message: 'etl_orders: lag 2d 1h is over 1d (complete through 2026-11-04, 2 dates behind)',
    });
  });

  test('hasRules: a pipeline with a freshness has a rule even without options', () => {
    expect(hasRules(later(), {})).toBe(false);
    expect(hasRules(statusOf(demo, '2026-11-07T01:00:00+07:00', { freshnessMs: 1000 }), {})).toBe(true);
    expect(hasRules(later(), { noFailed: true })).toBe(true);
  });
});

describe('sortWorstFirst', () => {
  // Rows with only what the order reads; names with `_`, `-`, `.` and digits, whose byte order is not the name order;
  // lags that tie, lags a millisecond apart and -0 (rows by name are sorted by packed numeric keys).
  const row = (pipeline: string, failed: number, stalled: number, lagSeconds: number | null, total: number) =>
    ({ pipeline, lagSeconds, pending: { failed, total }, stalled: Array.from({ length: stalled }, () => ({})) }) as unknown as PipelineStatus;
  const arbRows = fc
    .uniqueArray(fc.stringMatching(/^[a-z0-9_.-]{1,4}$/), { minLength: 0, maxLength: 40 })
    .chain((names) =>
      fc.tuple(...names.map((name) => fc.tuple(fc.constant(name), fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 1 }), fc.option(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(-0, 0.5, 1.25, 86_400_000.001, 86_400_000.002))), fc.integer({ min: 0, max: 3 })))),
    )
    .map((tuples) => tuples.map(([name, failed, stalled, lag, total]) => row(name, failed, stalled, lag, total)));

  test('gives the order compareWorstFirst gives, whether or not the rows come by name', () => {
    fc.assert(
      fc.property(arbRows, fc.boolean(), (rows, byName) => {
        const input = byName ? [...rows].sort((a, b) => compareNames(a.pipeline, b.pipeline)) : rows;
        const expected = [...input].sort(compareWorstFirst).map((r) => r.pipeline);
        expect(sortWorstFirst([...input]).map((r) => r.pipeline)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  test('gives the same order when told the rows come by name (a listing of every pipeline)', () => {
    fc.assert(
      fc.property(arbRows, (rows) => {
        const input = [...rows].sort((a, b) => compareNames(a.pipeline, b.pipeline));
        const expected = [...input].sort(compareWorstFirst).map((r) => r.pipeline);
        expect(sortWorstFirst([...input], true).map((r) => r.pipeline)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
