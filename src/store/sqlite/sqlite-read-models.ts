import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { isDone, type DateState, type DateStatus } from '../../../projections/date-state.js';
import { PROJECTION_VERSION } from '../../../projections/projection-version.js';
import { decodeStoredRow } from '../decode-stored-row.js';
import { completeThroughAfter, finishAll, foldRows, noRows, rowFolder, timetableCache, touchedKeys, type FoldedRows, type TouchedRows } from '../read-model-fold.js';
import { dateOfRow, pipelineRow, runOfRow, summaryOfRow, type DateRow, type Payloads, type PipelineRow, type RunRow } from '../read-model-rows.js';
import type { DateQuery, ReadModels, RebuildProgress, RebuildResult, RunQuery, StoredRows } from '../read-models.js';

/**
 * The version of these tables' shape; with `PROJECTION_VERSION` it makes the stamp in `rm_meta`, and a
 * ledger whose stamp differs has its read models rebuilt from the events.
 */
const READ_MODEL_SCHEMA_VERSION = 1;
const STAMP = `${PROJECTION_VERSION}.${READ_MODEL_SCHEMA_VERSION}`;

/**
 * The read-model tables (outside the hash chain, like the checkpoints): one row per pipeline, per date key
 * that had an event, and per run. Long values (metrics, outputs, long error texts) are not copied: a row
 * keeps the position of the event that holds them. `rm_meta` holds the stamp and the last position folded.
 */
const SQLITE_READ_MODEL_TABLES = `
CREATE TABLE rm_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE rm_pipelines (
  pipeline          TEXT PRIMARY KEY,
  definition        TEXT,
  schedule          TEXT,
  timezone          TEXT,
  defined_at        TEXT,
  version           INTEGER NOT NULL,
  watermark_date    TEXT,
  watermark_logical TEXT,
  complete_through  TEXT,
  counts            TEXT NOT NULL,
  last_success      TEXT,
  last_failure      TEXT,
  position          INTEGER NOT NULL
);
CREATE TABLE rm_dates (
  pipeline         TEXT    NOT NULL,
  date             TEXT    NOT NULL,
  status           TEXT    NOT NULL,
  run_id           TEXT    NOT NULL,
  attempt          INTEGER NOT NULL,
  attempts         INTEGER NOT NULL,
  run_type         TEXT    NOT NULL,
  logical_ms       INTEGER NOT NULL,
  logical_date     TEXT    NOT NULL,
  interval_start   TEXT,
  interval_end     TEXT,
  run_after        TEXT    NOT NULL,
  started_at       TEXT    NOT NULL,
  finished_at      TEXT,
  lease_expires_at TEXT    NOT NULL,
  error_excerpt    TEXT,
  error_code       TEXT,
  error_position   INTEGER,
  result_position  INTEGER,
  off_schedule     INTEGER NOT NULL,
  forced           INTEGER NOT NULL,
  cleared_at       TEXT,
  start_position   INTEGER NOT NULL,
  version          INTEGER NOT NULL,
  extra            TEXT,
  PRIMARY KEY (pipeline, date)
) WITHOUT ROWID;
CREATE TABLE rm_runs (
  run_id           TEXT    PRIMARY KEY,
  pipeline         TEXT    NOT NULL,
  seq              INTEGER NOT NULL,
  date             TEXT    NOT NULL,
  attempt          INTEGER NOT NULL,
  run_type         TEXT    NOT NULL,
  status           TEXT    NOT NULL,
  logical_date     TEXT    NOT NULL,
  interval_start   TEXT    NOT NULL,
  interval_end     TEXT    NOT NULL,
  started_at       TEXT    NOT NULL,
  finished_at      TEXT,
  lease_expires_at TEXT    NOT NULL,
  actor            TEXT    NOT NULL,
  forced           INTEGER NOT NULL,
  off_schedule     INTEGER NOT NULL,
  error_excerpt    TEXT,
  error_position   INTEGER,
  result_position  INTEGER,
  extra            TEXT
);
`;
/** The tables' secondary indexes: a rebuild creates them after its rows are in, one sorted pass each instead of an insert per row. */
const SQLITE_READ_MODEL_INDEXES = `
CREATE INDEX rm_dates_by_logical ON rm_dates (pipeline, logical_ms);
CREATE INDEX rm_dates_running ON rm_dates (pipeline) WHERE status = 'running';
CREATE INDEX rm_runs_by_pipeline ON rm_runs (pipeline, seq);
CREATE INDEX rm_runs_by_date ON rm_runs (pipeline, date, seq);
`;
export const SQLITE_READ_MODEL_SCHEMA = SQLITE_READ_MODEL_TABLES + SQLITE_READ_MODEL_INDEXES;

