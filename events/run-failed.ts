import { z } from 'zod';
import { RunLog, RunRef } from './common.js';

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
  }),
});
export type RunFailed = z.infer<typeof RunFailed>;
