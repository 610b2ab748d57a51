import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone, type DateState } from '../../projections/date-state.js';
import { evolveInPlace, initialState, type PipelineState, type WatermarkInstant } from '../../projections/pipeline-state.js';
import { evolveRunHistory, initialRunHistory, type RunHistory, type RunRecord } from '../../projections/run-history.js';
import type { Slot } from '../../projections/slot.js';
import { countSlots, emptySummary, summaryFolder, type DateChange, type PipelineSummary, type RunChange, type SlotKindOf } from '../../projections/pipeline-summary.js';
import { createTimetableHistory } from '../timetable/timetable-history.js';
import type { Timetable } from '../timetable/timetable.js';
import { dateOfRow, dateRow, runOfRow, runRow, type DateRow, type Payloads, type Refs, type RunRow } from './read-model-rows.js';

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

/**
 * The touched rows of one pipeline as the fold's state, from the rows as stored: `payloads` reads the long errors
 * whole (results stay stand-ins, see `withoutResults`: the fold only carries them along).
 *
 * @example
 * const touched = touchedOfRows(summary, dateRows, runRows, withoutResults(payloads));
 */
export function touchedOfRows(summary: PipelineSummary | null, dates: Iterable<DateRow>, runs: Iterable<RunRow>, payloads: Payloads): TouchedRows {
  const touched: TouchedRows = { summary, dates: new Map(), runs: new Map() };
  for (const row of dates) touched.dates.set(row.date, { state: dateOfRow(row, payloads), refs: { result: row.result_position, error: row.error_position } });
  for (const row of runs) touched.runs.set(row.run_id, { run: runOfRow(row, payloads), refs: { result: row.result_position, error: row.error_position }, seq: row.seq });
  return touched;
}

/**
 * Events grouped by pipeline, each group in the order given: the writer folds one pipeline at a time.
 *
 * @example
 * for (const [pipeline, list] of eventsByPipeline(events)) fold(pipeline, list);
 */
