import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone, type DateState } from '../../projections/date-state.js';
import { evolveInPlace, initialState, type PipelineState, type WatermarkInstant } from '../../projections/pipeline-state.js';
import { evolveRunHistory, initialRunHistory, type RunHistory, type RunRecord } from '../../projections/run-history.js';
import type { Slot } from '../../projections/slot.js';
import { copyTally, tallyRun } from '../../projections/views/run-tally.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { createTimetable } from '../timetable/create-timetable.js';
import type { Timetable } from '../timetable/timetable.js';
import { dateRow, runRow, type DateRow, type LastOutcome, type PipelineSummary, type Refs, type RunningDate, type RunRow } from './read-model-rows.js';

/**
 * The table writer's fold: the rows an append touches, loaded back as the fold's own state, the new
 * events folded in with the pure `evolve` and `evolveRunHistory`, and the rows that changed. It applies
 * what the folds decided and decides nothing itself, so a refold of the events and the tables cannot
 * disagree (`verify --projections` proves it). Rebuild and verify run the same code from empty rows.
 */

/** The stored rows an append reads before folding: the pipeline's summary and every date and run its events name. */
export type TouchedRows = {
  summary: PipelineSummary | null;
  dates: Map<string, { state: DateState; refs: Refs }>;
  runs: Map<string, { run: RunRecord; refs: Refs; seq: number }>;
};

/** The touched rows of a pipeline the tables do not hold yet. */
export function noRows(): TouchedRows {
  return { summary: null, dates: new Map(), runs: new Map() };
}

/** How complete-through must be brought up to date once the changed rows are stored. */
export type CompleteThroughMode = 'keep' | 'advance' | 'recompute';

export type FoldedRows = {
  summary: PipelineSummary;
  dates: DateRow[];
  runs: RunRow[];
  completeThrough: CompleteThroughMode;
  /**
   * True after a redefinition: which keys are slots changed, so `summary.slotCounts` and `misaligned`
   * must be counted again over every date row (`slotTallyOf`) once the changed rows are stored.
   */
  recountSlots: boolean;
  /** The folded dates (the touched ones only), for the complete-through walk before the rows are read back. */
  state: PipelineState;
};

/** The date keys and run ids the events of one pipeline name. */
export function touchedKeys(events: ReadonlyArray<Pick<RecordedEvent, 'data'>>): { dates: Set<string>; runs: Set<string> } {
  const dates = new Set<string>();
  const runs = new Set<string>();
  for (const event of events) {
    if ('date' in event.data && typeof event.data.date === 'string') dates.add(event.data.date);
    if ('runId' in event.data && typeof event.data.runId === 'string') runs.add(event.data.runId);
  }
  return { dates, runs };
}

/** An empty summary for a pipeline the tables do not know yet. */
export function emptySummary(pipeline: string): PipelineSummary {
  return {
    pipeline,
    definition: null,
    definedAt: null,
    version: 0,
    watermark: null,
    completeThrough: null,
    counts: {},
    lastSuccess: null,
    lastFailure: null,
    slotCounts: {},
    misaligned: 0,
    throughSlots: 0,
    runTally: {},
    position: 0,
    running: [],
    latestMs: null,
  };
}

/**
 * Folds one pipeline's new events (in position order) into its touched rows.
 *
 * @example
 * const folded = foldRows('etl_orders', touched, events);
 */
export function foldRows(pipeline: string, touched: TouchedRows, events: readonly RecordedEvent[], timetables: TimetableOf = timetableOf): FoldedRows {
  const folder = rowFolder(pipeline, touched, timetables);
  folder.add(events);
  return folder.finish();
}

/** `foldRows` taking the events batch by batch, so a rebuild holds one pipeline's state, never its events. */
export type RowFolder = { add(events: readonly RecordedEvent[]): void; finish(): FoldedRows };

/**
 * A fold of one pipeline's rows that takes its events in batches.
 *
 * @example
 * const folder = rowFolder('etl_orders', touched);
 * for await (const batch of store.read({ pipeline: 'etl_orders' })) folder.add(batch);
 * const { dates } = folder.finish();
 */