/** Creates the read-model tables of a new, empty ledger, stamped as built (inside its creating transaction). */
export function createSqliteReadModelTables(db: Database.Database): void {
  db.exec(SQLITE_READ_MODEL_SCHEMA);
  db.prepare(`INSERT INTO rm_meta (key, value) VALUES ('stamp', ?), ('position', '0')`).run(STAMP);
}

const TABLES = ['rm_meta', 'rm_pipelines', 'rm_dates', 'rm_runs'];
const DATE_COLUMNS = [
  'pipeline', 'date', 'status', 'run_id', 'attempt', 'attempts', 'run_type', 'logical_ms', 'logical_date', 'interval_start', 'interval_end', 'run_after',
  'started_at', 'finished_at', 'lease_expires_at', 'error_excerpt', 'error_code', 'error_position', 'result_position', 'off_schedule', 'forced',
  'cleared_at', 'start_position', 'version', 'extra',
] as const;
const RUN_COLUMNS = [
  'run_id', 'pipeline', 'seq', 'date', 'attempt', 'run_type', 'status', 'logical_date', 'interval_start', 'interval_end', 'started_at', 'finished_at',
  'lease_expires_at', 'actor', 'forced', 'off_schedule', 'error_excerpt', 'error_position', 'result_position', 'extra',
] as const;
const PIPELINE_COLUMNS = [
  'pipeline', 'definition', 'schedule', 'timezone', 'defined_at', 'version', 'watermark_date', 'watermark_logical', 'complete_through', 'counts',
  'last_success', 'last_failure', 'position',
] as const;

/**
 * A stand-in for metrics the writer does not read: the fold only carries them along, and a row only
 * needs to know that there are some (its `result_position` stays), so appends never parse old payloads.
 */
const KEPT_METRICS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const KEPT_OUTPUTS: string[] = Object.freeze([]) as unknown as string[];
/** A light read's long values: stand-ins for metrics, excerpts for errors (its callers read states and outcomes only). */
const LIGHT: Payloads = { result: () => ({ metrics: KEPT_METRICS, outputs: KEPT_OUTPUTS }), error: (_position, _kind, excerpt) => excerpt };

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
}

type Row = Record<string, unknown>;
function values(row: object, columns: readonly string[]): unknown[] {
  return columns.map((c) => (row as Row)[c]);
}

/** The SQLite read models and their table writer; `apply` runs inside the append's own transaction. */
export type SqliteReadModels = ReadModels & {
  /** True when the tables exist with this build's stamp, so appends keep them. */
  readonly ready: boolean;
  /** The table writer: folds freshly appended events into the rows, inside the caller's transaction. */
  apply(events: readonly RecordedEvent[], headBefore: number): void;
  /** Rebuilds inside the caller's transaction (import). */
  rebuildInTransaction(progress?: RebuildProgress): RebuildResult;
};

/**
 * The read models of a SQLite ledger.
 *
 * @example
 * const readModels = sqliteReadModels(db);
 * readModels.apply(events, headBefore); // inside the append transaction
 */
