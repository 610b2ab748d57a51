import type { DatasetRef, RunLog, RunOutput } from './common.js';

/** A run finished well; `metrics` is the user's JSON object (rows, rejected, revenue, …). */
export type RunSucceeded = {
  type: 'RunSucceeded';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    metrics: Record<string, unknown>;
    /** The datasets the run wrote: `{ namespace, name }` from OpenLineage, plain texts from `succeed --output`. */
    outputs: RunOutput[];
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log?: RunLog | undefined;
    /** When the producer saw the run end (its `eventTime`); absent: when it was recorded. */
    at?: string | undefined;
    /** Tasks that reported no state before the producer's verdict ended the run (task-level pipelines). */
    unreportedTasks?: string[] | undefined;
    /** The datasets the run read, as its producer reported them (OpenLineage `inputs`); absent when none were reported. */
    inputs?: DatasetRef[] | undefined;
  };
};