export function rowFolder(pipeline: string, touched: TouchedRows, timetables: TimetableOf = timetableOf): RowFolder {
  const before = touched.summary ?? emptySummary(pipeline);
  // The folder owns its state record, so each event sets it in place (`evolveInPlace`).
  const state: PipelineState = {
    ...initialState(pipeline),
    definition: before.definition,
    definedAt: before.definedAt,
    version: before.version,
    watermark: before.watermark,
    position: before.position,
  };
  for (const [key, { state: date }] of touched.dates) state.dates.set(key, date);
  const instant: WatermarkInstant = { mark: null, ms: Number.NaN };
  let history: RunHistory = initialRunHistory();
  for (const [runId, { run }] of touched.runs) history.runs.set(runId, run);
  const dateRefs = new Map<string, Refs>([...touched.dates].map(([key, row]) => [key, { ...row.refs }]));
  const runRefs = new Map<string, Refs & { seq: number }>([...touched.runs].map(([runId, row]) => [runId, { ...row.refs, seq: row.seq }]));
  const counts = { ...before.counts };
  const slotCounts = { ...before.slotCounts };
  const runTally = copyTally(before.runTally);
  let misaligned = before.misaligned;
  /** Each changed date as it was before its first change (undefined: it had no row). */
  const firstState = new Map<string, DateState | undefined>();
  /** Each changed run as it was before its first change. */
  const firstRun = new Map<string, RunRecord | undefined>();
  let lastSuccess = before.lastSuccess;
  let lastFailure = before.lastFailure;
  let redefined = false;
  // Over every state a date takes, event by event: a refold and the appends that made the rows see the same ones.
  let latestMs = before.latestMs;

  const add = (events: readonly RecordedEvent[]): void => {
    for (const event of events) {
      if (event.type === 'PipelineDefined' || event.type === 'PipelineRedefined') redefined = true;
      const key = 'date' in event.data && typeof event.data.date === 'string' ? event.data.date : null;
      const runId = 'runId' in event.data && typeof event.data.runId === 'string' ? event.data.runId : null;
      const dateBefore = key === null ? undefined : state.dates.get(key);
      const runBefore = runId === null ? undefined : history.runs.get(runId);
      evolveInPlace(state, event, instant);
      history = evolveRunHistory(history, event);
      if (key !== null) {
        const dateAfter = state.dates.get(key);
        if (dateAfter !== undefined && dateAfter !== dateBefore) {
          if (!firstState.has(key)) firstState.set(key, dateBefore);
          if (dateAfter.logicalDate !== dateBefore?.logicalDate) {
            const ms = Date.parse(dateAfter.logicalDate);
            if (latestMs === null || ms > latestMs) latestMs = ms;
          }
          const refs = dateRefs.get(key) ?? { result: null, error: null };
          // The event that set a long field is where its whole value is read back from.
          if (dateAfter.metrics !== dateBefore?.metrics || dateAfter.outputs !== dateBefore?.outputs) refs.result = event.position;
          if (dateAfter.error !== dateBefore?.error) refs.error = event.position;
          dateRefs.set(key, refs);
        }
      }
      if (runId !== null) {
        const runAfter = history.runs.get(runId);
        if (runAfter !== undefined && runAfter !== runBefore) {
          if (!firstRun.has(runId)) firstRun.set(runId, runBefore);
          const refs = runRefs.get(runId) ?? { result: null, error: null, seq: event.position };
          if (runAfter.metrics !== runBefore?.metrics) refs.result = event.position;
          if (runAfter.error !== runBefore?.error) refs.error = event.position;
          runRefs.set(runId, refs);
          // As the fold's status finds them: the latest recorded success or failure, ties to the later start.
          if (event.type === 'RunSucceeded' && runAfter.status === 'success' && runAfter.finishedAt !== null && runBefore?.status !== 'success') {
            lastSuccess = laterFailure(lastSuccess, { date: runAfter.date, runId, at: runAfter.finishedAt, seq: refs.seq });
          }
          if (runAfter.error !== null && runAfter.finishedAt !== null && runAfter.error !== runBefore?.error) {
            lastFailure = laterFailure(lastFailure, { date: runAfter.date, runId, at: runAfter.finishedAt, seq: refs.seq, error: tellingLine(runAfter.error) });
          }
        }
      }
    }
  };

  const finish = (): FoldedRows => {
    let lostSuccess = false;
    let nowDone = false;
    const dates: DateRow[] = [];
    const running = new Map<string, RunningDate>(before.running.map((date) => [date.date, date]));
    // Which keys are slots is the timetable's to say; after a redefinition the writer counts them all again.
    const timetable = redefined ? null : timetables(state.definition);
    for (const [key, first] of firstState) {
      const date = state.dates.get(key) as DateState;
      const was = first?.status;
      if (was !== undefined) counts[was] = (counts[was] ?? 0) - 1;
      counts[date.status] = (counts[date.status] ?? 0) + 1;
      if (timetable !== null) {
        if (first !== undefined) misaligned -= tallySlot(slotCounts, timetable, first, -1);
        misaligned += tallySlot(slotCounts, timetable, date, 1);
      }
      // Done is a success or a skip (complete-through counts both): losing either walks it again.
      if (isDone(was as DateState['status'] | undefined) && !isDone(date.status)) lostSuccess = true;
      if (isDone(date.status)) nowDone = true;
      if (date.status === 'running') running.set(key, { date: key, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt, logicalDate: date.logicalDate });
      else running.delete(key);
      dates.push(dateRow(pipeline, date, dateRefs.get(key) as Refs));
    }
    const runs: RunRow[] = [];
    for (const [runId, first] of firstRun) {
      const refs = runRefs.get(runId) as Refs & { seq: number };
      const run = history.runs.get(runId) as RunRecord;
      if (first !== undefined) tallyRun(runTally, first, -1);
      tallyRun(runTally, run, 1);
      runs.push(runRow(pipeline, run, refs.seq, refs));
    }
    const summary: PipelineSummary = {
      pipeline,
      definition: state.definition,
      definedAt: state.definedAt,
      version: state.version,
      watermark: state.watermark,
      completeThrough: before.completeThrough,
      counts,
      lastSuccess,
      lastFailure,
      slotCounts,
      misaligned,
      throughSlots: before.throughSlots,
      runTally,
      position: state.position,
      // By key: one text for the same dates, however they came to run.
      running: [...running.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
      latestMs,
    };
    // Complete-through stands at the end of the done slots, so the slot after it is not done: it can only move on
    // when a changed date is done now (a start, a failure or a heartbeat leaves it where it is, with no walk).
    const mode: CompleteThroughMode = redefined || lostSuccess ? 'recompute' : nowDone ? 'advance' : 'keep';
    return { summary, dates, runs, completeThrough: mode, recountSlots: redefined, state };
  };
  return { add, finish };
}

/**
 * The failure `status` shows as the last one: the latest finish, and of two at the same instant the run
 * started later (the order the run history lists them in).
 */
function laterFailure(current: LastOutcome | null, candidate: LastOutcome): LastOutcome {
  if (current === null) return candidate;
  const a = Date.parse(candidate.at);
  const b = Date.parse(current.at);
  return a > b || (a === b && candidate.seq >= current.seq) ? candidate : current;
}

/** A definition's timetable (null without one), as `timetableOf` or a `timetableCache` gives it. */
export type TimetableOf = (definition: PipelineDefinition | null) => Timetable | null;

/**
 * Adds a date row to (`sign` 1) or takes it from (-1) the slot counts when its key is a slot of
 * `timetable` and its logical date is that slot's; returns 1 when instead its key names a slot its
 * logical date is not (a misaligned row, counted apart), else 0.
 */
function tallySlot(slotCounts: Record<string, number>, timetable: Timetable, date: Pick<DateState, 'date' | 'status' | 'logicalDate'>, sign: 1 | -1): number {
  const kind = slotKindOf(timetable, date.date, Date.parse(date.logicalDate));
  if (kind === 'slot') slotCounts[date.status] = (slotCounts[date.status] ?? 0) + sign;
  return kind === 'misaligned' ? 1 : 0;
}

/** Whether a date key is the slot at its logical date, names a slot at another instant, or names none. */
function slotKindOf(timetable: Timetable, key: string, logicalMs: number): 'slot' | 'misaligned' | 'none' {
  if (timetable.slotKeyAt(logicalMs) === key) return 'slot';
  let keyMs: number;
  try {
    keyMs = timetable.parseDate(key);
  } catch {
    return 'none';
  }
  return timetable.slotKeyAt(keyMs) === key ? 'misaligned' : 'none';
}

/**
 * The slot counts and misaligned rows of a pipeline's date rows, counted from scratch (after a
 * redefinition, and on rebuild).
 *
 * @example
 * const { slotCounts, misaligned } = slotTallyOf(timetable, rows);
 */
export function slotTallyOf(timetable: Timetable | null, dates: Iterable<Pick<DateState, 'date' | 'status' | 'logicalDate'>>): { slotCounts: Record<string, number>; misaligned: number } {
  const slotCounts: Record<string, number> = {};
  let misaligned = 0;
  if (timetable !== null) for (const date of dates) misaligned += tallySlot(slotCounts, timetable, date, 1);
  return { slotCounts, misaligned };
}

/** The pipeline's timetable, or null without a definition. */
export function timetableOf(definition: PipelineDefinition | null): Timetable | null {
  if (definition === null) return null;
  const { schedule, timetable, timezone, start, end } = definition;
  return createTimetable({ schedule, timetable, timezone, start, end });
}

/**
 * `timetableOf` with the timetables kept per definition: parsing the schedule on every append showed in
 * the single append's time, and a ledger has a handful of definitions. One per store, never global.
 */
export function timetableCache(): TimetableOf {
  const made = new Map<string, Timetable | null>();
  // The definition objects already asked about: an append asks three times with the one its pipeline's row holds
  // (the decision's view, the fold, the writer), and joining the fields into a fresh key string to hash each time
  // showed in a library start + succeed. A definition is never changed once parsed or folded (the rows' readers
  // hand callers copies), so its object stands for its fields.
  const seen = new WeakMap<PipelineDefinition, Timetable | null>();
  return (definition) => {
    if (definition === null) return null;
    let timetable = seen.get(definition);
    if (timetable !== undefined) return timetable;
    // A NUL joins the fields (none holds one; the free-text schedule goes last): a status over 1,000 pipelines asks this 1,000 times.
    const key = `${definition.timetable}\0${definition.timezone}\0${definition.start}\0${definition.end ?? ''}\0${definition.schedule}`;
    timetable = made.get(key);
    if (timetable === undefined) {
      if (made.size >= 256) made.clear();
      timetable = timetableOf(definition);
      made.set(key, timetable);
    }
    seen.set(definition, timetable);
    return timetable;
  };
}

/**
 * Complete-through after an append, and how many slots there are up to it: kept, walked on from where it stood, or walked again from the
 * first slot (after a redefinition or when a success was lost). `isSuccess` looks a key up (the folded
 * dates first, then the stored rows), so the walk reads one indexed row per slot it passes.
 *
 * @example
 * const { date, slots } = completeThroughAfter(summary, mode, isSuccess, timetable);
 */
export function completeThroughAfter(
  summary: PipelineSummary,
  mode: CompleteThroughMode,
  isSuccess: (key: string) => boolean,
  timetable = timetableOf(summary.definition),
): { date: string | null; slots: number } {
  if (timetable === null) return { date: null, slots: 0 };
  if (mode === 'keep') return { date: summary.completeThrough, slots: summary.throughSlots };
  let through: Slot | undefined;
  let next: Slot | undefined;
  let slots = 0;
  if (mode === 'advance' && summary.completeThrough !== null) {
    through = timetable.slotAt(timetable.parseDate(summary.completeThrough));
    slots = summary.throughSlots;
  }
  // A key the timetable no longer gives (never after a redefinition, which recomputes): walk again.
  if (through === undefined) {
    next = timetable.first();
    slots = 0;
  } else next = timetable.next(through);
  for (; next !== undefined && isSuccess(next.date); next = timetable.next(next)) {
    through = next;
    slots += 1;
  }
  return { date: through?.date ?? null, slots };
}

/**
 * Every row of one pipeline from a full fold of its events (a folder started from no rows): what
 * rebuild writes and what `verify --projections` compares the tables with.
 *
 * @example
 * const folder = rowFolder('etl_orders', NO_ROWS);
 * folder.add(events);
 * const rows = finishAll(folder);
 */
export function finishAll(folder: RowFolder): FoldedRows {
  const folded = folder.finish();
  const timetable = timetableOf(folded.summary.definition);
  const through = completeThroughAfter(folded.summary, 'recompute', (key) => isDone(folded.state.dates.get(key)?.status), timetable);
  folded.summary.completeThrough = through.date;
  folded.summary.throughSlots = through.slots;
  Object.assign(folded.summary, slotTallyOf(timetable, folded.state.dates.values()));
  folded.recountSlots = false;
  return folded;
}
