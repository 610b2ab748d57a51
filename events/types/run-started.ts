import type { EventDataInterval, RunType } from './common.js';

/** Where an ingested run came from: its OpenLineage job and the `eventTime` of the event that started it. */
export type OpenLineageOrigin = { namespace: string; job: string; eventTime: string };

/** A run of one date key began; it opens a new generation for that key. */
export type RunStarted = {
  type: 'RunStarted';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    attempt: number;
    runType: RunType;
    logicalDate: string;
    dataInterval: EventDataInterval;
    runAfter: string;
    leaseExpiresAt: string;
    /** Reprocess of a successful key (`--force`). */
    force: boolean;
    /** A manual run whose logical date is not a slot of the timetable. */
    offSchedule: boolean;
    /** The run whose expired lease this start took over, if any. */
    takeoverOf: string | null;
    /** The OpenLineage job and event this run was started from (ingest); absent on runs started any other way. */
    openlineage?: OpenLineageOrigin | undefined;
    /** The pool the run took a place in and the pool's size as its runner kept it (`--pool NAME=N`). */
    pool?: { name: string; size: number } | undefined;
    /** When the producer started the run (its `eventTime`); absent: when it was recorded. */
    at?: string | undefined;
  };
};
