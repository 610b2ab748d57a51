import { z } from 'zod';
import type { RunAbandoned as PlainRunAbandoned } from './types/run-abandoned.js';
import type { Equals } from './same-type.js';
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
export type RunAbandoned = PlainRunAbandoned;
true satisfies Equals<RunAbandoned, z.infer<typeof RunAbandoned>>;
