import { leaseExpired, type ClearedBecause } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';
import type { DataInterval } from './slot.js';
import type { BlockedBy } from './upstream-slots.js';

/** `upstream`: not run (missing, cleared or interrupted) and waiting for an upstream slot that is not done. */
export type PendingReason = 'missing' | 'failed' | 'interrupted' | 'cleared' | 'stalled' | 'upstream';

/**
 * `error`: the failure's message, on a `failed` slot only, so a list of what to re-run says why each failed.
 * `blockedBy`: the first upstream slot it waits for that is not done (on `upstream` slots, and on failed
 * ones, which keep their reason); `cause`: the upstream clear a cascade cleared it for.
 */
export type PendingSlot = {
  date: string;
  reason: PendingReason;
  logicalDate: string;
  runAfter: string;
  dataInterval: DataInterval;
  error?: string;
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
export function addPendingSlot(report: PendingReport, state: PipelineState, nowMs: number, slotDate: string, logicalDate: string, runAfter: string, interval?: DataInterval): void {
  // A pipeline that has never run has nothing to look up (and hashing each new key costs a long walk).
  const date = state.dates.size === 0 ? undefined : state.dates.get(slotDate);
  if (date !== undefined && date.status === 'success') return;
  const dataInterval = interval ?? { start: logicalDate, end: runAfter };
  if (date === undefined) {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: 'missing' });
  } else if (date.status === 'running') {
    if (leaseExpired(date, nowMs)) report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: 'stalled' });
    else report.inFlight.push({ date: slotDate, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt });
  } else if (date.status === 'failed') {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: date.status, ...(date.error ? { error: date.error.message } : {}) });
  } else if (date.status !== 'success') {
    report.pending.push({ date: slotDate, logicalDate, runAfter, dataInterval, reason: date.status });
  }
}

/**
 * Marks the pending slots that wait for an upstream slot that is not done: `blockedBy` names the first
 * one, and a slot that has not run since (missing, cleared, interrupted) takes the reason `upstream`.
 * A failed slot keeps `failed` (a failure is worth its own alert) and a stalled one is a run, not a wait.
 * A cleared slot whose clear cascaded from upstream keeps that `cause`.
 *
 * @example
 * markBlocked(report.pending, state, (slot) => firstBlocking(slot.dataInterval, upstreams))
 */
export function markBlocked(pending: PendingSlot[], state: PipelineState, blocked: (slot: PendingSlot) => BlockedBy | null): void {
  for (const [index, slot] of pending.entries()) {
    const cause = slot.reason === 'cleared' ? state.dates.get(slot.date)?.clearCause : undefined;
    const by = slot.reason === 'stalled' ? null : blocked(slot);
    if (by === null && cause === undefined) continue;
    const reason = by !== null && slot.reason !== 'failed' ? 'upstream' : slot.reason;
    pending[index] = { ...slot, reason, ...(by === null ? {} : { blockedBy: by }), ...(cause === undefined ? {} : { cause }) };
  }
}