export function eventsByPipeline<E extends Pick<RecordedEvent, 'data'>>(events: readonly E[]): Map<string, E[]> {
  const groups = new Map<string, E[]>();
  for (const event of events) {
    const list = groups.get(event.data.pipeline);
    if (list) list.push(event);
    else groups.set(event.data.pipeline, [event]);
  }
  return groups;
}

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
  const summary = summaryFolder(before);
  // The folder owns its state record, so each event sets it in place (`evolveInPlace`).
  const state: PipelineState = {
    ...initialState(pipeline),
    definition: before.definition,
    definedAt: before.definedAt,
    version: before.version,
    watermark: before.watermark,
    position: before.position,
    paused: before.paused,
    retired: before.retired,
  };
  for (const [key, { state: date }] of touched.dates) state.dates.set(key, date);
  const instant: WatermarkInstant = { mark: null, ms: Number.NaN };
  let history: RunHistory = initialRunHistory();
  for (const [runId, { run }] of touched.runs) history.runs.set(runId, run);
  const dateRefs = new Map<string, Refs>([...touched.dates].map(([key, row]) => [key, { ...row.refs }]));
  const runRefs = new Map<string, Refs & { seq: number }>([...touched.runs].map(([runId, row]) => [runId, { ...row.refs, seq: row.seq }]));
  /** Each changed date as it was before its first change (undefined: it had no row). */
  const firstState = new Map<string, DateState | undefined>();
  /** Each changed run as it was before its first change. */
  const firstRun = new Map<string, RunRecord | undefined>();
  let redefined = false;

  const add = (events: readonly RecordedEvent[]): void => {
    for (const event of events) {
      if (event.type === 'PipelineDefined' || event.type === 'PipelineRedefined') redefined = true;
      const key = 'date' in event.data && typeof event.data.date === 'string' ? event.data.date : null;
      const runId = 'runId' in event.data && typeof event.data.runId === 'string' ? event.data.runId : null;
      const dateBefore = key === null ? undefined : state.dates.get(key);
      const runBefore = runId === null ? undefined : history.runs.get(runId);
      evolveInPlace(state, event, instant);
      history = evolveRunHistory(history, event);
      let dateChange: DateChange | null = null;
      let runChange: RunChange | null = null;
      if (key !== null) {
        const dateAfter = state.dates.get(key);
        if (dateAfter !== undefined && dateAfter !== dateBefore) {
          if (!firstState.has(key)) firstState.set(key, dateBefore);
          const refs = dateRefs.get(key) ?? { result: null, error: null };
          // The event that set a long field is where its whole value is read back from.
          if (dateAfter.metrics !== dateBefore?.metrics || dateAfter.outputs !== dateBefore?.outputs) refs.result = event.position;
          if (dateAfter.error !== dateBefore?.error) refs.error = event.position;
          dateRefs.set(key, refs);
          dateChange = { before: dateBefore, after: dateAfter };
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
          runChange = { before: runBefore, after: runAfter, seq: refs.seq };
        }
      }
      if (dateChange !== null || runChange !== null) summary.add(event, dateChange, runChange);
      summary.saw(event);
    }
  };

  const finish = (): FoldedRows => {
    // Which keys are slots is the timetable's to say; after a redefinition the writer counts them all again.
    const timetable = redefined ? null : timetables(state.definition);
    const dates: DateRow[] = [];
    const changedDates: Array<readonly [DateState | undefined, DateState]> = [];
    for (const [key, first] of firstState) {
      const date = state.dates.get(key) as DateState;
      changedDates.push([first, date]);
      dates.push(dateRow(pipeline, date, dateRefs.get(key) as Refs));
    }
    const runs: RunRow[] = [];
    const changedRuns: Array<readonly [RunRecord | undefined, RunRecord]> = [];
    for (const [runId, first] of firstRun) {
      const refs = runRefs.get(runId) as Refs & { seq: number };
      const run = history.runs.get(runId) as RunRecord;
      changedRuns.push([first, run]);
      runs.push(runRow(pipeline, run, refs.seq, refs));
    }
    const folded = summary.finish(state, changedDates, changedRuns, timetable === null ? null : slotKindFor(timetable));
    // Complete-through stands at the end of the done slots, so the slot after it is not done: it can only move on
    // when a changed date is done now (a start, a failure or a heartbeat leaves it where it is, with no walk).
    const mode: CompleteThroughMode = redefined || folded.lostDone ? 'recompute' : folded.nowDone ? 'advance' : 'keep';
    return { summary: folded.summary, dates, runs, completeThrough: mode, recountSlots: redefined, state };
  };
  return { add, finish };
}

/** A definition's timetable (null without one), as `timetableOf` or a `timetableCache` gives it. */
export type TimetableOf = (definition: PipelineDefinition | null) => Timetable | null;

/** Whether a date key is the slot at its logical date, names a slot at another instant, or names none, by `timetable`. */
function slotKindFor(timetable: Timetable): SlotKindOf {
  return (key, logicalMs) => {
    if (timetable.slotKeyAt(logicalMs) === key) return 'slot';
    let keyMs: number;
    try {
      keyMs = timetable.parseDate(key);
    } catch {
      return 'none';
    }
    return timetable.slotKeyAt(keyMs) === key ? 'misaligned' : 'none';
  };
}

/**
 * The slot counts and misaligned rows of a pipeline's date rows by its timetable, counted from scratch (after a
 * redefinition, and on rebuild): `countSlots` with the timetable's slots.
 *
 * @example
 * const { slotCounts, misaligned } = slotTallyOf(timetable, rows);
 */
export function slotTallyOf(timetable: Timetable | null, dates: Iterable<Pick<DateState, 'date' | 'status' | 'logicalDate'>>): { slotCounts: Record<string, number>; misaligned: number } {
  return countSlots(timetable === null ? null : slotKindFor(timetable), dates);
}

