import { z } from 'zod';
import { RunRef } from './common.js';

/** A date key was made pending again; closes its generation. The reason is in metadata. */
export const RunCleared = z.object({
  type: z.literal('RunCleared'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    previousStatus: z.enum(['running', 'success', 'failed', 'interrupted', 'skipped', 'up_for_retry']),
  }),
});
export type RunCleared = z.infer<typeof RunCleared>;
