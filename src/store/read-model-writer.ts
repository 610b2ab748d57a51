import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone, type DateStatus } from '../../projections/date-state.js';
import type { PipelineSummary } from '../../projections/pipeline-summary.js';
import type { Timetable } from '../timetable/timetable.js';
import { eventsByPipeline, finishAll, foldRows, noRows, rowFolder, slotTallyOf, startWalk, touchedKeys, touchedOfRows, walkOn, type FoldedRows, type TimetableOf, type TouchedRows } from './read-model-fold.js';
import type { RebuildProgress, RebuildResult } from './read-models.js';
import { withoutResults, type DateRow, type Payloads, type RunRow } from './read-model-rows.js';

/**
 * The table writer, once for both stores: for each pipeline an append touches, load the rows its events name,
 * fold the events into them (the pure `foldRows`), settle complete-through and the slot tally, and write what
 * changed. It decides which rows to load and what to write; a dialect (`WriterPort`) only answers "load these
 * rows" and "write these rows", in its own SQL and transaction: SQLite synchronously inside the append's
 * transaction (`runSync`), PostgreSQL with awaits (`run`). The writer is a generator of those requests
 * (`writeSteps`; `catchUpSteps` and `rebuildSteps` for events the tables have not taken in and for a rebuild),
 * so the one logic serves both without making the SQLite append wait on promises.
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

/** Requests, each with its arguments and the answer it takes. */
type RequestMap = Record<string, { args: unknown[]; answer: unknown }>;

