import type { DateState } from './date-state.js';

/** A retry nobody started: the date waits for its next attempt, and that attempt's time plus the pipeline's lease has passed. */
export type OverdueRetry = { date: string; runId: string; attempt: number; of: number; nextAt: string; overdueSince: string };

/**
 * The date's retry when it is overdue at `nowMs`, else null. A runner that waits for a retry starts it at
 * `nextAt`; one lease later with the date still `up_for_retry`, no runner is waiting for it (it was killed,
 * or never ran again), the same rule that makes a running date stalled once its lease runs out.
 *
 * @example
 * overdueRetry(state.dates.get('2026-11-03'), 3_600_000, nowMs) // { date: '2026-11-03', nextAt: '…', overdueSince: '…', … }
 */
export function overdueRetry(date: DateState | undefined, leaseMs: number, nowMs: number): OverdueRetry | null {
  if (date?.status !== 'up_for_retry' || !date.retry?.nextAt) return null;
  const since = retryOverdueSince(date.retry.nextAt, leaseMs, nowMs);
  if (since === null) return null;
  return { date: date.date, runId: date.runId, attempt: date.retry.attempt, of: date.retry.of, nextAt: date.retry.nextAt, overdueSince: since };
}

/**
 * When a retry due at `nextAt` became overdue (its time plus the lease, before `nowMs`), else null.
 *
 * @example
 * retryOverdueSince('2026-11-05T00:00:00.000Z', 3_600_000, Date.parse('2026-11-05T02:00:00Z')) // '2026-11-05T01:00:00.000Z'
 */
export function retryOverdueSince(nextAt: string, leaseMs: number, nowMs: number): string | null {
  const since = Date.parse(nextAt) + leaseMs;
  return since < nowMs ? new Date(since).toISOString() : null;
}
