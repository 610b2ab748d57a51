import type { RunOutput, RunType } from '../events/types/common.js';
import type { DataInterval } from './slot.js';

/**
 * The status of a date key's latest generation. A key with no event is
 * `missing`. `interrupted`: its runner was stopped before the run finished;
 * pending, and resumed by every reprocess mode (it is not a failure).
 * `skipped`: marked by hand as having nothing to do (`runledger mark --skipped`); done, like a success,
 * for complete-through and pending, but never the watermark. `up_for_retry`: its last attempt failed and
 * another is scheduled (`define --retries`); not failed yet, still pending.
 */
export type DateStatus = 'running' | 'success' | 'skipped' | 'failed' | 'up_for_retry' | 'interrupted' | 'cleared';

/**
 * True when a date needs nothing more: it succeeded, or it was marked skipped.
 *
 * @example
 * isDone('skipped') // true
 */
export function isDone(status: DateStatus | undefined): boolean {
  return status === 'success' || status === 'skipped';
}

/** A date set by hand (`runledger mark`): to what, by whom, why and when. No command ran for it. */
export type ManualMark = { status: 'success' | 'skipped'; actor: string; reason: string; at: string };

/**
 * Where a date stands in its retry policy: the attempt (1-based within the policy, not the key's lifetime
 * count) out of `of`; `nextAt` while it waits for that attempt (`up_for_retry`), else null.
 */
export type RetryProgress = { attempt: number; of: number; nextAt: string | null };

/**
 * Why a key was cleared when the clear was not asked for directly: the upstream clear it cascaded from
 * (`clear a <date> --downstream`), with who made it and why (one append, so one actor and one reason).
 */
export type ClearedBecause = { eventId: string; pipeline: string; date: string; actor: string; reason: string | null };

/** The current state of one date key (the `dates[]` rows of `state --json`). */
export type DateState = {
  date: string;
  status: DateStatus;
  /** The latest run of the key (for a cleared key: the run that was cleared). */
  runId: string;
  attempt: number;
  /** How many runs the key has had in all. */
  attempts: number;
  runType: RunType;
  logicalDate: string;
  dataInterval: DataInterval;
  runAfter: string;
  /** When the run started: the producer's own time (`at`, OpenLineage `eventTime`) when it sent one, else when it was recorded. */
  startedAt: string;
  /** When the run ended, by the same rule as `startedAt`. */
  finishedAt: string | null;
  leaseExpiresAt: string;
  metrics: Record<string, unknown> | null;
  /** The datasets the run wrote: `{ namespace, name }` (OpenLineage), or a plain text (`succeed --output`, older events). */
  outputs: RunOutput[];
  error: { message: string; code: string | null } | null;
  offSchedule: boolean;
  forced: boolean;
  clearedAt: string | null;
  /**
   * On a key cleared by a cascade from upstream: the clear it came from. Absent otherwise, so states
   * folded before cascades existed compare equal; a new run's start drops it.
   */
  clearCause?: ClearedBecause;
  /** Global position of the current run's `RunStarted`: orders live runs the same way for every runner. */
  startPosition: number;
  /** Version of the key's stream, for optimistic concurrency. */
  version: number;
  /** Present when the current generation is a mark (`runledger mark`), not a run. */
  mark?: ManualMark;
  /** Present while the key is under a retry policy: waiting for its next attempt, or on an attempt after the first. */
  retry?: RetryProgress;
};

/** True when `runId` is the run that may still complete this key (fencing). */
export function isCurrentRun(date: DateState | undefined, runId: string): boolean {
  return date !== undefined && date.status !== 'cleared' && date.runId === runId;
}

/** True when a running key's lease has run out at `nowMs`. */
export function leaseExpired(date: Pick<DateState, 'status' | 'leaseExpiresAt'>, nowMs: number): boolean {
  return date.status === 'running' && Date.parse(date.leaseExpiresAt) <= nowMs;
}