/** The requests of the table writer. */
type RowRequests = {
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

/** The table writer's requests, and the events the tables have not taken in yet (a catch-up). */
type CatchUpRequests = RowRequests & {
  /** The stored events from position `from` up to `to`, in position order: the first batch of them, none when there are none. */
  events: { args: [from: number, to: number]; answer: readonly RecordedEvent[] };
};

/** The requests of a rebuild, into tables just made empty. */
type RebuildRequests = {
  /** The pipeline's stored events from position `from` on, in position order: the first batch of them, none when there are none. */
  pipelineEvents: { args: [pipeline: string, from: number]; answer: readonly RecordedEvent[] };
  /** Store every row of a pipeline (the tables hold none of it yet). */
  insert: { args: [rows: FoldedRows]; answer: void };
};

/** A dialect's answers to requests `R`: at once (`sync`, SQLite inside its transaction), or possibly with a promise (`async`, PostgreSQL). */
type Port<R extends RequestMap, Mode extends 'sync' | 'async'> = {
  [K in keyof R]: (...args: R[K]['args']) => Mode extends 'sync' ? R[K]['answer'] : R[K]['answer'] | Promise<R[K]['answer']>;
};
/** The table writer's dialect: loads the rows asked for and writes the rows given, in its own SQL. */
export type WriterPort<Mode extends 'sync' | 'async'> = Port<RowRequests, Mode>;

type Request<R extends RequestMap> = { [K in keyof R]: { kind: K; args: R[K]['args'] } }[keyof R];
/** Steps of the writer: each yields a request and takes its answer; the last returns `T`. */
type Steps<R extends RequestMap, T> = Generator<Request<R>, T, unknown>;

function* ask<R extends RequestMap, K extends keyof R & string>(kind: K, ...args: R[K]['args']): Steps<R, R[K]['answer']> {
  return (yield { kind, args } as Request<R>) as R[K]['answer'];
}
const asker =
  <R extends RequestMap>() =>
  <K extends keyof R & string>(kind: K, ...args: R[K]['args']): Steps<R, R[K]['answer']> =>
    ask<R, K>(kind, ...args);
const askRows = asker<RowRequests>();

function answerOf(port: Record<string, (...args: never[]) => unknown>, request: { kind: string; args: unknown[] }): unknown {
  return (port[request.kind] as (...args: unknown[]) => unknown)(...request.args);
}

/**
 * Runs the writer's steps, the port answering each request at once.
 *
 * @example
 * runSync(sqlitePort, writeSteps(events, timetables)); // inside the append transaction
 */
export function runSync<R extends RequestMap, T>(port: Port<R, 'sync'>, steps: Steps<R, T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next(answerOf(port, step.value as { kind: string; args: unknown[] }));
  return step.value;
}

/**
 * Runs the writer's steps, awaiting each of the port's answers.
 *
 * @example
 * await run(postgresPort(client), writeSteps(events, timetables));
 */
export async function run<R extends RequestMap, T>(port: Port<R, 'async'>, steps: Steps<R, T>): Promise<T> {
  let step = steps.next();
  while (!step.done) step = steps.next(await answerOf(port, step.value as { kind: string; args: unknown[] }));
  return step.value;
}

/**
 * Folds `events` (in position order, any pipelines) into the rows.
 *
 * @example
 * runSync(port, writeSteps(events, timetables));
 */
export function* writeSteps(events: readonly RecordedEvent[], timetables: TimetableOf): Steps<RowRequests, void> {
  for (const [pipeline, list] of eventsByPipeline(events)) yield* writePipeline(pipeline, list, timetables);
}

/**
 * Folds the stored events from position `from` up to `head` (ones another release appended without keeping the tables), a batch at a time.
 *
 * @example
 * runSync(port, catchUpSteps(foldedThrough + 1, head, timetables));
 */
export function* catchUpSteps(from: number, head: number, timetables: TimetableOf): Steps<CatchUpRequests, void> {
  while (from <= head) {
    const events = yield* ask<CatchUpRequests, 'events'>('events', from, head);
    if (events.length === 0) break;
    yield* writeSteps(events, timetables);
    from = (events.at(-1) as RecordedEvent).position + 1;
  }
}

/**
 * Every row of each pipeline from a full fold of its events, a batch of events at a time (a pipeline's state is held,
 * never its events), inserted one pipeline at a time into tables just made empty; `progress` hears of every batch.
 *
 * @example
 * const result = runSync(port, rebuildSteps(pipelines, head, progress));
 */
export function* rebuildSteps(pipelines: readonly string[], total: number, progress?: RebuildProgress): Steps<RebuildRequests, RebuildResult> {
  const result: RebuildResult = { pipelines: 0, events: 0, dates: 0, runs: 0 };
  progress?.(0, total);
  for (const pipeline of pipelines) {
    const folder = rowFolder(pipeline, noRows());
    for (let from = 1; ; ) {
      const events = yield* ask<RebuildRequests, 'pipelineEvents'>('pipelineEvents', pipeline, from);
      if (events.length === 0) break;
      folder.add(events);
      result.events += events.length;
      from = (events.at(-1) as RecordedEvent).position + 1;
      progress?.(result.events, total);
    }
    const folded = finishAll(folder);
    yield* ask<RebuildRequests, 'insert'>('insert', folded);
    result.pipelines += 1;
    result.dates += folded.dates.length;
    result.runs += folded.runs.length;
  }
  return result;
}

function* writePipeline(pipeline: string, events: readonly RecordedEvent[], timetables: TimetableOf): Steps<RowRequests, void> {
  const before = yield* askRows('summary', pipeline);
  const touched = touchedKeys(events);
  const storedLogical = new Map<string, number>();
  let rows: TouchedRows;
  // The counts are of every date row the pipeline has: none counted, none to read. Nor a run row: only a RunStarted
  // makes one, and it makes a date row of the same pipeline in the same fold.
  if (before === null || !hasAny(before.counts)) rows = { summary: before, dates: new Map(), runs: new Map() };
  else {
    const loaded = yield* askRows('rows', pipeline, touched.dates, touched.runs);
    for (const row of loaded.dates) storedLogical.set(row.date, row.logical_ms);
    // Metrics kept as stand-ins (the fold only carries them along), long errors read in full.
    rows = touchedOfRows(before, loaded.dates, loaded.runs, withoutResults(loaded.payloads));
  }
  const folded = foldRows(pipeline, rows, events, timetables);
  const positionOnly = before !== null && onlyPositionMoved(folded, before);
  // With only the position moved, complete-through and the slot tally stand as they were.
  const readOthers = positionOnly ? false : yield* settle(folded, timetables(folded.summary.definition));
  yield* askRows('write', { pipeline, before, summary: folded.summary, dates: folded.dates, runs: folded.runs, positionOnly, storedLogical, touched, readOthers });
}

/** Slot keys asked at most at once by a walk (the first ask is of one key: most walks stop at the next slot). */
const MOST_ASKED = 4096;

/**
 * A fold's complete-through, the slots up to it and (after a redefinition) its slot tally, from the stored date
 * rows as the fold's rows will leave them: the fold's own dates first, then the stored rows' statuses, asked a
 * batch of slots at a time. True when it asked for rows besides the touched ones.
 */
function* settle(folded: FoldedRows, timetable: Timetable | null): Steps<RowRequests, boolean> {
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
      const done = yield* askRows('done', summary.pipeline, keys);
      for (const key of keys) known.set(key, done.has(key));
    }
    summary.completeThrough = walk.through?.date ?? null;
    summary.throughSlots = walk.slots;
  }
  if (folded.recountSlots) {
    readOthers = true;
    const stored = yield* askRows('slots', summary.pipeline);
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
    after.retired === before.retired &&
    after.auditEntries === before.auditEntries
  );
}
