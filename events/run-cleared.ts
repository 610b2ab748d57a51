import { z } from 'zod';
import type { ClearCause as PlainClearCause, RunCleared as PlainRunCleared } from './types/run-cleared.js';
import type { Equals } from './same-type.js';
import { PipelineName, RunRef } from './common.js';

/**
 * Why a clear happened when it was not asked for directly: the clear of an upstream date it depends on
 * (`clear a <date> --downstream`), named by that clear's event id, pipeline and date key. Both events
 * are in one append, so they share the actor and the reason.
 */
export const ClearCause = z.object({ eventId: z.string().min(1), pipeline: PipelineName, date: z.string().min(1) });
export type ClearCause = PlainClearCause;
true satisfies Equals<ClearCause, z.infer<typeof ClearCause>>;

/** A date key was made pending again; closes its generation. The reason is in metadata. */
export const RunCleared = z.object({
  type: z.literal('RunCleared'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    previousStatus: z.enum(['running', 'success', 'failed', 'interrupted', 'skipped', 'up_for_retry']),
    /** Absent on a clear asked for directly, and on every clear recorded before cascades existed (they hash as before). */
    cause: ClearCause.optional(),
  }),
});
export type RunCleared = PlainRunCleared;
true satisfies Equals<RunCleared, z.infer<typeof RunCleared>>;
