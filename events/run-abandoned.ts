import { z } from 'zod';
import { RunRef } from './common.js';

/** A running run whose lease expired was taken over by a new attempt. */
export const RunAbandoned = z.object({
  type: z.literal('RunAbandoned'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    reason: z.literal('leaseExpired'),
    supersededBy: z.string(),
  }),
});
export type RunAbandoned = z.infer<typeof RunAbandoned>;
