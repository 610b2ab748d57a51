import { z } from 'zod';
import { Instant, RunRef } from './common.js';

/** A running run extended its lease. */
export const RunHeartbeat = z.object({
  type: z.literal('RunHeartbeat'),
  schemaVersion: z.literal(1),
  data: z.object({ ...RunRef, leaseExpiresAt: Instant }),
});
export type RunHeartbeat = z.infer<typeof RunHeartbeat>;
