import { PROJECTION_VERSION } from '../../projections/projection-version.js';

/**
 * The read-model tables, declared once: their columns (name, logical type, nullability), primary keys,
 * secondary indexes and one version. Each store's dialect turns this into its SQL (DDL, column lists,
 * upserts) and its row readers, as Kysely's dialects share one query compiler; a test reads each store's
 * live schema and compares it with this declaration, so a new field is one edit here (and the fold that
 * fills it).
 */

/**
 * The version of the tables' shape. With `PROJECTION_VERSION` it makes the stamp kept in `rm_meta`; a ledger
 * whose stamp differs has its read models dropped and rebuilt from the events on first use, on either store.
 *
 * Before 6 each store kept its own number (SQLite's reached 4, PostgreSQL's 5). Their history, for the record:
 * 2: `rm_pipelines` keeps slot counts, the slots through complete-through and the run tally.
 * 3: `rm_pipelines` keeps the running dates and the latest logical date of any row; `rm_meta` no longer holds the
 *    last position folded on SQLite (a pipeline row's position says it, see sqlite-read-models.ts).
 * 4: no index of running dates (a running read takes the keys from the pipeline row's `running`); SQLite's `rm_runs`
 *    keyed by pipeline and start position without a rowid (the run list's order, no index of run ids).
 * 5: PostgreSQL's `rm_runs` keyed by pipeline and run id, not run id alone (two pipelines' runs can share an id).
 * 6: one declaration for both stores: PostgreSQL's `rm_runs` keyed by pipeline and start position as SQLite's are
 *    (a run is found by id through the events' index of runs), one index fewer for every run start to write.
 * 7: `rm_pipelines` keeps the pipeline's pause and retirement (`control`).
 * 8: `rm_pipelines` counts the audit entries of the pipeline's events (`audit_entries`).
 */
export const READ_MODEL_VERSION = 8;

/** What `rm_meta`'s `stamp` holds for tables this build wrote: the folds' version and the tables'. */
export const READ_MODEL_STAMP = `${PROJECTION_VERSION}.${READ_MODEL_VERSION}`;

/**
 * A column's logical type: `text`; `int` for small integers (counts, flags, attempts, versions); `bigint` for
 * 64-bit ones (event positions, epoch milliseconds). A store maps each to its own type; both hand every
 * integer back to the rows as a JavaScript number.
 */
export type ColumnType = 'text' | 'int' | 'bigint';

export type ColumnDeclaration = { readonly name: string; readonly type: ColumnType; readonly nullable: boolean };

export type IndexDeclaration = { readonly name: string; readonly columns: readonly string[] };

export type TableDeclaration = {
  readonly name: string;
  readonly columns: readonly ColumnDeclaration[];
  readonly primaryKey: readonly string[];
  /** Secondary indexes: a rebuild creates them after its rows are in, one sorted pass each. */
  readonly indexes: readonly IndexDeclaration[];
  /**
   * Rows stored in primary-key order where the store can (SQLite: WITHOUT ROWID), for tables read in key order whose
   * key is most of the row: no rowid b-tree beside the key's.
   */
  readonly keyOrdered: boolean;
};

function column<N extends string, T extends ColumnType>(name: N, type: T): { readonly name: N; readonly type: T; readonly nullable: false } {
  return { name, type, nullable: false };
}
function nullable<N extends string, T extends ColumnType>(name: N, type: T): { readonly name: N; readonly type: T; readonly nullable: true } {
  return { name, type, nullable: true };
}

/** The stamp (see `READ_MODEL_STAMP`); PostgreSQL also keeps the position folded through as `position`. */
export const RM_META = {
  name: 'rm_meta',
  columns: [column('key', 'text'), column('value', 'text')],
  primaryKey: ['key'],
  indexes: [],
  keyOrdered: false,
} as const satisfies TableDeclaration;

