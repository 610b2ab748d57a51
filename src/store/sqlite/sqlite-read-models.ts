import type Database from 'better-sqlite3';
import { preparedOnUse } from './prepared-on-use.js';
import type { PipelineDefinition } from '../../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { isDone, type DateState, type DateStatus } from '../../../projections/date-state.js';
import { decodeStoredRow } from '../decode-stored-row.js';
import { bulkInsert } from './bulk-insert.js';
import { timetableCache } from '../read-model-fold.js';
import { catchUpSteps, rebuildSteps, runSync, writeSteps, type WriterPort } from '../read-model-writer.js';
import { dateOfRow, LIGHT_PAYLOADS, NAME_ORDER_SQL, payloadsOfEvents, pipelineRow, runOfRow, statusSummaryOfText, statusSummarySelect, STRIP_DATE_SELECT, stripDateOfRow, summaryOfRow, withoutResults, type DateRow, type Payloads, type PipelineRow, type RunRow } from '../read-model-rows.js';
import type { PipelineSummary, RunningDate } from '../../../projections/pipeline-summary.js';
import type { DateQuery, ReadModels, RebuildProgress, RebuildResult, RunQuery, StoredRows } from '../read-models.js';
import { withBulkPageCache } from './page-cache.js';
import { columnNames, READ_MODEL_STAMP, READ_MODEL_TABLES, RM_DATES, RM_META, RM_PIPELINES, RM_RUNS, rowCopy, rowOfValues, rowValues } from '../read-model-schema.js';
import { sqliteReadModelSql, sqliteUpsertSql } from './sqlite-read-model-sql.js';

const { tables: SQLITE_READ_MODEL_TABLES, indexes: SQLITE_READ_MODEL_INDEXES } = sqliteReadModelSql();

/** Creates the read-model tables of a new, empty ledger, stamped as built (inside its creating transaction). */
export function createSqliteReadModelTables(db: Database.Database): void {
  db.exec(SQLITE_READ_MODEL_TABLES + SQLITE_READ_MODEL_INDEXES);
  db.prepare(`INSERT INTO rm_meta (key, value) VALUES ('stamp', ?)`).run(STAMP);
}

const STAMP = READ_MODEL_STAMP;
const TABLES = READ_MODEL_TABLES.map((t) => t.name);
const DATE_COLUMNS = columnNames(RM_DATES);
const RUN_COLUMNS = columnNames(RM_RUNS);
const PIPELINE_COLUMNS = columnNames(RM_PIPELINES);

/**
 * A summary row as the table writer stored it, with its definition parsed, and (when this connection wrote it) the
 * summary it was encoded from: the next fold starts from that one and decodes nothing (the fold never changes the
 * summary it is handed; it makes a new one).
 */
type WrittenSummary = { row: PipelineRow; definition: PipelineDefinition | null; summary?: PipelineSummary };
/** How many pipelines' written rows a connection keeps (a few hundred bytes each). */
const KEPT_SUMMARIES = 1024;
/** How many date rows and run rows a connection keeps as it wrote them (a few hundred bytes each). */
const KEPT_ROWS = 2048;
/**
 * The rows this connection's appends wrote, as they were bound: the summaries, and the date rows (by pipeline and
 * key, see `rowKey`) and run rows (by pipeline and run id: a run id is unique in a pipeline, and two pipelines' runs
 * may share one when two starts race past the check outside the append). Each is the row as stored while `Written`
 * holds (see `written` below).
 */
type Written = { summaries: Map<string, WrittenSummary>; dates: Map<string, DateRow>; runs: Map<string, RunRow> };
function noneWritten(): Written {
  return { summaries: new Map(), dates: new Map(), runs: new Map() };
}
/** A row's key in `Written.dates` and `Written.runs`: the pipeline and the date key or run id, joined by a NUL (none holds one). */
function rowKey(pipeline: string, key: string): string {
  return `${pipeline}\0${key}`;
}
/** A row's values in its table's column order, for the upserts' positional parameters (see `rowValues`). */
const dateRowValues = rowValues(RM_DATES);
const runRowValues = rowValues(RM_RUNS);
const pipelineRowValues = rowValues(RM_PIPELINES);
/**
 * Rows are selected as values (raw mode) and built from them in column order (see `rowOfValues`): the driver names
 * each column of a row object through V8 one by one, and reading back the summary, date and run rows an append
 * touches that way was an eighth of a library start + succeed's instructions.
 */
