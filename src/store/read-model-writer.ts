import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone, type DateStatus } from '../../projections/date-state.js';
import type { PipelineSummary } from '../../projections/pipeline-summary.js';
import type { Timetable } from '../timetable/timetable.js';
import { eventsByPipeline, foldRows, slotTallyOf, startWalk, touchedKeys, touchedOfRows, walkOn, type FoldedRows, type TimetableOf, type TouchedRows } from './read-model-fold.js';
import { withoutResults, type DateRow, type Payloads, type RunRow } from './read-model-rows.js';

/**
 * The table writer, once for both stores: for each pipeline an append touches, load the rows its events name,
 * fold the events into them (the pure `foldRows`), settle complete-through and the slot tally, and write what
 * changed. It decides which rows to load and what to write; a dialect (`WriterPort`) only answers "load these
 * rows" and "write these rows", in its own SQL and transaction: SQLite synchronously inside the append's
 * transaction (`writeRowsSync`), PostgreSQL with awaits (`writeRows`). The writer is a generator of those
 * requests, so the one logic serves both without making the SQLite append wait on promises.
 */

/** A stored date row's key, status and logical date: what a slot recount reads of every row of a pipeline. */
export type SlotRow = { date: string; status: DateStatus; logicalDate: string };

/** The touched date and run rows of one pipeline as stored (those that exist), and where their whole error texts are read. */
export type LoadedRows = { dates: readonly DateRow[]; runs: readonly RunRow[]; payloads: Pick<Payloads, 'error'> };

/** What the writer writes of one pipeline. */
export type RowWrites = {
  pipeline: string;
  /** The summary as it was stored (null: the pipeline had no row). */
  before: PipelineSummary | null;
  /** The summary to store, complete-through and slot tally settled. */
  summary: PipelineSummary;
  /** The date and run rows that changed. */
  dates: readonly DateRow[];
  runs: readonly RunRow[];
  /**
   * True when nothing but the summary's position changed (no row, count, definition or watermark did): a dialect
   * may set that one column. `dates` and `runs` are then empty.
   */
  positionOnly: boolean;
  /** The stored logical instant of each touched date row that exists: a row whose instant stays may leave its index entry alone. */
  storedLogical: ReadonlyMap<string, number>;
  /** The date keys and run ids the events name (whether or not a row of them exists). */
  touched: { dates: ReadonlySet<string>; runs: ReadonlySet<string> };
  /** True when settling the summary read date rows besides the touched ones (their statuses), so it holds only while no other append comes between. */
  readOthers: boolean;
};

/** The requests the writer makes, each with its arguments and the answer it takes. */
type Requests = {
  /** The pipeline's stored summary, or null when it has no row. */
  summary: { args: [pipeline: string]; answer: PipelineSummary | null };
  /** The pipeline's stored rows of these date keys and run ids (asked only when the pipeline has date rows). */
  rows: { args: [pipeline: string, dates: ReadonlySet<string>, runs: ReadonlySet<string>]; answer: LoadedRows };
  /** Which of these date keys have a stored row that is done (success or skipped). */
  done: { args: [pipeline: string, keys: readonly string[]]; answer: ReadonlySet<string> };
  /** Every stored date row of the pipeline, for a slot recount after a redefinition. */
  slots: { args: [pipeline: string]; answer: readonly SlotRow[] };
  /** Store the rows (inside the append's transaction, or gathered to go with it). */
  write: { args: [writes: RowWrites]; answer: void };
};

/**
 * A dialect: answers the writer's requests in its own SQL. `WriterPort<'sync'>` answers at once (SQLite inside its
 * transaction); `WriterPort<'async'>` may answer with a promise (PostgreSQL).
 */
export type WriterPort<Mode extends 'sync' | 'async'> = {
  [K in keyof Requests]: (...args: Requests[K]['args']) => Mode extends 'sync' ? Requests[K]['answer'] : Requests[K]['answer'] | Promise<Requests[K]['answer']>;
};

type Request = { [K in keyof Requests]: { kind: K; args: Requests[K]['args'] } }[keyof Requests];
type Steps<T> = Generator<Request, T, unknown>;

function* ask<K extends keyof Requests>(kind: K, ...args: Requests[K]['args']): Steps<Requests[K]['answer']> {
  return (yield { kind, args } as Request) as Requests[K]['answer'];
}

function answerOf(port: WriterPort<'sync' | 'async'>, request: Request): unknown {
  return (port[request.kind] as (...args: unknown[]) => unknown)(...request.args);
}

/**
 * Folds `events` (in position order, any pipelines) into the rows, the port answering at once.
 *
 * @example
 * writeRowsSync(sqlitePort, events, timetables); // inside the append transaction
 */
export function writeRowsSync(port: WriterPort<'sync'>, events: readonly RecordedEvent[], timetables: TimetableOf): void {
  const steps = writeEvents(events, timetables);
  for (let step = steps.next(); !step.done; step = steps.next(answerOf(port, step.value)));
}

/**
 * Folds `events` (in position order, any pipelines) into the rows, awaiting the port's answers.
 *
 * @example
 * await writeRows(postgresPort(client), events, timetables);
 */
