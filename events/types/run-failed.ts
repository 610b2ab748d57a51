import type { RunLog } from './common.js';

/** A run failed; `code` is the caller's error code (or the runner's exit status). */
export type RunFailed = {
  type: 'RunFailed';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    error: string;
    code: string | null;
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log?: RunLog | undefined;
    /** When the producer saw the run end (its `eventTime`); absent: when it was recorded. */
    at?: string | undefined;
    /** Tasks that reported no state before the producer's verdict ended the run (task-level pipelines). */
    unreportedTasks?: string[] | undefined;
  };
};