/** One row per pipeline: a pipeline at a glance (see `PipelineRow`). */
export const RM_PIPELINES = {
  name: 'rm_pipelines',
  columns: [
    column('pipeline', 'text'),
    // The current definition as JSON (null for a pipeline with run events but no definition).
    nullable('definition', 'text'),
    nullable('schedule', 'text'),
    nullable('timezone', 'text'),
    nullable('defined_at', 'text'),
    column('version', 'int'),
    nullable('watermark_date', 'text'),
    nullable('watermark_logical', 'text'),
    nullable('complete_through', 'text'),
    // Date keys by status, as JSON `{ "success": 3, … }`: only statuses that occur, in name order.
    column('counts', 'text'),
    // The last success (by position) and the last failure (by finish instant, as `status` shows it), as JSON.
    nullable('last_success', 'text'),
    nullable('last_failure', 'text'),
    // Date keys that are slots of the current timetable (the row's logical date is its key's slot), by status, as JSON.
    column('slot_counts', 'text'),
    // Rows whose key names a slot but whose logical date is not that slot's (after a zone change): `status` walks then.
    column('misaligned', 'int'),
    // How many slots there are up to and including complete-through (0 when none is complete).
    column('through_slots', 'int'),
    // Finished runs by outcome, with their durations as a histogram (`RunTally`), as JSON.
    column('run_tally', 'text'),
    // Position of the last event of this pipeline folded in.
    column('position', 'bigint'),
    // The dates now `running` (`RunningDate`s by key, as JSON).
    column('running', 'text'),
    // The latest logical date (ms) any date row of the pipeline ever had, or null before any.
    nullable('latest_ms', 'bigint'),
    // The pipeline's pause and retirement as JSON `{ "paused": { since, by, reason }, "retired": … }` (set ones only), or null for neither.
    nullable('control', 'text'),
    // The audit entries of its events (definitions, clears, forced re-runs, takeovers, marks, …), for audit pages' "of N".
    column('audit_entries', 'int'),
  ],
  primaryKey: ['pipeline'],
  indexes: [],
  keyOrdered: false,
} as const satisfies TableDeclaration;

/** One row per date key that had an event: its current state (see `DateRow`). */
export const RM_DATES = {
  name: 'rm_dates',
  columns: [
    column('pipeline', 'text'),
    column('date', 'text'),
    column('status', 'text'),
    column('run_id', 'text'),
    column('attempt', 'int'),
    column('attempts', 'int'),
    column('run_type', 'text'),
    // The logical date's instant in ms: ranges are read by it.
    column('logical_ms', 'bigint'),
    column('logical_date', 'text'),
    // Null when equal to the logical date / run-after (the usual case), to keep rows small.
    nullable('interval_start', 'text'),
    nullable('interval_end', 'text'),
    column('run_after', 'text'),
    column('started_at', 'text'),
    nullable('finished_at', 'text'),
    column('lease_expires_at', 'text'),
    nullable('error_excerpt', 'text'),
    nullable('error_code', 'text'),
    // The event holding the whole error text when the excerpt is not all of it.
    nullable('error_position', 'bigint'),
    // The `RunSucceeded` holding the metrics and outputs, or null when they are `null` and `[]`.
    nullable('result_position', 'bigint'),
    column('off_schedule', 'int'),
    column('forced', 'int'),
    nullable('cleared_at', 'text'),
    column('start_position', 'bigint'),
    column('version', 'int'),
    // Any `DateState` field without a column of its own, as JSON, or null.
    nullable('extra', 'text'),
  ],
  primaryKey: ['pipeline', 'date'],
  indexes: [{ name: 'rm_dates_by_logical', columns: ['pipeline', 'logical_ms'] }],
  keyOrdered: true,
} as const satisfies TableDeclaration;

/**
 * One row per run (attempt), keyed by its pipeline and `seq`, the position of the run's `RunStarted`: the run
 * list's order. A run is found by id through the events' index of runs (its row's `seq` is the position of the
 * first event of the run), so no index of run ids is kept; two pipelines' runs may share an id.
 */
