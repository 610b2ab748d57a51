import pg from 'pg';
import { canonicalJson } from '../../../events/canonical-json.js';
import type { PipelineDefinition } from '../../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { hashedPart } from '../../../events/recorded-event.js';
import type { DateState, DateStatus } from '../../../projections/date-state.js';
import type { PipelineSummary } from '../../../projections/pipeline-summary.js';
import { decodeStoredRow } from '../decode-stored-row.js';
import { eventsByPipeline, timetableCache, touchedKeys } from '../read-model-fold.js';
import { catchUpSteps, rebuildSteps, run, writeSteps, type RowWrites, type WriterPort } from '../read-model-writer.js';
import { dateOfRow, LIGHT_PAYLOADS, NAME_ORDER_SQL, payloadsOfEvents, pipelineRow, runOfRow, statusSummaryOfText, statusSummarySelect, STRIP_DATE_SELECT, stripDateOfRow, summaryOfRow, withoutResults, type DateRow, type Payloads, type PipelineRow, type RunRow, type StripDateRow } from '../read-model-rows.js';
import type { DateQuery, ReadModels, RebuildProgress, RebuildResult, RunQuery, StoredRows } from '../read-models.js';
import { appendRowsFunctionName, appendRowsFunctionSignature, appendRowsFunctionSql, rowHashSql, runOfEventJoin, summaryHashSql } from './postgres-append-rows-function.js';
import { quoteIdent } from './postgres-schema.js';
import { columnsOfType, READ_MODEL_STAMP, READ_MODEL_TABLES, RM_DATES, RM_PIPELINES, RM_RUNS } from '../read-model-schema.js';
import { conflictTarget, postgresReadModelSql } from './postgres-read-model-sql.js';

/** The status summaries' select on PostgreSQL: each plain column as JSON text (`to_json` of NULL is NULL: `null`). */
const STATUS_SUMMARY_SELECT_PG = statusSummarySelect((column) => `coalesce(to_json(${column})::text, 'null')`);

const STAMP = READ_MODEL_STAMP;
const TABLES = READ_MODEL_TABLES.map((t) => t.name);
/** Each table's primary key: every upsert's conflict target. */
const KEYS = { rm_dates: conflictTarget(RM_DATES), rm_runs: conflictTarget(RM_RUNS), rm_pipelines: conflictTarget(RM_PIPELINES) } as const;
const DATE_BIGINTS = columnsOfType(RM_DATES, 'bigint');
const RUN_BIGINTS = columnsOfType(RM_RUNS, 'bigint');
const PIPELINE_BIGINTS = columnsOfType(RM_PIPELINES, 'bigint');
/** Rows written per statement (as one JSON array of records). */
const WRITE_CHUNK = 2000;

/** node-postgres hands `bigint` back as text: the rows carry numbers, as SQLite's do. */
function numbers<R>(row: Record<string, unknown>, columns: readonly string[]): R {
  for (const column of columns) if (typeof row[column] === 'string') row[column] = Number(row[column]);
  return row as R;
}
const dateRowOf = (row: Record<string, unknown>) => numbers<DateRow>(row, DATE_BIGINTS);
const runRowOf = (row: Record<string, unknown>) => numbers<RunRow>(row, RUN_BIGINTS);
const pipelineRowOf = (row: Record<string, unknown>) => numbers<PipelineRow>(row, PIPELINE_BIGINTS);

type Db = pg.Pool | pg.PoolClient;
type EventRow = { position: string | number; payload: string; prev_hash: string; hash: string };

/** What `touchedSql` reads, as its one row: rows as JSON objects (bigints as numbers), null where none matched. */
export type TouchedRead = {
  meta: string | null;
  summaries: Array<Record<string, unknown>> | null;
  dates: Array<Record<string, unknown>> | null;
  runs: Array<Record<string, unknown>> | null;
  events: EventRow[] | null;
};

/** What `touchedSql` reads besides for a fold ahead of the lock: each row's fingerprint (see postgres-append-rows-function.ts). */
export type TouchedHashes = {
  summary_hashes: Array<[pipeline: string, hash: string, position: number]> | null;
  date_hashes: Array<[pipeline: string, date: string, hash: string]> | null;
  run_hashes: Array<[pipeline: string, runId: string, hash: string]> | null;
};

