import { z } from 'zod';
import type { RunMarked as PlainRunMarked } from './types/run-marked.js';
import type { Equals } from './same-type.js';
import { DataInterval, Instant, RunRef } from './common.js';

/** What a mark may set a date to: `success` (Airflow's "mark success") or `skipped` (no data to process). */
export const MARK_STATUSES = ['success', 'skipped'] as const;

/**
 * A date was set to `success` or `skipped` by hand, without running anything
 * (`runledger mark`). It opens a new generation for its key, like a start:
 * `runId` is the mark's own id, so a later clear names it and no older run of
 * the key can complete it. The actor and the reason are in metadata; the reason
 * is required. No command ran for this date: the event itself is the record of that.
 */
export const RunMarked = z.object({
  type: z.literal('RunMarked'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    status: z.enum(MARK_STATUSES),
    logicalDate: Instant,
    dataInterval: DataInterval,
    runAfter: Instant,
    /** The key's status before the mark (`missing` when it never had an event). */
    previousStatus: z.enum(['missing', 'success', 'skipped', 'failed', 'up_for_retry', 'interrupted', 'cleared']),
  }),
});
export type RunMarked = PlainRunMarked;
true satisfies Equals<RunMarked, z.infer<typeof RunMarked>>;
