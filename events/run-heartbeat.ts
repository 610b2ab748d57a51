import { z } from 'zod';
import type { RunHeartbeat as PlainRunHeartbeat } from './types/run-heartbeat.js';
import type { Equals } from './same-type.js';
import { Instant, ProducerAt, RunRef } from './common.js';

/** A running run extended its lease. */
export const RunHeartbeat = z.object({
  type: z.literal('RunHeartbeat'),
  schemaVersion: z.literal(1),
  /** `at`: the producer's instant of the heartbeat (OpenLineage `RUNNING`), absent for the ledger's own. */
  data: z.object({ ...RunRef, leaseExpiresAt: Instant, at: ProducerAt }),
});
export type RunHeartbeat = PlainRunHeartbeat;
true satisfies Equals<RunHeartbeat, z.infer<typeof RunHeartbeat>>;