const dateRowOfValues = rowOfValues(RM_DATES);
const runRowOfValues = rowOfValues(RM_RUNS);
const pipelineRowOfValues = rowOfValues(RM_PIPELINES);

/** The SQLite read models and their table writer; `apply` runs inside the append's own transaction. */
export type SqliteReadModels = ReadModels & {
  /** True when the tables exist with this build's stamp, so appends keep them. */
  readonly ready: boolean;
  /** The table writer: folds freshly appended events into the rows, inside the caller's transaction. */
  apply(events: readonly RecordedEvent[], headBefore: number): void;
  /** Forgets the rows the last append wrote: its transaction did not commit (the store calls this when an append throws). */
  forget(): void;
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
  // Prepared once: `ensure` runs before every write's decision and every query, and preparing these two
  // each time was a tenth of a library start + succeed. The stamp's statement can only be prepared once
  // rm_meta exists; a statement kept across a rebuild's DROP and CREATE is re-prepared by SQLite itself.
  const countTables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => '?').join(', ')})`).pluck();
  let readStamp: Database.Statement | null = null;
  const hasTables = (): boolean => (countTables.get(...TABLES) as number) === TABLES.length;
  const stampNow = (): string | null => {
    if (!hasTables()) return null;
    readStamp ??= db.prepare(`SELECT value FROM rm_meta WHERE key = 'stamp'`).pluck();
    return (readStamp.get() as string | undefined) ?? null;
  };
  let ready = stampNow() === STAMP;
  let st: ReturnType<typeof prepare> | null = ready ? prepare(db) : null;
  // Changes only when another connection commits: while it stays as it was at the last full check, the tables are as
  // that check left them (this connection's appends keep them right in their own transaction), so a read checks nothing.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let checkedVersion: number | null = null;
  const timetables = timetableCache();
  /**
   * What this connection's last append left in the tables: the position folded through, and the summary rows it wrote
   * (as written, with their definitions parsed), so the next append reads neither back. It holds while no other
   * connection has committed since (`data_version` as it was) and the events still end where that append ended
   * (a rolled-back append leaves them short of it); anything else drops it and reads the tables. The date and run
   * rows it wrote spare the next append, and a read while no other connection committed, reading them back: a
   * library's start + succeed read back the rows the start had just written.
   */
  let written: ({ version: number; position: number } & Written) | null = null;

  /** The rows this connection wrote, while no other connection has committed since (null: read the tables). */
  const writtenNow = (): Written | null => (written !== null && written.version === (dataVersion.get() as number) ? written : null);

  const statements = (): ReturnType<typeof prepare> => {
    st ??= prepare(db);
    return st;
  };

  /**
   * The long values rows point to, read from their events: from `joined` (the result payloads a read
   * selected with its rows, in the same statement) when there, else one event at a time.
   */
  const payloadsOf = (s: ReturnType<typeof prepare>, joined?: ReadonlyMap<number, string>): Payloads =>
    payloadsOfEvents((position) => {
      const payload = joined?.get(position);
      // The chain link is not needed to read a value: the payload alone was selected beside the row.
      if (payload !== undefined) return decodeStoredRow({ position, payload, prevHash: '', hash: '' });
      const row = s.eventAt.get(position) as { position: number; payload: string; prev_hash: string; hash: string } | undefined;
      return row === undefined ? undefined : decodeStoredRow({ position: row.position, payload: row.payload, prevHash: row.prev_hash, hash: row.hash });
    });

  /**
   * The writer's dialect: rows read by key with prepared statements (the ones `known` holds as stored are not
   * read again), written with upserts, synchronously inside the append's transaction; `known` takes the rows written.
   */
  const writerPort = (s: ReturnType<typeof prepare>, known: Written): WriterPort<'sync'> => {
    /** The summary row the writer was last handed: the write encodes its definition's JSON again only when the fold replaced it. */
    let stored: WrittenSummary | undefined;
    return {
      summary(pipeline) {
        stored = known.summaries.get(pipeline);
        if (stored === undefined) {
          const cells = s.summary.get(pipeline) as unknown[] | undefined;
          if (cells === undefined) return null;
          const row = pipelineRowOfValues(cells);
          stored = { row, definition: row.definition === null ? null : (JSON.parse(row.definition) as PipelineDefinition) };
        }
        return stored.summary ?? summaryOfRow(stored.row, stored.definition);
      },
      rows(pipeline, dates, runs) {
        const dateRows: DateRow[] = [];
        const runRows: RunRow[] = [];
        for (const key of dates) {
          const row = known.dates.get(rowKey(pipeline, key));
          const cells = row === undefined ? (s.date.get(pipeline, key) as unknown[] | undefined) : undefined;
          if (row !== undefined) dateRows.push(row);
          else if (cells !== undefined) dateRows.push(dateRowOfValues(cells));
        }
        for (const runId of runs) {
          const row = known.runs.get(rowKey(pipeline, runId));
          const cells = row === undefined ? (s.runOfPipeline.get(runId, pipeline) as unknown[] | undefined) : undefined;
          if (row !== undefined) runRows.push(row);
          else if (cells !== undefined) runRows.push(runRowOfValues(cells));
        }
        return { dates: dateRows, runs: runRows, payloads: payloadsOf(s) };
      },
      done(pipeline, keys) {
        const done = new Set<string>();
        for (const key of keys) if (isDone(s.status.get(pipeline, key) as DateStatus | undefined)) done.add(key);
        return done;
      },
      slots(pipeline) {
        return (s.slotKeys.all(pipeline) as Array<[date: string, status: DateStatus, logicalDate: string]>).map(([date, status, logicalDate]) => ({ date, status, logicalDate }));
      },
      write(w) {
        const summaries = known.summaries;
        const pipeline = w.pipeline;
        if (w.positionOnly && stored !== undefined && w.before !== null) {
          // Events that changed no date, run, definition or watermark (a heartbeat of a run the ledger does not hold): the
          // stored row is right but for its position, and only that column is set, with no row encoded or bound again.
          const row = rowAt(stored.row, w.summary.position);
          s.putPosition.run(row.position, pipeline);
          summaries.set(pipeline, { row, definition: stored.definition, summary: summaryAt(w.before, row.position) });
          return;
        }
        // A stored row whose logical date stays is updated without setting it, so its index entry is left alone (a WAL page).
        if (known.dates.size + w.dates.length > KEPT_ROWS) known.dates.clear();
        if (known.runs.size + w.runs.length > KEPT_ROWS) known.runs.clear();
        for (const row of w.dates) {
          (w.storedLogical.get(row.date) === row.logical_ms ? s.putDateSameLogical : s.putDate).run(dateRowValues(row));
          known.dates.set(rowKey(pipeline, row.date), row);
        }
        for (const row of w.runs) {
          s.putRun.run(runRowValues(row));
          known.runs.set(rowKey(pipeline, row.run_id), row);
        }
        // The definition's JSON is the row's own while the fold kept the definition it was handed.
        const definition = w.summary.definition;
        const row = pipelineRow(w.summary, stored !== undefined && definition === stored.definition ? stored.row.definition : undefined);
        s.putPipeline.run(pipelineRowValues(row));
        if (summaries.size >= KEPT_SUMMARIES && !summaries.has(pipeline)) summaries.clear();
        summaries.set(pipeline, { row, definition, summary: w.summary });
      },
    };
  };

  const decodeRows = (rows: Array<{ position: number; payload: string; prev_hash: string; hash: string }>): RecordedEvent[] =>
    rows.map((r) => decodeStoredRow({ position: r.position, payload: r.payload, prevHash: r.prev_hash, hash: r.hash }));

  /** Folds `events` (in position order, any pipelines) into the rows; `known` are rows known as stored, and take the ones written. */
  const applyEvents = (s: ReturnType<typeof prepare>, events: readonly RecordedEvent[], known: Written): void => runSync(writerPort(s, known), writeSteps(events, timetables));

  /**
   * True when every event up to `head` is folded. Every append that keeps the tables first folds whatever is not
   * (another release's appends), so the events not folded are always the last ones: all are folded exactly when the
   * event at the head is, that is when its pipeline's row has reached it.
   */
  const foldedTo = (s: ReturnType<typeof prepare>, head: number): boolean => head === 0 || s.foldedAt.get(head) === head;

  /** Folds every event after the last one the tables took in (another release's appends), up to `head`. */
  const catchUp = (s: ReturnType<typeof prepare>, head: number): void => {
    written = null;
    const events = (from: number, to: number) => decodeRows(s.eventsFrom.all(from, to) as Array<{ position: number; payload: string; prev_hash: string; hash: string }>);
    runSync({ ...writerPort(s, noneWritten()), events }, catchUpSteps((s.foldedThrough.get() as number) + 1, head, timetables));
  };

  const rebuildInTransaction = (progress?: RebuildProgress): RebuildResult => {
    written = null;
    for (const table of TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec(SQLITE_READ_MODEL_TABLES);
    const s = prepare(db);
    const total = (db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck().get() as number) ?? 0;
    const pipelines = db.prepare('SELECT DISTINCT pipeline FROM events ORDER BY pipeline').pluck().all() as string[];
    // The tables were just created empty: plain inserts, many rows a statement (an upsert per row looked each key up first).
    const dateRows = bulkInsert<DateRow>(db, 'rm_dates', DATE_COLUMNS);
    const runRows = bulkInsert<RunRow>(db, 'rm_runs', RUN_COLUMNS);
    const result = runSync(
      {
        // The fold never reads an event's chain link (verify does), so the rebuild leaves the two hashes unread.
        pipelineEvents: (pipeline, from) => (s.pipelineEvents.all(pipeline, from) as Array<[position: number, payload: string]>).map((r) => decodeStoredRow({ position: r[0], payload: r[1], prevHash: '', hash: '' })),
        insert(folded) {
          for (const row of folded.dates) dateRows.add(row);
          for (const row of folded.runs) runRows.add(row);
          s.putPipeline.run(pipelineRowValues(pipelineRow(folded.summary)));
        },
      },
      rebuildSteps(pipelines, total, progress),
    );
    dateRows.flush();
    runRows.flush();
    db.exec(SQLITE_READ_MODEL_INDEXES);
    // SQLite prepares these again after the schema change, so their queries plan with the new indexes.
    st = s;
    s.putMeta.run('stamp', STAMP);
    ready = true;
    return result;
  };

  // In the bulk page cache, as an import: the rows it writes and the indexes it sorts stay in memory instead of going to the WAL and back.
  const rebuild = async (progress?: RebuildProgress): Promise<RebuildResult> => withBulkPageCache(db, () => db.transaction(() => rebuildInTransaction(progress)).immediate());

  const readStatements = (): ReturnType<typeof prepare> => {
    if (!ready) throw new Error('read models are not built; call ensure() first');
    return statements();
  };

  /** The keys of the dates the pipeline's row lists as running. */
  const runningKeys = (s: ReturnType<typeof prepare>, pipeline: string): string[] => {
    const kept = writtenNow()?.summaries.get(pipeline);
    const cells = kept === undefined ? (s.summary.get(pipeline) as unknown[] | undefined) : undefined;
    const running = kept?.row.running ?? (cells === undefined ? '[]' : pipelineRowOfValues(cells).running);
    return (JSON.parse(running) as RunningDate[]).map((date) => date.date);
  };

  return {
    get ready() {
      return ready;
    },
    apply(events, headBefore) {
      // Dropped until this append has written everything: one that fails halfway leaves nothing to trust.
      const kept = written;
      written = null;
      if (!ready || events.length === 0) return;
      const s = statements();
      const version = dataVersion.get() as number;
      let known: Written;
      if (kept !== null && kept.version === version && kept.position === headBefore) known = kept;
      else {
        known = noneWritten();
        if (!foldedTo(s, headBefore)) catchUp(s, headBefore);
      }
      applyEvents(s, events, known);
      written = { version, position: (events.at(-1) as RecordedEvent).position, summaries: known.summaries, dates: known.dates, runs: known.runs };
    },
    forget() {
      written = null;
    },
    rebuildInTransaction,
    rebuild,
    async ensure(progress) {
      try {
        // Read before the checks: a commit by another connection while they run makes the next call check again.
        const version = dataVersion.get() as number;
        if (ready && version === checkedVersion) return true;
        checkedVersion = null;
        // Another connection committed (or this is the first check): the common case in one statement (one read
        // transaction), the tables stamped by this build and caught up with the head. Anything else, or tables
        // gone since (the statement then fails), takes the long way below.
        if (ready && st !== null) {
          try {
            const [stamp, head, folded] = st.upToDate.get() as [string | null, number | null, number | null];
            if (stamp === STAMP && (head === null || folded === head)) {
              checkedVersion = version;
              return true;
            }
          } catch {
            // Dropped by hand or by another program: checked again below.
          }
        }
        if (!ready || stampNow() !== STAMP) {
          await rebuild(progress);
          checkedVersion = version;
          return true;
        }
        const s = statements();
        const head = (s.head.get() as number | undefined) ?? 0;
        if (!foldedTo(s, head)) {
          db.transaction(() => {
            const now = (s.head.get() as number | undefined) ?? 0;
            if (!foldedTo(s, now)) catchUp(s, now);
          }).immediate();
        }
        checkedVersion = version;
        return true;
      } catch {
        // A read-only file or a locked one: the tables cannot be made right from here; the caller folds.
        return false;
      }
    },
    async summary(pipeline) {
      const s = readStatements();
      // The row this connection wrote, decoded afresh (its definition too: a caller may change what it is handed).
      const kept = writtenNow()?.summaries.get(pipeline);
      if (kept !== undefined) return summaryOfRow(kept.row);
      const cells = s.summary.get(pipeline) as unknown[] | undefined;
      return cells === undefined ? null : summaryOfRow(pipelineRowOfValues(cells));
    },
    writtenSummary(pipeline) {
      const kept = writtenNow()?.summaries.get(pipeline);
      return kept === undefined ? undefined : (kept.summary ?? summaryOfRow(kept.row, kept.definition));
    },
    async summaries() {
      return (readStatements().summaries.all() as unknown[][]).map((cells) => summaryOfRow(pipelineRowOfValues(cells)));
    },
    async eachStatusSummary(visit) {
      // All the rows' texts in one call: iterate()'s step per row (a call into the driver and an iterator result
      // each) cost a cold `status` over 1,000 pipelines more than holding their texts at once.
      const all = readStatements().statusSummaries.all() as Array<string | undefined>;
      for (let i = 0; i < all.length; i++) {
        const text = all[i] as string;
        // A visited row's text dies here, not copied by each young-generation collection until the loop ends.
        all[i] = undefined;
        visit(statusSummaryOfText(text));
      }
    },
    async definitions() {
      return (readStatements().definitions.all() as string[]).map((text) => JSON.parse(text) as PipelineDefinition);
    },
    async pipelines() {
      return readStatements().pipelineNames.all() as string[];
    },
    async auditEntries() {
      return Number(readStatements().auditEntries.get());
    },
    async dates(pipeline, query: DateQuery = {}) {
      const s = readStatements();
      let rows: Array<DateRow & { result_payload?: string | null }>;
      // The running dates are the ones the pipeline row lists: their rows by key (no index of running dates is kept).
      const keys = query.keys ?? (query.status === 'running' ? runningKeys(s, pipeline) : undefined);
      if (keys !== undefined) {
        rows = [];
        const known = keys.length === 0 ? null : writtenNow();
        for (const key of keys) {
          const row = known?.dates.get(rowKey(pipeline, key));
          if (row !== undefined) {
            rows.push(row);
            continue;
          }
          const cells = s.date.get(pipeline, key) as unknown[] | undefined;
          if (cells !== undefined) rows.push(dateRowOfValues(cells));
        }
        rows.sort((a, b) => a.logical_ms - b.logical_ms);
      } else {
        const [fromMs, toMs] = [query.fromMs ?? Number.MIN_SAFE_INTEGER, query.toMs ?? Number.MAX_SAFE_INTEGER];
        // A whole read joins each row's result event in the same statement: one lookup per date from JavaScript cost more than the rows.
        rows = query.light || query.withoutResults ? (s.datesBetween.all(pipeline, fromMs, toMs) as unknown[][]).map(dateRowOfValues) : (s.datesWithResults.all(pipeline, fromMs, toMs) as unknown[][]).map(dateRowWithResult);
        if (query.status !== undefined) rows = rows.filter((r) => r.status === query.status);
      }
      let payloads = LIGHT_PAYLOADS;
      if (query.withoutResults && !query.light) payloads = withoutResults(payloadsOf(s));
      else if (!query.light) {
        const joined = new Map<number, string>();
        for (const row of rows) if (row.result_position !== null && typeof row.result_payload === 'string') joined.set(row.result_position, row.result_payload);
        payloads = payloadsOf(s, joined);
      }
      return rows.map((row): DateState => dateOfRow(row, payloads));
    },
    async stripDates(pipeline, fromMs, toMs) {
      const s = readStatements();
      const rows = s.stripDates.all(pipeline, fromMs, toMs) as unknown[][];
      // Most rows hold no error to read whole: the event statement is prepared only for one that does.
      const payloads = { error: (position: number, kind: 'date' | 'run', excerpt: string) => payloadsOf(s).error(position, kind, excerpt) };
      return rows.map((v) =>
        stripDateOfRow(
          { date: v[0] as string, status: v[1] as string, logical_ms: v[2] as number, off_schedule: v[3] as number, lease_expires_at: v[4] as string | null, error_excerpt: v[5] as string | null, error_position: v[6] as number | null, extra: v[7] as string | null },
          payloads,
        ),
      );
    },
    async runs(pipeline, query: RunQuery = {}) {
      const s = readStatements();
      const payloads = query.light ? LIGHT_PAYLOADS : payloadsOf(s);
      const before = query.before ?? Number.MAX_SAFE_INTEGER;
      const limit = query.limit ?? -1;
      const rows = ((query.date === undefined ? s.runsBefore.all(pipeline, before, limit) : s.dateRunsBefore.all(pipeline, pipeline, query.date, before, limit)) as unknown[][]).map(runRowOfValues);
      // Paged from the newest back, listed oldest first.
      return rows.reverse().map((row) => runOfRow(row, payloads));
    },
    async statuses(pipeline, afterMs, visit) {
      for (const row of readStatements().statuses.iterate(pipeline, afterMs) as IterableIterator<[string, string, string, number]>) visit(row[0], row[1], row[2], row[3]);
    },
    async run(runId, pipeline) {
      const s = readStatements();
      const cells = (pipeline === undefined ? s.run.get(runId) : s.runOfPipeline.get(runId, pipeline)) as unknown[] | undefined;
      const row = cells === undefined ? undefined : runRowOfValues(cells);
      return row === undefined ? null : { ...runOfRow(row, payloadsOf(s)), pipeline: row.pipeline, seq: row.seq };
    },
    async storedRows(pipeline): Promise<StoredRows> {
      const s = readStatements();
      return {
        summary: (s.storedSummary.get(pipeline) as PipelineRow | undefined) ?? null,
        dates: s.allDates.all(pipeline) as DateRow[],
        runs: s.allRuns.all(pipeline) as RunRow[],
      };
    },
  };
}

const copyPipelineRow = rowCopy(RM_PIPELINES);

/** The row at another position. */
function rowAt(row: PipelineRow, position: number): PipelineRow {
  const copy = copyPipelineRow(row);
  copy.position = position;
  return copy;
}

/** The summary at another position, as `rowAt` builds a row. */
function summaryAt(summary: PipelineSummary, position: number): PipelineSummary {
  return {
    pipeline: summary.pipeline,
    definition: summary.definition,
    definedAt: summary.definedAt,
    version: summary.version,
    watermark: summary.watermark,
    completeThrough: summary.completeThrough,
    counts: summary.counts,
    lastSuccess: summary.lastSuccess,
    lastFailure: summary.lastFailure,
    slotCounts: summary.slotCounts,
    misaligned: summary.misaligned,
    throughSlots: summary.throughSlots,
    runTally: summary.runTally,
    position,
    running: summary.running,
    latestMs: summary.latestMs,
    paused: summary.paused,
    retired: summary.retired,
    auditEntries: summary.auditEntries,
  };
}

/**
 * A date row selected as values (in `DATE_COLUMNS` order, then its result event's payload): a whole
 * pipeline's rows are built here in one shape, which costs half of what named rows cost.
 */
function dateRowWithResult(v: unknown[]): DateRow & { result_payload: string | null } {
  const row = dateRowOfValues(v) as DateRow & { result_payload: string | null };
  row.result_payload = v[DATE_COLUMNS.length] as string | null;
  return row;
}

/**
 * A run by id (then `narrower`'s parameters): the run's events in order (the events' index of runs), the first that
 * is the start of a row of its pipeline.
 */
function runByIdSql(narrower: string): string {
  return `SELECT ${RUN_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM events e JOIN rm_runs r ON r.pipeline = e.pipeline AND r.seq = e.position WHERE e.run_id = ?${narrower} AND r.run_id = e.run_id ORDER BY e.position LIMIT 1`;
}

function prepare(db: Database.Database) {
  return preparedOnUse({
    putMeta: () => db.prepare(sqliteUpsertSql(RM_META)),
    head: () => db.prepare('SELECT max(position) FROM events').pluck(),
    // The stamp, the head, and the position the row of the head event's pipeline has reached (the head, when folded).
    upToDate: () =>
      db
        .prepare(
          `SELECT (SELECT value FROM rm_meta WHERE key = 'stamp'), h.head, (SELECT p.position FROM events e JOIN rm_pipelines p ON p.pipeline = e.pipeline WHERE e.position = h.head) FROM (SELECT max(position) AS head FROM events) h`,
        )
        .raw(true),
    foldedAt: () => db.prepare('SELECT p.position FROM events e JOIN rm_pipelines p ON p.pipeline = e.pipeline WHERE e.position = ?').pluck(),
    foldedThrough: () => db.prepare('SELECT coalesce(max(position), 0) FROM rm_pipelines').pluck(),
    summary: () => db.prepare(`SELECT ${PIPELINE_COLUMNS.join(', ')} FROM rm_pipelines WHERE pipeline = ?`).raw(true),
    // Named rows, as the table holds them: what `verify --projections` compares with the fold.
    storedSummary: () => db.prepare('SELECT * FROM rm_pipelines WHERE pipeline = ?'),
    summaries: () => db.prepare(`SELECT ${PIPELINE_COLUMNS.join(', ')} FROM rm_pipelines ORDER BY pipeline`).raw(true),
    statusSummaries: () => db.prepare(`SELECT ${statusSummarySelect((column) => `json_quote(${column})`, (column) => `ifnull(${column}, 'null')`)} FROM rm_pipelines ORDER BY ${NAME_ORDER_SQL}`).pluck(true),
    pipelineNames: () => db.prepare('SELECT pipeline FROM rm_pipelines ORDER BY pipeline').pluck(),
    auditEntries: () => db.prepare('SELECT coalesce(sum(audit_entries), 0) FROM rm_pipelines').pluck(),
    definitions: () => db.prepare('SELECT definition FROM rm_pipelines WHERE definition IS NOT NULL ORDER BY pipeline').pluck(),
    date: () => db.prepare(`SELECT ${DATE_COLUMNS.join(', ')} FROM rm_dates WHERE pipeline = ? AND date = ?`).raw(true),
    status: () => db.prepare('SELECT status FROM rm_dates WHERE pipeline = ? AND date = ?').pluck(),
    slotKeys: () => db.prepare('SELECT date, status, logical_date FROM rm_dates WHERE pipeline = ?').raw(true),
    // Rows as arrays (raw), made into rows of one shape here: a row object of better-sqlite3's cost 3.4 KB of garbage, an array 0.9 KB.
    datesBetween: () => db.prepare(`SELECT ${DATE_COLUMNS.join(', ')} FROM rm_dates WHERE pipeline = ? AND logical_ms BETWEEN ? AND ? ORDER BY logical_ms`).raw(true),
    stripDates: () => db.prepare(`SELECT ${STRIP_DATE_SELECT} FROM rm_dates WHERE pipeline = ? AND logical_ms BETWEEN ? AND ? ORDER BY logical_ms`).raw(true),
    datesWithResults: () =>
      db
        .prepare(
          `SELECT ${DATE_COLUMNS.map((c) => `d.${c}`).join(', ')}, e.payload FROM rm_dates d LEFT JOIN events e ON e.position = d.result_position WHERE d.pipeline = ? AND d.logical_ms BETWEEN ? AND ? ORDER BY d.logical_ms`,
        )
        .raw(true),
    statuses: () => db.prepare('SELECT date, status, lease_expires_at, logical_ms FROM rm_dates WHERE pipeline = ? AND logical_ms > ?').raw(true),
    allDates: () => db.prepare('SELECT * FROM rm_dates WHERE pipeline = ? ORDER BY date'),
    run: () => db.prepare(runByIdSql('')).raw(true),
    // Of one pipeline: the run an append folds is its own pipeline's, whatever another pipeline's run of that id.
    runOfPipeline: () => db.prepare(runByIdSql(' AND e.pipeline = ?')).raw(true),
    runsBefore: () => db.prepare(`SELECT ${RUN_COLUMNS.join(', ')} FROM rm_runs WHERE pipeline = ? AND seq < ? ORDER BY seq DESC LIMIT ?`).raw(true),
    // The date's runs picked in the date index (it covers the subquery), then read by key: asked for the rows at once, SQLite
    // read them through the key, which covers every column, walking all of the pipeline's runs.
    dateRunsBefore: () =>
      db
        .prepare(
          `SELECT ${RUN_COLUMNS.join(', ')} FROM rm_runs WHERE pipeline = ? AND seq IN (SELECT seq FROM rm_runs WHERE pipeline = ? AND date = ? AND seq < ? ORDER BY seq DESC LIMIT ?) ORDER BY seq DESC`,
        )
        .raw(true),
    allRuns: () => db.prepare('SELECT * FROM rm_runs WHERE pipeline = ? ORDER BY run_id'),
    putDate: () => db.prepare(sqliteUpsertSql(RM_DATES)),
    putDateSameLogical: () => db.prepare(sqliteUpsertSql(RM_DATES, ['logical_ms'])),
    putRun: () => db.prepare(sqliteUpsertSql(RM_RUNS, ['run_id', 'date'])),
    putPipeline: () => db.prepare(sqliteUpsertSql(RM_PIPELINES)),
    putPosition: () => db.prepare('UPDATE rm_pipelines SET position = ? WHERE pipeline = ?'),
    eventAt: () => db.prepare('SELECT position, payload, prev_hash, hash FROM events WHERE position = ?'),
    eventsFrom: () => db.prepare('SELECT position, payload, prev_hash, hash FROM events WHERE position >= ? AND position <= ? ORDER BY position LIMIT 1000'),
    pipelineEvents: () => db.prepare('SELECT position, payload FROM events WHERE pipeline = ? AND position >= ? ORDER BY position LIMIT 1000').raw(true),
  });
}