/** The pipeline's timetable, or null without a definition. */
export function timetableOf(definition: PipelineDefinition | null): Timetable | null {
  if (definition === null) return null;
  const { schedule, timetable, timezone, start, end, earlierTimetables } = definition;
  return createTimetableHistory({ schedule, timetable, timezone, start, end, earlierTimetables });
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
  // The last definition answered: `status` over 1,000 pipelines of a few schedules asks with a new object each time,
  // mostly one with the fields of the one before (the key text and its hash cost more than comparing the fields).
  let last: PipelineDefinition | undefined;
  let lastTimetable: Timetable | null = null;
  return (definition) => {
    if (definition === null) return null;
    if (last !== undefined && sameTimetableFields(last, definition)) return lastTimetable;
    let timetable = seen.get(definition);
    if (timetable !== undefined) return timetable;
    // A NUL joins the fields (none holds one; the free-text schedule goes last): a status over 1,000 pipelines asks this 1,000 times.
    const earlier = definition.earlierTimetables === undefined ? '' : JSON.stringify(definition.earlierTimetables);
    const key = `${definition.timetable}\0${definition.timezone}\0${definition.start}\0${definition.end ?? ''}\0${earlier}\0${definition.schedule}`;
    timetable = made.get(key);
    if (timetable === undefined) {
      if (made.size >= 256) made.clear();
      timetable = timetableOf(definition);
      made.set(key, timetable);
    }
    seen.set(definition, timetable);
    last = definition;
    lastTimetable = timetable;
    return timetable;
  };
}

/** Whether two definitions have the fields their timetable is made of alike (none with earlier timetables: those are compared as text). */
function sameTimetableFields(a: PipelineDefinition, b: PipelineDefinition): boolean {
  return (
    a.schedule === b.schedule &&
    a.timezone === b.timezone &&
    a.start === b.start &&
    a.timetable === b.timetable &&
    (a.end ?? '') === (b.end ?? '') &&
    a.earlierTimetables === undefined &&
    b.earlierTimetables === undefined
  );
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
  const walk = startWalk(summary, mode, timetable);
  walkOn(walk, isSuccess, timetable);
  return { date: walk.through?.date ?? null, slots: walk.slots };
}

/** A complete-through walk under way: the last done slot passed, the slot to look at next, and how many slots were passed. */
export type ThroughWalk = { through: Slot | undefined; next: Slot | undefined; slots: number };

/**
 * Where a complete-through walk starts: on from where complete-through stood (`advance`), or at the first slot
 * (`recompute`, and when the key it stood at is no longer a slot).
 *
 * @example
 * const walk = startWalk(summary, 'advance', timetable);
 */
export function startWalk(summary: Pick<PipelineSummary, 'completeThrough' | 'throughSlots'>, mode: 'advance' | 'recompute', timetable: Timetable): ThroughWalk {
  const through = mode === 'advance' && summary.completeThrough !== null ? timetable.slotAt(timetable.parseDate(summary.completeThrough)) : undefined;
  // A key the timetable no longer gives (never after a redefinition, which recomputes): walk again.
  if (through === undefined) return { through: undefined, next: timetable.first(), slots: 0 };
  return { through, next: timetable.next(through), slots: summary.throughSlots };
}

/**
 * Walks on past every slot `isSuccess` says is done. True when the walk is over (at a slot not done, or past the
 * last); false when it stopped at a slot `isSuccess` cannot tell (undefined), which `walk.next` then is: the caller
 * learns it and walks on.
 *
 * @example
 * while (!walkOn(walk, (key) => known.get(key), timetable)) learn(walk.next);
 */
export function walkOn(walk: ThroughWalk, isSuccess: (key: string) => boolean | undefined, timetable: Timetable): boolean {
  for (let next = walk.next; next !== undefined; next = timetable.next(next)) {
    walk.next = next;
    const done = isSuccess(next.date);
    if (done === undefined) return false;
    if (!done) return true;
    walk.through = next;
    walk.slots += 1;
  }
  walk.next = undefined;
  return true;
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