/** The rows a fold ahead of the lock read, as they must still stand, and the rows it writes: the append-rows function's `p_ahead` without `first`, `stamp` and `bases`. */
export type FoldedAhead = {
  summaries: Array<[pipeline: string, hash: string | null, position: number | null]>;
  dates: Array<[pipeline: string, date: string, hash: string | null]>;
  runs: Array<[pipeline: string, runId: string, hash: string | null]>;
  write: { dates: DateRow[]; runs: RunRow[]; summaries: PipelineRow[] };
};

/** The columns of each table holding event positions: the append-rows function moves the guessed ones to the real ones. */
const POSITION_COLUMNS = {
  rm_dates: ['start_position', 'error_position', 'result_position'],
  rm_runs: ['seq', 'error_position', 'result_position'],
  rm_pipelines: ['position'],
} as const;

export type PostgresReadModels = ReadModels & {
  /** True when the tables exist with this build's stamp (asked once, then kept). */
  isReady(db: Db): Promise<boolean>;
  /** The table writer, inside the append's transaction on `client`. */
  apply(client: pg.PoolClient, events: readonly RecordedEvent[], headBefore: number): Promise<void>;
  /**
   * One SELECT, its values written in (no parameters), that reads what `applyRead` needs for these events:
   * the folded position, and the summary, date and run rows they touch with the events their errors point
   * to. The append sends it in one query string after the append function, so it reads under the append
   * lock without a round trip of its own.
   */
  touchedSql(events: ReadonlyArray<Pick<RecordedEvent, 'data'>>): string;
  /**
   * `touchedSql` for a fold ahead of the lock, with each row's fingerprint, as one statement whose text
   * does not change (its keys are parameters $1 to $5, `extra` select expressions may use $6 on), so a
   * connection prepares it once.
   */
  touchedQuery(events: ReadonlyArray<Pick<RecordedEvent, 'data'>>, extra: string[]): { text: string; values: unknown[] };
  /** The append-rows function of this build's tables: its name and signature (see postgres-append-rows-function.ts). */
  readonly aheadFunction: { name: string; signature: string; stamp: string };
  /** Creates the append-rows function for the tables as they are (the caller holds the create lock). */
  installAhead(client: pg.PoolClient): Promise<void>;
  /**
   * Folds `events` (at the positions and stream versions they would take after `headBefore`) from a
   * `touchedSql(…, ahead)` read taken before the append lock, reading anything else from the pool: what
   * the append-rows function must find unchanged and what it writes. Null when the fold cannot go ahead
   * (the tables are behind the head, or a new position would land outside the position columns).
   */
  foldAhead(read: TouchedRead & TouchedHashes, events: readonly RecordedEvent[], headBefore: number): Promise<FoldedAhead | null>;
  /**
   * `apply` from a `touchedSql` read: folds, reads only what complete-through needs, and returns the
   * writes as one SQL text for the caller to send with its COMMIT.
   */
  applyRead(client: pg.PoolClient, read: TouchedRead, events: readonly RecordedEvent[], headBefore: number): Promise<string>;
  /** Rebuilds inside the caller's transaction (import). */
  rebuildIn(client: pg.PoolClient, progress?: RebuildProgress): Promise<RebuildResult>;
};

/**
 * The read models of a PostgreSQL ledger in `schema`, written in the append's own transaction.
 *
 * @example
 * const models = postgresReadModels({ schema, read, transaction });
 */
