import type { RunLog } from './common.js';

/**
 * The runner that owned a run was stopped (SIGINT, SIGTERM, an aborted
 * library call) before the run finished. Not a failure of the pipeline: the
 * key stays pending (`interrupted`), so running the same command again resumes it.
 */
export type RunInterrupted = {
  type: 'RunInterrupted';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    /** What stopped the runner: `SIGINT`, `SIGTERM`, or `aborted` for an AbortSignal without a name. */
    by: string;
    /** What the work was doing when it stopped (the command's last words, or 'not started'). */
    message: string;
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log?: RunLog | undefined;
    /** When the producer stopped the run (its `eventTime`); absent: when it was recorded. */
    at?: string | undefined;
  };
};
