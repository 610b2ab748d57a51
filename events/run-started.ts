import { z } from 'zod';
import { DataInterval, Instant, RunRef, RunType } from './common.js';

/** A run of one date key began; it opens a new generation for that key (S2). */
export const RunStarted = z.object({
  type: z.literal('RunStarted'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    attempt: z.number().int().positive(),
    runType: RunType,
    logicalDate: Instant,
    dataInterval: DataInterval,
    runAfter: Instant,
    leaseExpiresAt: Instant,
    /** Reprocess of a successful key (`--force`, S4). */
    force: z.boolean(),
    /** A manual run whose logical date is not a slot of the timetable (S4, S11). */
    offSchedule: z.boolean(),
    /** The run whose expired lease this start took over, if any. */
    takeoverOf: z.string().nullable(),
  }),
});
export type RunStarted = z.infer<typeof RunStarted>;