export function postgresReadModels(deps: {
  schema: string;
  /** One read statement on the pool (retried when its connection is lost). */
  read: <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>;
  /** A READ COMMITTED transaction on one pooled client. */
  transaction: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;
  /** The append lock's name, taken before a rebuild or a catch-up so no append runs between. */
  appendLock: string;
}): PostgresReadModels {
  const s = quoteIdent(deps.schema);
  /** Joins an event (`e`) to the row of the run it started (`r`), if any: a run's row is found by id through the events' index of runs. */
  const RUN_OF_EVENT = runOfEventJoin(s, 'e', 'r');
  let ready: boolean | undefined;
  const timetables = timetableCache();
  const q = async <R>(db: Db, sql: string, params: unknown[] = []): Promise<R[]> => (await db.query(sql, params)).rows as R[];

  const stampOf = async (db: Db): Promise<string | null> => {
    const tables = await q<{ n: string }>(db, `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2)`, [deps.schema, TABLES]);
    if (Number(tables[0]?.n) !== TABLES.length) return null;
    return (await q<{ value: string }>(db, `SELECT value FROM ${s}.rm_meta WHERE key = 'stamp'`))[0]?.value ?? null;
  };
  const metaPosition = async (db: Db): Promise<number> => Number((await q<{ value: string }>(db, `SELECT value FROM ${s}.rm_meta WHERE key = 'position'`))[0]?.value ?? 0);
  const setMeta = (db: Db, key: string, value: string) =>
    q(db, `INSERT INTO ${s}.rm_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]);
  const headOf = async (db: Db): Promise<number> => Number((await q<{ p: string | null }>(db, `SELECT max(position) AS p FROM ${s}.events`))[0]?.p ?? 0);

  const eventsAt = async (db: Db, positions: number[]): Promise<Map<number, RecordedEvent>> => {
    if (positions.length === 0) return new Map();
    const rows = await q<EventRow>(db, `SELECT position, payload, prev_hash, hash FROM ${s}.events WHERE position = ANY($1::bigint[])`, [positions]);
    return new Map(rows.map((r) => [Number(r.position), decode(r)]));
  };
  const payloadsFrom = (events: Map<number, RecordedEvent>): Payloads => payloadsOfEvents((position) => events.get(position));
  /** The positions of the events holding the whole errors of a set of rows (the writer needs no results). */
  const errorPositions = (rows: ReadonlyArray<{ error_position: number | null }>): number[] => [...new Set(rows.flatMap((row) => (row.error_position === null ? [] : [row.error_position])))];

  /** The writer's loads as queries on `client` (under the append lock). */
  const queriedRows = (client: pg.PoolClient): Pick<WriterPort<'async'>, 'summary' | 'rows'> => ({
    async summary(pipeline) {
      const rows = await q<Record<string, unknown>>(client, `SELECT * FROM ${s}.rm_pipelines WHERE pipeline = $1`, [pipeline]);
      return rows[0] ? summaryOfRow(pipelineRowOf(rows[0])) : null;
    },
    async rows(pipeline, dates, runs) {
      const dateRows = (await q<Record<string, unknown>>(client, `SELECT * FROM ${s}.rm_dates WHERE pipeline = $1 AND date = ANY($2)`, [pipeline, [...dates]])).map(dateRowOf);
      // By id through the events' index of runs: a run's row is keyed by its start's position (see `RM_RUNS`).
      const runRows = (await q<Record<string, unknown>>(client, `SELECT r.* FROM ${s}.events e ${RUN_OF_EVENT} WHERE e.run_id = ANY($1) AND e.pipeline = $2`, [[...runs], pipeline])).map(runRowOf);
      return { dates: dateRows, runs: runRows, payloads: payloadsFrom(await eventsAt(client, errorPositions([...dateRows, ...runRows]))) };
    },
  });

  /** The writer's loads answered from a `touchedSql` read (taken with the append, or ahead of its lock). */
  const readRows = (read: TouchedRead): Pick<WriterPort<'async'>, 'summary' | 'rows'> => {
    const payloads = payloadsFrom(new Map((read.events ?? []).map((row) => [Number(row.position), decode(row)])));
    const dateRows = (read.dates ?? []).map(dateRowOf);
    const runRows = (read.runs ?? []).map(runRowOf);
    return {
      summary(pipeline) {
        const row = (read.summaries ?? []).find((r) => r['pipeline'] === pipeline);
        return row ? summaryOfRow(pipelineRowOf(row)) : null;
      },
      rows: (pipeline) => ({ dates: dateRows.filter((row) => row.pipeline === pipeline), runs: runRows.filter((row) => row.pipeline === pipeline), payloads }),
    };
  };

  /** The writer's reads of stored statuses (the complete-through walk, a slot recount), on `db`. */
  const statusReads = (db: Db): Pick<WriterPort<'async'>, 'done' | 'slots'> => ({
    async done(pipeline, keys) {
      const rows = await q<{ date: string }>(db, `SELECT date FROM ${s}.rm_dates WHERE pipeline = $1 AND date = ANY($2) AND status IN ('success', 'skipped')`, [pipeline, keys]);
      return new Set(rows.map((r) => r.date));
    },
    async slots(pipeline) {
      const rows = await q<{ date: string; status: DateStatus; logical_date: string }>(db, `SELECT date, status, logical_date FROM ${s}.rm_dates WHERE pipeline = $1`, [pipeline]);
      return rows.map((r) => ({ date: r.date, status: r.status, logicalDate: r.logical_date }));
    },
  });

  /** The upsert of `rows` (one JSON array of records, `json` a parameter or a literal) into `table`. */
  const upsertSql = (table: string, key: string, columns: string[], json: string): string =>
    `INSERT INTO ${s}.${table} SELECT * FROM json_populate_recordset(null::${s}.${table}, ${json}::json)
     ON CONFLICT (${key}) DO UPDATE SET (${columns.join(', ')}) = (${columns.map((c) => `EXCLUDED.${c}`).join(', ')})`;
  const upsert = async (client: pg.PoolClient, table: string, key: string, rows: readonly object[]): Promise<void> => {
    for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
      const chunk = rows.slice(i, i + WRITE_CHUNK);
      await client.query(upsertSql(table, key, Object.keys(chunk[0] as object), '$1'), [JSON.stringify(chunk)]);
    }
  };

  /** Writes a pipeline's rows and its summary. */
  const writeRowsOn = async (client: pg.PoolClient, rows: { dates: readonly DateRow[]; runs: readonly RunRow[]; summary: PipelineSummary }): Promise<void> => {
    await upsert(client, 'rm_dates', KEYS.rm_dates, rows.dates);
    await upsert(client, 'rm_runs', KEYS.rm_runs, rows.runs);
    await upsert(client, 'rm_pipelines', KEYS.rm_pipelines, [pipelineRow(rows.summary)]);
  };

  /** `writeRowsOn` as SQL text, its rows written in as literals: to go with the append's COMMIT. */
  const writeRowsSql = (rows: RowWrites): string[] => {
    const literal = (table: string, key: string, list: readonly object[]) =>
      list.length === 0 ? [] : [upsertSql(table, key, Object.keys(list[0] as object), pg.escapeLiteral(JSON.stringify(list)))];
    return [...literal('rm_dates', KEYS.rm_dates, rows.dates), ...literal('rm_runs', KEYS.rm_runs, rows.runs), ...literal('rm_pipelines', KEYS.rm_pipelines, [pipelineRow(rows.summary)])];
  };

  /** Folds `events` into the rows under the append lock on `client`: every row read and written there. */
  const applyEvents = (client: pg.PoolClient, events: readonly RecordedEvent[]): Promise<void> =>
    run({ ...queriedRows(client), ...statusReads(client), write: (rows) => writeRowsOn(client, rows) }, writeSteps(events, timetables));
  /** Events as they were stored, folded as every reader decodes them (from their canonical payload), so the rows equal a refold's exactly. */
  const canonicalOf = (events: readonly RecordedEvent[]) =>
    events.map((e) => decodeStoredRow({ position: e.position, payload: canonicalJson(hashedPart(e)), prevHash: e.prevHash, hash: e.hash }));
  const positionSql = (position: number) =>
    `INSERT INTO ${s}.rm_meta (key, value) VALUES ('position', '${position}') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;

  const catchUp = async (client: pg.PoolClient, head: number): Promise<void> => {
    const events = async (from: number, to: number) =>
      (await q<EventRow>(client, `SELECT position, payload, prev_hash, hash FROM ${s}.events WHERE position >= $1 AND position <= $2 ORDER BY position LIMIT 1000`, [from, to])).map(decode);
    await run({ ...queriedRows(client), ...statusReads(client), write: (rows) => writeRowsOn(client, rows), events }, catchUpSteps((await metaPosition(client)) + 1, head, timetables));
    await setMeta(client, 'position', String(head));
  };

  const rebuildIn = async (client: pg.PoolClient, progress?: RebuildProgress): Promise<RebuildResult> => {
    await client.query(`DROP TABLE IF EXISTS ${TABLES.map((t) => `${s}.${t}`).join(', ')}`);
    await client.query(postgresReadModelSql(deps.schema));
    const total = await headOf(client);
    const pipelines = (await q<{ pipeline: string }>(client, `SELECT DISTINCT pipeline FROM ${s}.events ORDER BY pipeline`)).map((r) => r.pipeline);
    const pipelineEvents = async (pipeline: string, from: number) =>
      (await q<EventRow>(client, `SELECT position, payload, prev_hash, hash FROM ${s}.events WHERE pipeline = $1 AND position >= $2 ORDER BY position LIMIT 5000`, [pipeline, from])).map(decode);
    const result = await run({ pipelineEvents, insert: (rows) => writeRowsOn(client, rows) }, rebuildSteps(pipelines, total, progress));
    await setMeta(client, 'stamp', STAMP);
    await setMeta(client, 'position', String(total));
    ready = true;
    return result;
  };

  /**
   * The read of every row `events` touch (see `touchedSql`); `array(values, slot)` writes one list of keys
   * into the text, as a literal or as parameter `slot` (1 to 5, in the order of the returned `values`).
   * With `extra`, each row's fingerprint too and those select expressions.
   */
  const touched = (events: ReadonlyArray<Pick<RecordedEvent, 'data'>>, array: (values: readonly string[], slot: number) => string, extra?: string[]): { text: string; values: string[][] } => {
    const groups = eventsByPipeline(events);
    const dates = { pipelines: [] as string[], keys: [] as string[] };
    const runs = { pipelines: [] as string[], keys: [] as string[] };
    for (const [pipeline, list] of groups) {
      const keys = touchedKeys(list);
      for (const date of keys.dates) {
        dates.keys.push(date);
        dates.pipelines.push(pipeline);
      }
      for (const runId of keys.runs) {
        runs.keys.push(runId);
        runs.pipelines.push(pipeline);
      }
    }
    const values = [[...groups.keys()], dates.pipelines, dates.keys, runs.pipelines, runs.keys];
    const [pipelines, datePipelines, dateKeys, runPipelines, runKeys] = values.map((list, i) => array(list, i + 1));
    const hashes = extra === undefined
      ? ''
      : `,
  (SELECT json_agg(json_build_array(p.pipeline, ${summaryHashSql('p')}, p.position)) FROM ${s}.rm_pipelines p WHERE p.pipeline = ANY(${pipelines})) AS summary_hashes,
  (SELECT json_agg(json_build_array(x.pipeline, x.date, ${rowHashSql('x')})) FROM ${s}.rm_dates x WHERE (x.pipeline, x.date) IN (SELECT * FROM unnest(${datePipelines}, ${dateKeys}))) AS date_hashes,
  (SELECT json_agg(json_build_array(x.pipeline, x.run_id, ${rowHashSql('x')})) FROM r x) AS run_hashes${extra.map((e) => `,\n  ${e}`).join('')}`;
    const text = `WITH d AS (SELECT * FROM ${s}.rm_dates WHERE (pipeline, date) IN (SELECT * FROM unnest(${datePipelines}, ${dateKeys}))),
  r AS (SELECT r.* FROM ${s}.events e ${RUN_OF_EVENT} WHERE e.run_id = ANY(${runKeys}) AND (e.pipeline, e.run_id) IN (SELECT * FROM unnest(${runPipelines}, ${runKeys})))
SELECT (SELECT value FROM ${s}.rm_meta WHERE key = 'position') AS meta,
  (SELECT json_agg(p) FROM ${s}.rm_pipelines p WHERE p.pipeline = ANY(${pipelines})) AS summaries,
  (SELECT json_agg(d) FROM d) AS dates,
  (SELECT json_agg(r) FROM r) AS runs,
  (SELECT json_agg(json_build_object('position', e.position, 'payload', e.payload, 'prev_hash', e.prev_hash, 'hash', e.hash)) FROM ${s}.events e
     WHERE e.position IN (SELECT error_position FROM d UNION SELECT error_position FROM r)) AS events${hashes}`;
    return { text, values };
  };

  const lock = (client: pg.PoolClient) => client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [deps.appendLock]);
  const rebuild = (progress?: RebuildProgress) =>
    deps.transaction(async (client) => {
      await lock(client);
      return rebuildIn(client, progress);
    });

  return {
    async isReady(db) {
      ready ??= (await stampOf(db)) === STAMP;
      return ready;
    },
    async apply(client, events, headBefore) {
      if (events.length === 0 || !(await this.isReady(client))) return;
      const canonical = canonicalOf(events);
      if ((await metaPosition(client)) !== headBefore) await catchUp(client, headBefore);
      await applyEvents(client, canonical);
      await setMeta(client, 'position', String((events.at(-1) as RecordedEvent).position));
    },
    touchedSql(events) {
      return touched(events, (values) => `ARRAY[${values.map((v) => pg.escapeLiteral(v)).join(', ')}]::text[]`).text;
    },
    touchedQuery(events, extra) {
      return touched(events, (_, slot) => `$${slot}::text[]`, extra);
    },
    async applyRead(client, read, events, headBefore) {
      const canonical = canonicalOf(events);
      const writes: string[] = [];
      if (Number(read.meta ?? 0) !== headBefore) {
        // Behind (an append that committed without the tables): the rows read are not the ones to fold onto.
        await catchUp(client, headBefore);
        await applyEvents(client, canonical);
      } else await run({ ...readRows(read), ...statusReads(client), write: (rows) => void writes.push(...writeRowsSql(rows)) }, writeSteps(canonical, timetables));
      writes.push(positionSql((events.at(-1) as RecordedEvent).position));
      return writes.join(';\n');
    },
    aheadFunction: { name: appendRowsFunctionName(STAMP), signature: appendRowsFunctionSignature(deps.schema, STAMP), stamp: STAMP },
    async installAhead(client) {
      const rows = await q<{ table_name: string; column_name: string }>(
        client,
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2) ORDER BY table_name, ordinal_position`,
        [deps.schema, Object.keys(POSITION_COLUMNS)],
      );
      const table = (name: keyof typeof POSITION_COLUMNS, key: string) => {
        const columns = rows.filter((r) => r.table_name === name).map((r) => r.column_name);
        const positions = POSITION_COLUMNS[name];
        if (!positions.every((c) => columns.includes(c))) throw new Error(`${name} lacks a position column; this is a bug`);
        return { table: name, key, columns, positions };
      };
      await client.query(appendRowsFunctionSql(deps.schema, STAMP, { dates: table('rm_dates', KEYS.rm_dates), runs: table('rm_runs', KEYS.rm_runs), summaries: table('rm_pipelines', KEYS.rm_pipelines) }));
    },
    async foldAhead(read, events, headBefore) {
      if (events.length === 0 || Number(read.meta ?? 0) !== headBefore) return null;
      const first = (events[0] as RecordedEvent).position;
      const summaryHashes = new Map((read.summary_hashes ?? []).map(([pipeline, hash, position]) => [pipeline, { hash, position }]));
      const dateHashes = new Map((read.date_hashes ?? []).map(([pipeline, date, hash]) => [JSON.stringify([pipeline, date]), hash]));
      const runHashes = new Map((read.run_hashes ?? []).map(([pipeline, runId, hash]) => [JSON.stringify([pipeline, runId]), hash]));
      const ahead: FoldedAhead = { summaries: [], dates: [], runs: [], write: { dates: [], runs: [], summaries: [] } };
      let movable = true;
      const write = (rows: RowWrites): void => {
        const pipeline = rows.pipeline;
        // The last success and failure keep their run's start position inside a JSON text, which the function does not move.
        if ([rows.summary.lastSuccess, rows.summary.lastFailure].some((outcome) => outcome !== null && outcome.seq >= first)) movable = false;
        const stored = summaryHashes.get(pipeline);
        // Settled from date rows other than the touched ones: then no event of the pipeline may come between.
        ahead.summaries.push([pipeline, stored?.hash ?? null, rows.readOthers && stored !== undefined ? stored.position : null]);
        for (const date of rows.touched.dates) ahead.dates.push([pipeline, date, dateHashes.get(JSON.stringify([pipeline, date])) ?? null]);
        for (const runId of rows.touched.runs) ahead.runs.push([pipeline, runId, runHashes.get(JSON.stringify([pipeline, runId])) ?? null]);
        ahead.write.dates.push(...rows.dates);
        ahead.write.runs.push(...rows.runs);
        ahead.write.summaries.push(pipelineRow(rows.summary));
      };
      // Statuses besides the touched rows are read from the pool: no transaction is open ahead of the lock.
      await run({ ...readRows(read), ...statusReads(poolDb()), write }, writeSteps(canonicalOf(events), timetables));
      return movable ? ahead : null;
    },
    rebuildIn,
    rebuild,
    async ensure(progress) {
      try {
        const stamp = await stampOf(await Promise.resolve(poolDb()));
        if (stamp !== STAMP) {
          ready = false;
          await rebuild(progress);
          return true;
        }
        ready = true;
        const [head, position] = await Promise.all([deps.read<{ p: string | null }>(`SELECT max(position) AS p FROM ${s}.events`, []), deps.read<{ value: string }>(`SELECT value FROM ${s}.rm_meta WHERE key = 'position'`, [])]);
        if (Number(head[0]?.p ?? 0) !== Number(position[0]?.value ?? 0)) {
          await deps.transaction(async (client) => {
            await lock(client);
            const now = await headOf(client);
            if ((await metaPosition(client)) !== now) await catchUp(client, now);
          });
        }
        return true;
      } catch {
        // A role that may not create tables, or a ledger another release holds: the caller folds.
        return false;
      }
    },
    async summary(pipeline) {
      const rows = await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_pipelines WHERE pipeline = $1`, [pipeline]);
      return rows[0] ? summaryOfRow(pipelineRowOf(rows[0])) : null;
    },
    async summaries() {
      return (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_pipelines ORDER BY pipeline COLLATE "C"`, [])).map((r) => summaryOfRow(pipelineRowOf(r)));
    },
    async eachStatusSummary(visit) {
      const rows = await deps.read<{ packed: string }>(`SELECT ${STATUS_SUMMARY_SELECT_PG} AS packed FROM ${s}.rm_pipelines ORDER BY ${NAME_ORDER_SQL} COLLATE "C"`, []);
      for (const r of rows) visit(statusSummaryOfText(r.packed));
    },
    async definitions() {
      return (await deps.read<{ definition: string }>(`SELECT definition FROM ${s}.rm_pipelines WHERE definition IS NOT NULL ORDER BY pipeline COLLATE "C"`, [])).map((r) => JSON.parse(r.definition) as PipelineDefinition);
    },
    async pipelines() {
      return (await deps.read<{ pipeline: string }>(`SELECT pipeline FROM ${s}.rm_pipelines ORDER BY pipeline COLLATE "C"`, [])).map((r) => r.pipeline);
    },
    async auditEntries() {
      return Number((await deps.read<{ n: string | number }>(`SELECT coalesce(sum(audit_entries), 0) AS n FROM ${s}.rm_pipelines`, []))[0]?.n ?? 0);
    },
    async dates(pipeline, query: DateQuery = {}) {
      let rows: DateRow[];
      if (query.keys !== undefined) {
        rows = (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_dates WHERE pipeline = $1 AND date = ANY($2) ORDER BY logical_ms`, [pipeline, [...query.keys]])).map(dateRowOf);
      } else if (query.status === 'running') {
        // The keys the pipeline row lists as running, read in the same statement.
        const keys = `SELECT r->>'date' FROM ${s}.rm_pipelines p, jsonb_array_elements(p.running::jsonb) r WHERE p.pipeline = $1`;
        rows = (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_dates WHERE pipeline = $1 AND date IN (${keys}) ORDER BY logical_ms`, [pipeline])).map(dateRowOf);
      } else {
        rows = (
          await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_dates WHERE pipeline = $1 AND logical_ms BETWEEN $2 AND $3 ORDER BY logical_ms`, [
            pipeline,
            query.fromMs ?? Number.MIN_SAFE_INTEGER,
            query.toMs ?? Number.MAX_SAFE_INTEGER,
          ])
        ).map(dateRowOf);
        if (query.status !== undefined) rows = rows.filter((r) => r.status === query.status);
      }
      const payloads = query.light ? LIGHT_PAYLOADS : await payloadsForRead(rows, !query.withoutResults);
      return rows.map((row): DateState => dateOfRow(row, payloads));
    },
    async stripDates(pipeline, fromMs, toMs) {
      const rows = (await deps.read<Record<string, unknown>>(`SELECT ${STRIP_DATE_SELECT} FROM ${s}.rm_dates WHERE pipeline = $1 AND logical_ms BETWEEN $2 AND $3 ORDER BY logical_ms`, [pipeline, fromMs, toMs])).map((r) =>
        numbers<StripDateRow>(r, ['logical_ms', 'error_position']),
      );
      const payloads = await payloadsForRead(
        rows.map((r) => ({ result_position: null, error_position: r.error_position })),
        false,
      );
      return rows.map((row) => stripDateOfRow(row, payloads));
    },
    async runs(pipeline, query: RunQuery = {}) {
      const params: unknown[] = [pipeline, query.before ?? Number.MAX_SAFE_INTEGER];
      const byDate = query.date === undefined ? '' : ` AND date = $${params.push(query.date)}`;
      const limit = query.limit === undefined ? '' : ` LIMIT $${params.push(query.limit)}`;
      const rows = (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_runs WHERE pipeline = $1 AND seq < $2${byDate} ORDER BY seq DESC${limit}`, params)).map(runRowOf);
      const payloads = query.light ? LIGHT_PAYLOADS : await payloadsForRead(rows);
      return rows.reverse().map((row) => runOfRow(row, payloads));
    },
    async statuses(pipeline, afterMs, visit) {
      const rows = await deps.read<{ date: string; status: string; lease_expires_at: string; logical_ms: string | number }>(`SELECT date, status, lease_expires_at, logical_ms FROM ${s}.rm_dates WHERE pipeline = $1 AND logical_ms > $2`, [pipeline, afterMs]);
      for (const r of rows) visit(r.date, r.status, r.lease_expires_at, Number(r.logical_ms));
    },
    async run(runId, pipeline) {
      // Of the pipelines' runs of this id (or of `pipeline`'s), the one whose start came first, as SQLite answers: the
      // run's events in order (the events' index of runs), the first that is the start of a row of its pipeline.
      const params = pipeline === undefined ? [runId] : [runId, pipeline];
      const rows = (
        await deps.read<Record<string, unknown>>(
          `SELECT r.* FROM ${s}.events e ${RUN_OF_EVENT} WHERE e.run_id = $1${pipeline === undefined ? '' : ' AND e.pipeline = $2'} ORDER BY e.position LIMIT 1`,
          params,
        )
      ).map(runRowOf);
      const row = rows[0];
      return row === undefined ? null : { ...runOfRow(row, await payloadsForRead([row])), pipeline: row.pipeline, seq: row.seq };
    },
    async storedRows(pipeline): Promise<StoredRows> {
      const summary = await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_pipelines WHERE pipeline = $1`, [pipeline]);
      return {
        summary: summary[0] ? pipelineRowOf(summary[0]) : null,
        dates: (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_dates WHERE pipeline = $1`, [pipeline])).map(dateRowOf),
        runs: (await deps.read<Record<string, unknown>>(`SELECT * FROM ${s}.rm_runs WHERE pipeline = $1`, [pipeline])).map(runRowOf),
      };
    },
  };

  /** The pool, for the one look-up that must not run in a transaction (the stamp). */
  function poolDb(): Db {
    return { query: (sql: string, params: unknown[]) => deps.read(sql, params).then((rows) => ({ rows })) } as unknown as Db;
  }

  /** The payloads rows point to, in one statement; without `withResults`, only whole errors (metrics and outputs as stand-ins). */
  async function payloadsForRead(rows: ReadonlyArray<{ result_position: number | null; error_position: number | null }>, withResults = true): Promise<Payloads> {
    const positions = new Set<number>();
    for (const row of rows) {
      if (withResults && row.result_position !== null) positions.add(row.result_position);
      if (row.error_position !== null) positions.add(row.error_position);
    }
    const events = positions.size === 0 ? [] : await deps.read<EventRow>(`SELECT position, payload, prev_hash, hash FROM ${s}.events WHERE position = ANY($1::bigint[])`, [[...positions]]);
    const payloads = payloadsFrom(new Map(events.map((r) => [Number(r.position), decode(r)])));
    return withResults ? payloads : withoutResults(payloads);
  }
}

function decode(row: EventRow): RecordedEvent {
  return decodeStoredRow({ position: Number(row.position), payload: row.payload, prevHash: row.prev_hash, hash: row.hash });
}
