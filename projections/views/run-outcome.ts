import type { RunRecord } from '../run-history.js';

/** How a finished run ended, for counters that must never go down. */
export type RunOutcome = 'success' | 'failed' | 'interrupted' | 'abandoned' | 'cleared';

/**
 * How a run ended, or null while it runs. A later clear does not change it: a
 * run that succeeded and was then cleared still counts as a success (the
 * clear is about the date, not the run), so counters built on it only grow.
 * A run cleared while it was running ended `cleared`.
 *
 * @example
 * runOutcome(run) // 'failed'
 */
export function runOutcome(run: RunRecord): RunOutcome | null {
  switch (run.status) {
    case 'running':
      return null;
    case 'success':
    case 'failed':
    case 'interrupted':
    case 'abandoned':
      return run.status;
    case 'cleared':
      // The history keeps a cleared run's metrics (a success) or error (a failure, or 'lease expired' for an abandoned one).
      if (run.error !== null) {
        if (run.metrics === null && run.error === ABANDONED_ERROR) return 'abandoned';
        return run.metrics === null && run.error.startsWith(INTERRUPTED_PREFIX) ? 'interrupted' : 'failed';
      }
      return run.metrics !== null ? 'success' : 'cleared';
    default: {
      const unknown: never = run.status;
      throw new Error(`runOutcome: unhandled run status ${JSON.stringify(unknown)}`);
    }
  }
}

/** The error projections/run-history.ts records for an abandoned run. */
const ABANDONED_ERROR = 'lease expired';

/** How projections/run-history.ts begins the error of an interrupted run. */
const INTERRUPTED_PREFIX = 'interrupted by ';
