import { z } from 'zod';
import { RunRef } from './common.js';

/** A run failed; `code` is the caller's error code (or the runner's exit status). */
export const RunFailed = z.object({
  type: z.literal('RunFailed'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    error: z.string(),
    code: z.string().nullable(),
  }),
});
export type RunFailed = z.infer<typeof RunFailed>;
