import type { RunOutput, RunType } from '../events/common.js';
import type { DataInterval } from './slot.js';

/**
 * The status of a date key's latest generation. A key with no event is
 * `missing`. `interrupted`: its runner was stopped before the run finished;
 * pending, and resumed by every reprocess mode (it is not a failure).
 */
export type DateStatus = 'running' | 'success' | 'failed' | 'interrupted' | 'cleared';

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
  /** Global position of the current run's `RunStarted`: orders live runs the same way for every runner. */
  startPosition: number;
  /** Version of the key's stream, for optimistic concurrency. */
  version: number;
};

/** True when `runId` is the run that may still complete this key (fencing). */
export function isCurrentRun(date: DateState | undefined, runId: string): boolean {
  return date !== undefined && date.status !== 'cleared' && date.runId === runId;
}

/** True when a running key's lease has run out at `nowMs`. */
export function leaseExpired(date: DateState, nowMs: number): boolean {
  return date.status === 'running' && Date.parse(date.leaseExpiresAt) <= nowMs;
}
