// The patterns names must match, as plain regular expressions: the zod schemas in common.ts and
// task-definition.ts use them, and so do the checks on a query's path, which does not load zod.

/** Pipeline names: `[a-z0-9][a-z0-9_.-]{0,127}`. */
export const PIPELINE_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,127}$/;

/** Task ids as Airflow allows them: letters, digits, `_`, `.` and `-`, at most 250 characters. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9_.-]{1,250}$/;
