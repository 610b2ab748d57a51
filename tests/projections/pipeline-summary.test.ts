import { describe, expect, test } from 'vitest';
import type { DateState } from '../../projections/date-state.js';
import { countSlots, emptySummary, summaryFolder, type SlotKindOf } from '../../projections/pipeline-summary.js';
import type { RunRecord } from '../../projections/run-history.js';

// The summary row is a fold: given the summary as stored and what the pure folds changed (each date's and run's
// state before and after), it gives the next summary, and leaves the one it was handed as it was.

const STATE = { definition: null, definedAt: null, version: 3, watermark: null, position: 12, paused: null, retired: null };

function date(key: string, status: DateState['status'], extra: Partial<DateState> = {}): DateState {
  return {
    date: key, status, runId: `run-${key}`, attempt: 1, attempts: 1, runType: 'scheduled', logicalDate: `${key}T00:00:00.000Z`,
    dataInterval: { start: `${key}T00:00:00.000Z`, end: `${key}T23:59:59.000Z` }, runAfter: `${key}T23:59:59.000Z`,
    startedAt: `${key}T01:00:00.000Z`, finishedAt: status === 'running' ? null : `${key}T01:30:00.000Z`, leaseExpiresAt: `${key}T02:00:00.000Z`,
    metrics: null, outputs: [], error: null, offSchedule: false, forced: false, clearedAt: null, startPosition: 1, version: 1, ...extra,
  } as DateState;
}

function run(key: string, status: RunRecord['status'], extra: Partial<RunRecord> = {}): RunRecord {
  const d = date(key, status === 'success' ? 'success' : status === 'failed' ? 'failed' : 'running');
  return {
    runId: d.runId, date: key, attempt: 1, runType: 'scheduled', status, logicalDate: d.logicalDate, dataInterval: d.dataInterval,
    startedAt: d.startedAt, finishedAt: d.finishedAt, leaseExpiresAt: d.leaseExpiresAt, actor: 'ci', forced: false, offSchedule: false,
    metrics: null, error: null, ...extra,
  } as RunRecord;
}

describe('the summary fold', () => {
  test('when a running date succeeds then it is counted as a success, leaves the running list, and is the last success', () => {
    const running = date('2026-01-02', 'running');
    const before = { ...emptySummary('etl'), counts: { running: 1 }, running: [{ date: '2026-01-02', runId: 'run-2026-01-02', leaseExpiresAt: running.leaseExpiresAt, logicalDate: running.logicalDate }] };
    const frozen = structuredClone(before);
    const folder = summaryFolder(before);
    const succeeded = date('2026-01-02', 'success');
    const runBefore = run('2026-01-02', 'running');
    const runAfter = run('2026-01-02', 'success');
    folder.add({ type: 'RunSucceeded' }, { before: running, after: succeeded }, { before: runBefore, after: runAfter, seq: 7 });
    const { summary, lostDone, nowDone } = folder.finish(STATE, [[running, succeeded]], [[runBefore, runAfter]], null);

    expect(summary.counts).toEqual({ running: 0, success: 1 });
    expect(summary.running).toEqual([]);
    expect(summary.lastSuccess).toEqual({ date: '2026-01-02', runId: 'run-2026-01-02', at: '2026-01-02T01:30:00.000Z', seq: 7 });
    expect(summary.runTally.success?.runs).toBe(1);
    expect(summary.position).toBe(12);
    expect([lostDone, nowDone]).toEqual([false, true]);
    expect(before).toEqual(frozen);
  });

  test('when a success is cleared then complete-through must be walked again, and the last success stays', () => {
    const done = date('2026-01-02', 'success');
    const lastSuccess = { date: '2026-01-02', runId: 'run-2026-01-02', at: '2026-01-02T01:30:00.000Z', seq: 7 };
    const folder = summaryFolder({ ...emptySummary('etl'), counts: { success: 1 }, lastSuccess });
    const cleared = date('2026-01-02', 'cleared', { clearedAt: '2026-01-03T00:00:00.000Z' });
    folder.add({ type: 'RunCleared' }, { before: done, after: cleared }, null);
    const { summary, lostDone } = folder.finish(STATE, [[done, cleared]], [], null);
    expect(summary.counts).toEqual({ success: 0, cleared: 1 });
    expect(summary.lastSuccess).toBe(lastSuccess);
    expect(lostDone).toBe(true);
  });

  test.each([
    { label: 'a key that is its slot', kind: 'slot' as const, slotCounts: { failed: 1 }, misaligned: 0 },
    { label: 'a key that names a slot at another instant', kind: 'misaligned' as const, slotCounts: {}, misaligned: 1 },
    { label: 'a key that names no slot', kind: 'none' as const, slotCounts: {}, misaligned: 0 },
  ])('when $label fails then the slot counts say so', ({ kind, slotCounts, misaligned }) => {
    const kindOf: SlotKindOf = () => kind;
    const failed = date('2026-01-02', 'failed', { error: { message: 'boom', code: null } });
    const folder = summaryFolder(emptySummary('etl'));
    folder.add({ type: 'RunFailed' }, { before: undefined, after: failed }, null);
    const { summary } = folder.finish(STATE, [[undefined, failed]], [], kindOf);
    expect(summary.slotCounts).toEqual(slotCounts);
    expect(summary.misaligned).toBe(misaligned);
    expect(countSlots(kindOf, [failed])).toEqual({ slotCounts, misaligned });
    expect(summary.latestMs).toBe(Date.parse(failed.logicalDate));
  });
});
