import { leaseExpired } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';
import type { DataInterval, Slot } from './slot.js';

export type PendingReason = 'missing' | 'failed' | 'interrupted' | 'cleared' | 'stalled';

/** `error`: the failure's message, on a `failed` slot only, so a list of what to re-run says why each failed. */
export type PendingSlot = { date: string; reason: PendingReason; logicalDate: string; runAfter: string; dataInterval: DataInterval; error?: string };
export type InFlightSlot = { date: string; runId: string; leaseExpiresAt: string };
export type PendingReport = { pending: PendingSlot[]; inFlight: InFlightSlot[] };

/**
 * S7: the given slots whose key is not `success` and not `running`, each with
 * its reason. Running keys are listed apart as in-flight, except those whose
 * lease expired at `nowMs`: those are `stalled` and count as pending.
 *
 * @example
 * pending(state, timetable.slotsBetween(from, to), now).pending.map((p) => p.date)
 */
export function pending(state: PipelineState, slots: Iterable<Slot>, nowMs: number): PendingReport {
  const report: PendingReport = { pending: [], inFlight: [] };
  for (const slot of slots) {
    const date = state.dates.get(slot.date);
    if (date === undefined) {
      report.pending.push({ date: slot.date, logicalDate: slot.logicalDate, runAfter: slot.runAfter, dataInterval: slot.dataInterval, reason: 'missing' });
    } else if (date.status === 'running') {
      if (leaseExpired(date, nowMs)) report.pending.push({ date: slot.date, logicalDate: slot.logicalDate, runAfter: slot.runAfter, dataInterval: slot.dataInterval, reason: 'stalled' });
      else report.inFlight.push({ date: slot.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt });
    } else if (date.status === 'failed') {
      report.pending.push({ date: slot.date, logicalDate: slot.logicalDate, runAfter: slot.runAfter, dataInterval: slot.dataInterval, reason: date.status, ...(date.error ? { error: date.error.message } : {}) });
    } else if (date.status !== 'success') {
      report.pending.push({ date: slot.date, logicalDate: slot.logicalDate, runAfter: slot.runAfter, dataInterval: slot.dataInterval, reason: date.status });
    }
  }
  return report;
}
