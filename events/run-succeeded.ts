import { z } from 'zod';
import type { RunSucceeded as PlainRunSucceeded } from './types/run-succeeded.js';
import type { Equals } from './same-type.js';
import { DatasetRef, ProducerAt, RunLog, RunOutput, RunRef } from './common.js';

/** A run finished well; `metrics` is the user's JSON object (rows, rejected, revenue, …). */
export const RunSucceeded = z.object({
  type: z.literal('RunSucceeded'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    metrics: z.record(z.string(), z.unknown()),
    /** The datasets the run wrote: `{ namespace, name }` from OpenLineage, plain texts from `succeed --output`. */
    outputs: z.array(RunOutput),
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log: RunLog.optional(),
    /** When the producer saw the run end (its `eventTime`); absent: when it was recorded. */
    at: ProducerAt,
    /** Tasks that reported no state before the producer's verdict ended the run (task-level pipelines). */
    unreportedTasks: z.array(z.string()).optional(),
    /**
     * The datasets the run read, as its producer reported them (OpenLineage `inputs`), namespace and name
     * apart; absent when none were reported, and on every older event (which hashes as before).
     */
    inputs: z.array(DatasetRef).optional(),
  }),
});
export type RunSucceeded = PlainRunSucceeded;
true satisfies Equals<RunSucceeded, z.infer<typeof RunSucceeded>>;
