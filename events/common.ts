import { z } from 'zod';
import type { RunType as PlainRunType, DatasetRef as PlainDatasetRef, RunOutput as PlainRunOutput, RunLog as PlainRunLog } from './types/common.js';
import type { Equals } from './same-type.js';
import { INSTANT_PATTERN, PIPELINE_NAME_PATTERN, SHA256_HEX_PATTERN } from './name-patterns.js';

/** Pipeline names: `[a-z0-9][a-z0-9_.-]{0,127}`. */
export const PipelineName = z.string().regex(PIPELINE_NAME_PATTERN);

/** An RFC 3339 instant with an offset or `Z`. */
export const Instant = z.string().regex(INSTANT_PATTERN);

export const DataInterval = z.object({ start: Instant, end: Instant });

export const RunType = z.enum(['scheduled', 'manual', 'backfill', 'catchup']);
export type RunType = PlainRunType;
true satisfies Equals<RunType, z.infer<typeof RunType>>;

/** The part every run event carries, so projections never need a lookup. */
export const RunRef = {
  pipeline: PipelineName,
  date: z.string().min(1),
  runId: z.string().min(1),
};

/** A dataset as OpenLineage names it: a namespace (`postgres://db:5432`, `s3://bucket`) and a name within it. */
export const DatasetRef = z.object({ namespace: z.string().min(1), name: z.string().min(1) });
export type DatasetRef = PlainDatasetRef;
true satisfies Equals<DatasetRef, z.infer<typeof DatasetRef>>;

/**
 * The producer's own instant of a run event (OpenLineage's `eventTime`): when the run started or ended
 * at its source, as opposed to `recordedAt`, when the ledger heard of it. The folds take a run's start,
 * end and duration from it when present. Optional on every run event: events written without it (every
 * event before ingest kept it, and every run the ledger runs itself) validate and hash as before.
 */
export const ProducerAt = Instant.optional();

/**
 * One dataset a run wrote. Written by OpenLineage ingest as its namespace and name, kept apart (a name
 * may itself hold `/`); older events and `succeed --output` hold a plain text, still read as it is.
 */
export const RunOutput = z.union([z.string(), z.object({ namespace: z.string().min(1), name: z.string().min(1) })]);
export type RunOutput = PlainRunOutput;
true satisfies Equals<RunOutput, z.infer<typeof RunOutput>>;

/**
 * The per-run log file a runner kept of the command's stdout and stderr: where it was written, and the
 * sha256 (lowercase hex) of its bytes when the run ended, so a later reader can tell a changed file from
 * the one recorded. Optional on every outcome event: events recorded without it validate and hash as before.
 */
export const RunLog = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(SHA256_HEX_PATTERN),
});
export type RunLog = PlainRunLog;
true satisfies Equals<RunLog, z.infer<typeof RunLog>>;