export const RM_RUNS = {
  name: 'rm_runs',
  columns: [
    column('run_id', 'text'),
    column('pipeline', 'text'),
    column('seq', 'bigint'),
    column('date', 'text'),
    column('attempt', 'int'),
    column('run_type', 'text'),
    column('status', 'text'),
    column('logical_date', 'text'),
    column('interval_start', 'text'),
    column('interval_end', 'text'),
    column('started_at', 'text'),
    nullable('finished_at', 'text'),
    column('lease_expires_at', 'text'),
    column('actor', 'text'),
    column('forced', 'int'),
    column('off_schedule', 'int'),
    nullable('error_excerpt', 'text'),
    nullable('error_position', 'bigint'),
    nullable('result_position', 'bigint'),
    // Any `RunRecord` field without a column of its own (the log file, OpenLineage's job), as JSON, or null.
    nullable('extra', 'text'),
  ],
  primaryKey: ['pipeline', 'seq'],
  indexes: [{ name: 'rm_runs_by_date', columns: ['pipeline', 'date', 'seq'] }],
  keyOrdered: true,
} as const satisfies TableDeclaration;

/** Every read-model table, in the order they are created. */
export const READ_MODEL_TABLES: readonly TableDeclaration[] = [RM_META, RM_PIPELINES, RM_DATES, RM_RUNS];

/** A row of `table` as the stores bind and read it: text as strings, integers as numbers, nullable columns or null. */
export type RowOf<T extends { readonly columns: readonly ColumnDeclaration[] }> = {
  -readonly [C in T['columns'][number] as C['name']]: (C['type'] extends 'text' ? string : number) | (C['nullable'] extends true ? null : never);
};

/** A table's column names, in declaration order (the order of its DDL, its column lists and its rows' values). */
export function columnNames<T extends TableDeclaration>(table: T): Array<T['columns'][number]['name']> {
  return table.columns.map((c) => c.name);
}

/** A table's columns of one logical type. */
export function columnsOfType(table: TableDeclaration, type: ColumnType): string[] {
  return table.columns.filter((c) => c.type === type).map((c) => c.name);
}

/**
 * A function that lists a row's values in the table's column order, for positional parameters: compiled once per
 * table from the declaration, so each field is a named load of one row shape (`columns.map((c) => row[c])` read each
 * of a row's 20-25 fields through a megamorphic keyed load, which showed in every append).
 *
 * @example
 * const values = rowValues(RM_DATES); // values(row) → [row.pipeline, row.date, …]
 */
export function rowValues<T extends TableDeclaration>(table: T): (row: RowOf<T>) => unknown[] {
  return new Function('r', `return [${columnNames(table).map((c) => `r.${identifier(c)}`).join(', ')}];`) as (row: RowOf<T>) => unknown[];
}

/**
 * A function that builds a row from its values in the table's column order (a driver's raw rows): compiled once per
 * table, so every row is one object literal of one shape (a driver's named rows cost several times the garbage).
 *
 * @example
 * const rowOf = rowOfValues(RM_DATES); // rowOf(['etl', '2026-01-02', …]) → { pipeline: 'etl', date: '2026-01-02', … }
 */
export function rowOfValues<T extends TableDeclaration>(table: T): (values: readonly unknown[]) => RowOf<T> {
  return new Function('v', `return { ${columnNames(table).map((c, i) => `${identifier(c)}: v[${i}]`).join(', ')} };`) as (values: readonly unknown[]) => RowOf<T>;
}

/**
 * A function that copies a row as one object literal of the row's shape, compiled as `rowValues` is: a spread
 * (`{ ...row }`) copied the fields one by one, 6 µs of a 190 µs append of a heartbeat (CPU profile).
 *
 * @example
 * const copy = rowCopy(RM_PIPELINES)(row);
 */
export function rowCopy<T extends TableDeclaration>(table: T): (row: RowOf<T>) => RowOf<T> {
  return new Function('r', `return { ${columnNames(table).map((c) => `${identifier(c)}: r.${identifier(c)}`).join(', ')} };`) as (row: RowOf<T>) => RowOf<T>;
}

/** A column name as it is written into compiled code: the declaration's names are plain identifiers, and this says so loudly if one is not. */
function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`read-model column "${name}" is not a plain identifier; name columns in snake_case`);
  return name;
}
