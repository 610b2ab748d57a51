import { z } from 'zod';
import type { OpenLineageOrigin as PlainOpenLineageOrigin, RunStarted as PlainRunStarted } from './types/run-started.js';
import type { Equals } from './same-type.js';
import { DataInterval, Instant, ProducerAt, RunRef, RunType } from './common.js';
import { POOL_NAME_PATTERN } from './name-patterns.js';

/** Where an ingested run came from: its OpenLineage job and the `eventTime` of the event that started it. */
export const OpenLineageOrigin = z.object({ namespace: z.string().min(1), job: z.string().min(1), eventTime: Instant });
export type OpenLineageOrigin = PlainOpenLineageOrigin;
true satisfies Equals<OpenLineageOrigin, z.infer<typeof OpenLineageOrigin>>;

/** A run of one date key began; it opens a new generation for that key. */
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
    /** A manual run whose logical date is not a slot of the timetable. */
    offSchedule: z.boolean(),
    /** The run whose expired lease this start took over, if any. */
    takeoverOf: z.string().nullable(),
    /**
     * The OpenLineage job and event this run was started from (ingest), with
     * the producer's own event time: a later event of an older attempt is
     * told apart by it. Absent on runs started any other way, and in events
     * recorded before ingest existed, so no upcaster is needed.
     */
    openlineage: OpenLineageOrigin.optional(),
    /**
     * The pool the run took a place in and the pool's size as its runner kept it (`--pool NAME=N`), so a
     * reader can tell a full pool from the ledger alone. Absent on runs started outside a sized pool, and in
     * events recorded before pools existed, so no upcaster is needed.
     */
    pool: z.object({ name: z.string().regex(POOL_NAME_PATTERN), size: z.number().int().positive() }).optional(),
    /** When the producer started the run (its `eventTime`); absent: when it was recorded. */
    at: ProducerAt,
  }),
});
export type RunStarted = PlainRunStarted;
true satisfies Equals<RunStarted, z.infer<typeof RunStarted>>;
