// The patterns names must match, as plain regular expressions: the zod schemas in common.ts and
// task-definition.ts use them, and so do the checks on a query's path, which does not load zod.

/** Pipeline names: `[a-z0-9][a-z0-9_.-]{0,127}`. */
export const PIPELINE_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,127}$/;

/** Task ids as Airflow allows them: letters, digits, `_`, `.` and `-`, at most 250 characters. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9_.-]{1,250}$/;

/** An RFC 3339 instant with an offset or `Z` (the `Instant` schema in common.ts). */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A sha256 digest in lowercase hex (a run log's `sha256`). */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;

/** Pool names (`define --pool`, `--pool NAME=N`): as pipeline names, `[a-z0-9][a-z0-9_.-]{0,127}`. */
export const POOL_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,127}$/;

/** The largest priority either way (`define --priority`): room enough, and safe to add up. */
export const MAX_PRIORITY = 1_000_000;
