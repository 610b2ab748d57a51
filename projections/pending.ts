import { leaseExpired, type ClearedBecause, type RetryProgress } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';
import type { DataInterval } from './slot.js';
import type { BlockedBy } from './upstream-slots.js';

/**
 * Why a due slot is not done. `up_for_retry`: its last attempt failed and another is scheduled;
 * `waitingForPrevious`: the pipeline depends on past and the slot before it is not done yet (it has not run);
 * `upstream`: not run (missing, cleared, interrupted or waiting for previous) and waiting for an upstream slot that is not done.
 */
export type PendingReason = 'missing' | 'failed' | 'up_for_retry' | 'interrupted' | 'cleared' | 'stalled' | 'waitingForPrevious' | 'upstream';

/** Every pending reason, in the order counts list them. */
export const PENDING_REASONS: readonly PendingReason[] = ['missing', 'failed', 'up_for_retry', 'interrupted', 'cleared', 'stalled', 'waitingForPrevious', 'upstream'];

/** How a reason reads to a person: `waitingForPrevious` is "waiting for previous", `up_for_retry` "up for retry". */
export function reasonWords(reason: PendingReason): string {
  return reason === 'waitingForPrevious' ? 'waiting for previous' : reason === 'up_for_retry' ? 'up for retry' : reason;
}

/**
 * `error`: the failure's message, on a `failed` or `up_for_retry` slot, so a list of what to re-run says why each failed.
 * `retry`: on an `up_for_retry` slot, the attempt it waits for and when. `previous`: on a `waitingForPrevious` slot, the slot it waits for.
 * `blockedBy`: the first upstream slot it waits for that is not done (on `upstream` slots, and on failed
 * or up-for-retry ones, which keep their reason); `cause`: the upstream clear a cascade cleared it for.
 */
export type PendingSlot = {
  date: string;
  reason: PendingReason;
  logicalDate: string;
  runAfter: string;
  dataInterval: DataInterval;
  error?: string;
  retry?: RetryProgress;
  previous?: string;
  blockedBy?: BlockedBy;
  cause?: ClearedBecause;
};
export type InFlightSlot = { date: string; runId: string; leaseExpiresAt: string };
export type PendingReport = { pending: PendingSlot[]; inFlight: InFlightSlot[] };

/**
 * The pending rule for one slot, given as its fields: adds it to `report` when its key is
 * not `success` and not `running`, with its reason. A running key is listed
 * apart as in-flight, unless its lease expired at `nowMs`: then it is
 * `stalled` and counts as pending. Walks call it slot by slot and build no
 * `Slot` objects; without `interval`, the data interval is the slot's own,
 * from `logicalDate` to `runAfter`.
 *
 * @example
 * addPendingSlot(report, state, now, '2026-11-02', logicalDate, runAfter)
 */
export function addPendingSlot(
  report: PendingReport,
  state: PipelineState,
  nowMs: number,
  slotDate: string,
  logicalDate: string,
  runAfter: string,
  interval?: DataInterval,
  previous?: { date: string; done: boolean },
): void {
  // A pipeline that has never run has nothing to look up (and hashing each new key costs a long walk).
  const date = state.dates.size === 0 ? undefined : state.dates.get(slotDate);
  if (date !== undefined && (date.status === 'success' || date.status === 'skipped')) return;
  const dataInterval = interval ?? { start: logicalDate, end: runAfter };
  // Depends on past: a slot that would run afresh waits for the one before it; one that ran keeps its own reason.
  if (previous && !previous.done && (date === undefined || date.status === 'cleared')) {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: 'waitingForPrevious', previous: previous.date });
  } else if (date === undefined) {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: 'missing' });
  } else if (date.status === 'running') {
    if (leaseExpired(date, nowMs)) report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: 'stalled' });
    else report.inFlight.push({ date: slotDate, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt });
  } else if (date.status === 'failed') {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: date.status, ...(date.error ? { error: date.error.message } : {}) });
  } else if (date.status === 'up_for_retry') {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: date.status, ...(date.error ? { error: date.error.message } : {}), ...(date.retry ? { retry: date.retry } : {}) });
  } else if (date.status === 'interrupted' || date.status === 'cleared') {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: date.status });
  }
}

/**
 * Marks the pending slots that wait for an upstream slot that is not done: `blockedBy` names the first
 * one, and a slot that has not run since (missing, cleared, interrupted) takes the reason `upstream`.
 * A failed or up-for-retry slot keeps its reason (a failure is worth its own alert) and a stalled one is a run, not a wait.
 * A cleared slot whose clear cascaded from upstream keeps that `cause`.
 *
 * @example
 * markBlocked(report.pending, state, (slot) => firstBlocking(slot.dataInterval, upstreams)) // null: no upstreams
 */
export function markBlocked(pending: PendingSlot[], state: PipelineState, blocked: ((slot: PendingSlot) => BlockedBy | null) | null): void {
  // Without upstreams only a cleared slot can change (its cause): ten years of hours are looked at, not copied.
  for (let index = 0; index < pending.length; index++) {
    const slot = pending[index] as PendingSlot;
    if (blocked === null && slot.reason !== 'cleared') continue;
    const cause = slot.reason === 'cleared' ? state.dates.get(slot.date)?.clearCause : undefined;
    const by = slot.reason === 'stalled' || blocked === null ? null : blocked(slot);
    if (by === null && cause === undefined) continue;
    const reason = by !== null && slot.reason !== 'failed' && slot.reason !== 'up_for_retry' ? 'upstream' : slot.reason;
    pending[index] = { ...slot, reason, ...(by === null ? {} : { blockedBy: by }), ...(cause === undefined ? {} : { cause }) };
  }
}
