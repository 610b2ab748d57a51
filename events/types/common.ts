// The public event types are written out as plain TypeScript, apart from their zod schemas (events/*.ts), so the
// declaration files a library user's compiler reads never load zod's (a third of each type check). Each schema
// file checks that its schema infers exactly the plain type (events/same-type.ts), so the two cannot drift apart.

/** How a run came about. */
export type RunType = 'scheduled' | 'manual' | 'backfill' | 'catchup';

/** A dataset as OpenLineage names it: a namespace (`postgres://db:5432`, `s3://bucket`) and a name within it. */
export type DatasetRef = { namespace: string; name: string };

/**
 * One dataset a run wrote. Written by OpenLineage ingest as its namespace and name, kept apart (a name
 * may itself hold `/`); older events and `succeed --output` hold a plain text, still read as it is.
 */
export type RunOutput = string | { namespace: string; name: string };

/**
 * The per-run log file a runner kept of the command's stdout and stderr: where it was written, and the
 * sha256 (lowercase hex) of its bytes when the run ended, so a later reader can tell a changed file from
 * the one recorded.
 */
export type RunLog = { path: string; sha256: string };

/** A run's data interval as its events record it: two RFC 3339 instants. */
export type EventDataInterval = { start: string; end: string };
