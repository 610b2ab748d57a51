import { z } from 'zod';
import { DatasetRef, RunLog, RunRef } from './common.js';

/** A run finished well; `metrics` is the user's JSON object (rows, rejected, revenue, …). */
export const RunSucceeded = z.object({
  type: z.literal('RunSucceeded'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    metrics: z.record(z.string(), z.unknown()),
    outputs: z.array(z.string()),
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log: RunLog.optional(),
    /**
     * The datasets the run read, as its producer reported them (OpenLineage `inputs`), namespace and name
     * apart; absent when none were reported, and on every older event (which hashes as before).
     */
    inputs: z.array(DatasetRef).optional(),
  }),
});
export type RunSucceeded = z.infer<typeof RunSucceeded>;