export async function writeRows(port: WriterPort<'async'>, events: readonly RecordedEvent[], timetables: TimetableOf): Promise<void> {
  const steps = writeEvents(events, timetables);
  for (let step = steps.next(); !step.done; step = steps.next(await answerOf(port, step.value)));
}

function* writeEvents(events: readonly RecordedEvent[], timetables: TimetableOf): Steps<void> {
  for (const [pipeline, list] of eventsByPipeline(events)) yield* writePipeline(pipeline, list, timetables);
}

function* writePipeline(pipeline: string, events: readonly RecordedEvent[], timetables: TimetableOf): Steps<void> {
  const before = yield* ask('summary', pipeline);
  const touched = touchedKeys(events);
  const storedLogical = new Map<string, number>();
  let rows: TouchedRows;
  // The counts are of every date row the pipeline has: none counted, none to read. Nor a run row: only a RunStarted
  // makes one, and it makes a date row of the same pipeline in the same fold.
  if (before === null || !hasAny(before.counts)) rows = { summary: before, dates: new Map(), runs: new Map() };
  else {
    const loaded = yield* ask('rows', pipeline, touched.dates, touched.runs);
    for (const row of loaded.dates) storedLogical.set(row.date, row.logical_ms);
    // Metrics kept as stand-ins (the fold only carries them along), long errors read in full.
    rows = touchedOfRows(before, loaded.dates, loaded.runs, withoutResults(loaded.payloads));
  }
  const folded = foldRows(pipeline, rows, events, timetables);
  const positionOnly = before !== null && onlyPositionMoved(folded, before);
  // With only the position moved, complete-through and the slot tally stand as they were.
  const readOthers = positionOnly ? false : yield* settle(folded, timetables(folded.summary.definition));
  yield* ask('write', { pipeline, before, summary: folded.summary, dates: folded.dates, runs: folded.runs, positionOnly, storedLogical, touched, readOthers });
}

/** Slot keys asked at most at once by a walk (the first ask is of one key: most walks stop at the next slot). */
const MOST_ASKED = 4096;

/**
 * A fold's complete-through, the slots up to it and (after a redefinition) its slot tally, from the stored date
 * rows as the fold's rows will leave them: the fold's own dates first, then the stored rows' statuses, asked a
 * batch of slots at a time. True when it asked for rows besides the touched ones.
 */
function* settle(folded: FoldedRows, timetable: Timetable | null): Steps<boolean> {
  const summary = folded.summary;
  let readOthers = false;
  if (timetable === null) {
    summary.completeThrough = null;
    summary.throughSlots = 0;
  } else if (folded.completeThrough === 'recompute' || (folded.completeThrough === 'advance' && folded.dates.some((row) => isDone(row.status as DateStatus)))) {
    // Every write leaves complete-through where the walk over the stored done rows ends, so a walk on from it
    // moves only past a row this fold made done: with none, it stays (and so do its slots).
    const walk = startWalk(summary, folded.completeThrough, timetable);
    const known = new Map<string, boolean>();
    const dates = folded.state.dates;
    const isSuccess = (key: string): boolean | undefined => {
      const date = dates.get(key);
      return date !== undefined ? isDone(date.status) : known.get(key);
    };
    for (let batch = 1; !walkOn(walk, isSuccess, timetable); batch = Math.min(batch * 8, MOST_ASKED)) {
      const keys: string[] = [];
      for (let slot = walk.next; slot !== undefined && keys.length < batch; slot = timetable.next(slot)) if (!dates.has(slot.date)) keys.push(slot.date);
      readOthers = true;
      const done = yield* ask('done', summary.pipeline, keys);
      for (const key of keys) known.set(key, done.has(key));
    }
    summary.completeThrough = walk.through?.date ?? null;
    summary.throughSlots = walk.slots;
  }
  if (folded.recountSlots) {
    readOthers = true;
    const stored = yield* ask('slots', summary.pipeline);
    const dates = new Map<string, SlotRow>(stored.map((row) => [row.date, row]));
    for (const row of folded.dates) dates.set(row.date, { date: row.date, status: row.status as DateStatus, logicalDate: row.logical_date });
    Object.assign(summary, slotTallyOf(timetable, dates.values()));
  }
  return readOthers;
}

/** True when some count is not zero. */
function hasAny(counts: Record<string, number>): boolean {
  for (const key in counts) if (counts[key] !== 0) return true;
  return false;
}

/**
 * True when folding the events into `before` changed nothing of the pipeline's row but its position: no date
 * or run row changed (so no count, tally, running date, last outcome or latest logical date did), and the
 * definition and watermark are the ones it was handed (compared by identity: the fold replaces them when they change).
 */
function onlyPositionMoved(folded: FoldedRows, before: PipelineSummary): boolean {
  const after = folded.summary;
  return (
    folded.dates.length === 0 &&
    folded.runs.length === 0 &&
    !folded.recountSlots &&
    folded.completeThrough === 'keep' &&
    after.definition === before.definition &&
    after.definedAt === before.definedAt &&
    after.version === before.version &&
    after.watermark === before.watermark &&
    after.lastSuccess === before.lastSuccess &&
    after.lastFailure === before.lastFailure &&
    after.latestMs === before.latestMs &&
    after.misaligned === before.misaligned &&
    after.paused === before.paused &&
    after.retired === before.retired
  );
}
