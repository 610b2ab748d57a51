import { z } from 'zod';
import type { RunFailed as PlainRunFailed } from './types/run-failed.js';
import type { Equals } from './same-type.js';
import { ProducerAt, RunLog, RunRef } from './common.js';

/** A run failed; `code` is the caller's error code (or the runner's exit status). */
export const RunFailed = z.object({
  type: z.literal('RunFailed'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    error: z.string(),
    code: z.string().nullable(),
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log: RunLog.optional(),
    /** When the producer saw the run end (its `eventTime`); absent: when it was recorded. */
    at: ProducerAt,
    /** Tasks that reported no state before the producer's verdict ended the run (task-level pipelines). */
    unreportedTasks: z.array(z.string()).optional(),
  }),
});
export type RunFailed = PlainRunFailed;
true satisfies Equals<RunFailed, z.infer<typeof RunFailed>>;