export function sqliteReadModels(db: Database.Database): SqliteReadModels {
  const hasTables = (): boolean => (db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => '?').join(', ')})`).pluck().get(...TABLES) as number) === TABLES.length;
  const stampNow = (): string | null => (hasTables() ? ((db.prepare(`SELECT value FROM rm_meta WHERE key = 'stamp'`).pluck().get() as string | undefined) ?? null) : null);
  let ready = stampNow() === STAMP;
  let st: ReturnType<typeof prepare> | null = ready ? prepare(db) : null;
  const timetables = timetableCache();

  const statements = (): ReturnType<typeof prepare> => {
    st ??= prepare(db);
    return st;
  };

  const payloadsOf = (s: ReturnType<typeof prepare>): Payloads => {
    const eventAt = (position: number): RecordedEvent => {
      const row = s.eventAt.get(position) as { position: number; payload: string; prev_hash: string; hash: string };
      return decodeStoredRow({ position: row.position, payload: row.payload, prevHash: row.prev_hash, hash: row.hash });
    };
    return {
      result(position) {
        const event = eventAt(position);
        return event.type === 'RunSucceeded' ? { metrics: event.data.metrics, outputs: event.data.outputs } : { metrics: null, outputs: [] };
      },
      error(position, kind) {
        const event = eventAt(position);
        if (event.type === 'RunFailed') return event.data.error;
        if (event.type === 'RunInterrupted') return kind === 'date' ? event.data.message : `interrupted by ${event.data.by}: ${event.data.message}`;
        return '';
      },
    };
  };

  /** The rows the events touch, as the fold's state; metrics kept as stand-ins, long errors read in full. */
  const loadTouched = (s: ReturnType<typeof prepare>, pipeline: string, events: readonly RecordedEvent[]): TouchedRows => {
    const payloads = payloadsOf(s);
    const writerPayloads: Payloads = { result: () => ({ metrics: KEPT_METRICS, outputs: KEPT_OUTPUTS }), error: payloads.error };
    const summaryRow = s.summary.get(pipeline) as PipelineRow | undefined;
    const touched: TouchedRows = { summary: summaryRow === undefined ? null : summaryOfRow(summaryRow), dates: new Map(), runs: new Map() };
    const { dates, runs } = touchedKeys(events);
    for (const key of dates) {
      const row = s.date.get(pipeline, key) as DateRow | undefined;
      if (row) touched.dates.set(key, { state: dateOfRow(row, writerPayloads), refs: { result: row.result_position, error: row.error_position } });
    }
    for (const runId of runs) {
      const row = s.run.get(runId) as RunRow | undefined;
      if (row && row.pipeline === pipeline) touched.runs.set(runId, { run: runOfRow(row, writerPayloads), refs: { result: row.result_position, error: row.error_position }, seq: row.seq });
    }
    return touched;
  };

  const write = (s: ReturnType<typeof prepare>, folded: FoldedRows): void => {
    for (const row of folded.dates) s.putDate.run(values(row, DATE_COLUMNS));
    for (const row of folded.runs) s.putRun.run(values(row, RUN_COLUMNS));
    const pipeline = folded.summary.pipeline;
    folded.summary.completeThrough = completeThroughAfter(
      folded.summary,
      folded.completeThrough,
      (key) => {
        const date = folded.state.dates.get(key);
        return date !== undefined ? isDone(date.status) : isDone(s.status.get(pipeline, key) as DateStatus | undefined);
      },
      timetables(folded.summary.definition),
    );
    s.putPipeline.run(values(pipelineRow(folded.summary), PIPELINE_COLUMNS));
  };

  const decodeRows = (rows: Array<{ position: number; payload: string; prev_hash: string; hash: string }>): RecordedEvent[] =>
    rows.map((r) => decodeStoredRow({ position: r.position, payload: r.payload, prevHash: r.prev_hash, hash: r.hash }));

  /** Folds `events` (in position order, any pipelines) into the rows. */
  const applyEvents = (s: ReturnType<typeof prepare>, events: readonly RecordedEvent[]): void => {
    const byPipeline = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      const list = byPipeline.get(event.data.pipeline);
      if (list) list.push(event);
      else byPipeline.set(event.data.pipeline, [event]);
    }
    for (const [pipeline, list] of byPipeline) write(s, foldRows(pipeline, loadTouched(s, pipeline, list), list));
  };

  /** Folds every event after the last one the tables took in (another release's appends). */
  const catchUp = (s: ReturnType<typeof prepare>, head: number): void => {
    let from = Number(s.meta.get('position') ?? 0) + 1;
    while (from <= head) {
      const rows = s.eventsFrom.all(from, head) as Array<{ position: number; payload: string; prev_hash: string; hash: string }>;
      if (rows.length === 0) break;
      applyEvents(s, decodeRows(rows));
      from = (rows.at(-1) as { position: number }).position + 1;
    }
    s.putMeta.run('position', String(head));
  };

  const rebuildInTransaction = (progress?: RebuildProgress): RebuildResult => {
    for (const table of TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec(SQLITE_READ_MODEL_TABLES);
    const s = prepare(db);
    const total = (db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck().get() as number) ?? 0;
    const pipelines = db.prepare('SELECT DISTINCT pipeline FROM events ORDER BY pipeline').pluck().all() as string[];
    const result: RebuildResult = { pipelines: 0, events: 0, dates: 0, runs: 0 };
    progress?.(0, total);
    for (const pipeline of pipelines) {
      const folder = rowFolder(pipeline, noRows());
      let from = 1;
      for (;;) {
        const rows = s.pipelineEvents.all(pipeline, from) as Array<[position: number, payload: string]>;
        if (rows.length === 0) break;
        // The fold never reads an event's chain link (verify does), so the rebuild leaves the two hashes unread.
        folder.add(rows.map((r) => decodeStoredRow({ position: r[0], payload: r[1], prevHash: '', hash: '' })));
        result.events += rows.length;
        from = (rows.at(-1) as [number, ...unknown[]])[0] + 1;
        progress?.(result.events, total);
      }
      const folded = finishAll(folder);
      for (const row of folded.dates) s.putDate.run(values(row, DATE_COLUMNS));
      for (const row of folded.runs) s.putRun.run(values(row, RUN_COLUMNS));
      s.putPipeline.run(values(pipelineRow(folded.summary), PIPELINE_COLUMNS));
      result.pipelines += 1;
      result.dates += folded.dates.length;
      result.runs += folded.runs.length;
    }
    db.exec(SQLITE_READ_MODEL_INDEXES);
    // SQLite prepares these again after the schema change, so their queries plan with the new indexes.
    st = s;
    s.putMeta.run('stamp', STAMP);
    s.putMeta.run('position', String(total));
    ready = true;
    return result;
  };

  const rebuild = async (progress?: RebuildProgress): Promise<RebuildResult> => db.transaction(() => rebuildInTransaction(progress)).immediate();

  const readStatements = (): ReturnType<typeof prepare> => {
    if (!ready) throw new Error('read models are not built; call ensure() first');
    return statements();
  };

  return {
    get ready() {
      return ready;
    },
    apply(events, headBefore) {
      if (!ready || events.length === 0) return;
      const s = statements();
      if (Number(s.meta.get('position') ?? 0) !== headBefore) catchUp(s, headBefore);
      applyEvents(s, events);
      s.putMeta.run('position', String((events.at(-1) as RecordedEvent).position));
    },
    rebuildInTransaction,
    rebuild,
    async ensure(progress) {
      try {
        if (!ready || stampNow() !== STAMP) {
          await rebuild(progress);
          return true;
        }
        const s = statements();
        const head = (s.head.get() as number | undefined) ?? 0;
        if (Number(s.meta.get('position') ?? 0) !== head) {
          db.transaction(() => {
            const now = (s.head.get() as number | undefined) ?? 0;
            if (Number(s.meta.get('position') ?? 0) !== now) catchUp(s, now);
          }).immediate();
        }
        return true;
      } catch {
        // A read-only file or a locked one: the tables cannot be made right from here; the caller folds.
        return false;
      }
    },
    async summary(pipeline) {
      const row = readStatements().summary.get(pipeline) as PipelineRow | undefined;
      return row === undefined ? null : summaryOfRow(row);
    },
    async summaries() {
      return (readStatements().summaries.all() as PipelineRow[]).map(summaryOfRow);
    },
    async pipelines() {
      return readStatements().pipelineNames.all() as string[];
    },
    async dates(pipeline, query: DateQuery = {}) {
      const s = readStatements();
      const payloads = query.light ? LIGHT : payloadsOf(s);
      let rows: DateRow[];
      if (query.keys !== undefined) {
        rows = query.keys.map((key) => s.date.get(pipeline, key) as DateRow | undefined).filter((r): r is DateRow => r !== undefined);
        rows.sort((a, b) => a.logical_ms - b.logical_ms);
      } else if (query.status === 'running') {
        rows = s.runningDates.all(pipeline) as DateRow[];
      } else {
        rows = s.datesBetween.all(pipeline, query.fromMs ?? Number.MIN_SAFE_INTEGER, query.toMs ?? Number.MAX_SAFE_INTEGER) as DateRow[];
        if (query.status !== undefined) rows = rows.filter((r) => r.status === query.status);
      }
      return rows.map((row): DateState => dateOfRow(row, payloads));
    },
    async runs(pipeline, query: RunQuery = {}) {
      const s = readStatements();
      const payloads = query.light ? LIGHT : payloadsOf(s);
      const before = query.before ?? Number.MAX_SAFE_INTEGER;
      const limit = query.limit ?? -1;
      const rows = (query.date === undefined ? s.runsBefore.all(pipeline, before, limit) : s.dateRunsBefore.all(pipeline, query.date, before, limit)) as RunRow[];
      // Paged from the newest back, listed oldest first.
      return rows.reverse().map((row) => runOfRow(row, payloads));
    },
    async statuses(pipeline, afterMs) {
      return readStatements().statuses.all(pipeline, afterMs) as Array<[string, string, string]>;
    },
    async run(runId) {
      const s = readStatements();
      const row = s.run.get(runId) as RunRow | undefined;
      return row === undefined ? null : { ...runOfRow(row, payloadsOf(s)), pipeline: row.pipeline, seq: row.seq };
    },
    async storedRows(pipeline): Promise<StoredRows> {
      const s = readStatements();
      return {
        summary: (s.summary.get(pipeline) as PipelineRow | undefined) ?? null,
        dates: s.allDates.all(pipeline) as DateRow[],
        runs: s.allRuns.all(pipeline) as RunRow[],
      };
    },
  };
}

function prepare(db: Database.Database) {
  return {
    meta: db.prepare('SELECT value FROM rm_meta WHERE key = ?').pluck(),
    putMeta: db.prepare('INSERT OR REPLACE INTO rm_meta (key, value) VALUES (?, ?)'),
    head: db.prepare('SELECT max(position) FROM events').pluck(),
    summary: db.prepare('SELECT * FROM rm_pipelines WHERE pipeline = ?'),
    summaries: db.prepare('SELECT * FROM rm_pipelines ORDER BY pipeline'),
    pipelineNames: db.prepare('SELECT pipeline FROM rm_pipelines ORDER BY pipeline').pluck(),
    date: db.prepare('SELECT * FROM rm_dates WHERE pipeline = ? AND date = ?'),
    status: db.prepare('SELECT status FROM rm_dates WHERE pipeline = ? AND date = ?').pluck(),
    datesBetween: db.prepare('SELECT * FROM rm_dates WHERE pipeline = ? AND logical_ms BETWEEN ? AND ? ORDER BY logical_ms'),
    statuses: db.prepare('SELECT date, status, lease_expires_at FROM rm_dates WHERE pipeline = ? AND logical_ms > ?').raw(true),
    runningDates: db.prepare(`SELECT * FROM rm_dates WHERE pipeline = ? AND status = 'running' ORDER BY logical_ms`),
    allDates: db.prepare('SELECT * FROM rm_dates WHERE pipeline = ? ORDER BY date'),
    run: db.prepare('SELECT * FROM rm_runs WHERE run_id = ?'),
    runsBefore: db.prepare('SELECT * FROM rm_runs WHERE pipeline = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    dateRunsBefore: db.prepare('SELECT * FROM rm_runs WHERE pipeline = ? AND date = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    allRuns: db.prepare('SELECT * FROM rm_runs WHERE pipeline = ? ORDER BY run_id'),
    putDate: db.prepare(insertSql('rm_dates', DATE_COLUMNS)),
    putRun: db.prepare(insertSql('rm_runs', RUN_COLUMNS)),
    putPipeline: db.prepare(insertSql('rm_pipelines', PIPELINE_COLUMNS)),
    eventAt: db.prepare('SELECT position, payload, prev_hash, hash FROM events WHERE position = ?'),
    eventsFrom: db.prepare('SELECT position, payload, prev_hash, hash FROM events WHERE position >= ? AND position <= ? ORDER BY position LIMIT 1000'),
    pipelineEvents: db.prepare('SELECT position, payload FROM events WHERE pipeline = ? AND position >= ? ORDER BY position LIMIT 1000').raw(true),
  };
}
