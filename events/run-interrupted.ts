import { z } from 'zod';
import type { RunInterrupted as PlainRunInterrupted } from './types/run-interrupted.js';
import type { Equals } from './same-type.js';
import { ProducerAt, RunLog, RunRef } from './common.js';

/**
 * The runner that owned a run was stopped (SIGINT, SIGTERM, an aborted
 * library call) before the run finished. Not a failure of the pipeline: the
 * key stays pending (`interrupted`), so running the same command again resumes it.
 */
export const RunInterrupted = z.object({
  type: z.literal('RunInterrupted'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    /** What stopped the runner: `SIGINT`, `SIGTERM`, or `aborted` for an AbortSignal without a name. */
    by: z.string().min(1),
    /** What the work was doing when it stopped (the command's last words, or 'not started'). */
    message: z.string(),
    /** The runner's log file of the command's output, when it kept one (absent on older events). */
    log: RunLog.optional(),
    /** When the producer stopped the run (its `eventTime`); absent: when it was recorded. */
    at: ProducerAt,
  }),
});
export type RunInterrupted = PlainRunInterrupted;
true satisfies Equals<RunInterrupted, z.infer<typeof RunInterrupted>>;
