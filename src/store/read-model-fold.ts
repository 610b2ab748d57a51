import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone, type DateState } from '../../projections/date-state.js';
import { evolveInPlace, initialState, type PipelineState, type WatermarkInstant } from '../../projections/pipeline-state.js';
import { evolveRunHistory, initialRunHistory, type RunHistory, type RunRecord } from '../../projections/run-history.js';
import type { Slot } from '../../projections/slot.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { createTimetable } from '../timetable/create-timetable.js';
import type { Timetable } from '../timetable/timetable.js';
import { dateRow, runRow, type DateRow, type LastOutcome, type PipelineSummary, type Refs, type RunRow } from './read-model-rows.js';

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
  /** The folded dates (the touched ones only), for the complete-through walk before the rows are read back. */
  state: PipelineState;
};

/** The date keys and run ids the events of one pipeline name. */
export function touchedKeys(events: readonly RecordedEvent[]): { dates: Set<string>; runs: Set<string> } {
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
  return { pipeline, definition: null, definedAt: null, version: 0, watermark: null, completeThrough: null, counts: {}, lastSuccess: null, lastFailure: null, position: 0 };
}

/**
 * Folds one pipeline's new events (in position order) into its touched rows.
 *
 * @example
 * const folded = foldRows('etl_orders', touched, events);
 */
export function foldRows(pipeline: string, touched: TouchedRows, events: readonly RecordedEvent[]): FoldedRows {
  const folder = rowFolder(pipeline, touched);
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
export function rowFolder(pipeline: string, touched: TouchedRows): RowFolder {
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
  const firstStatus = new Map<string, string | undefined>();
  const dirtyRuns = new Set<string>();
  let lastSuccess = before.lastSuccess;
  let lastFailure = before.lastFailure;
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
      if (key !== null) {
        const dateAfter = state.dates.get(key);
        if (dateAfter !== undefined && dateAfter !== dateBefore) {
          if (!firstStatus.has(key)) firstStatus.set(key, dateBefore?.status);
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
          dirtyRuns.add(runId);
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
    const dates: DateRow[] = [];
    for (const [key, was] of firstStatus) {
      const date = state.dates.get(key) as DateState;
      if (was !== undefined) counts[was] = (counts[was] ?? 0) - 1;
      counts[date.status] = (counts[date.status] ?? 0) + 1;
      // Done is a success or a skip (complete-through counts both): losing either walks it again.
      if (isDone(was as DateState['status'] | undefined) && !isDone(date.status)) lostSuccess = true;
      dates.push(dateRow(pipeline, date, dateRefs.get(key) as Refs));
    }
    const runs: RunRow[] = [];
    for (const runId of dirtyRuns) {
      const refs = runRefs.get(runId) as Refs & { seq: number };
      runs.push(runRow(pipeline, history.runs.get(runId) as RunRecord, refs.seq, refs));
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
      position: state.position,
    };
    const mode: CompleteThroughMode = redefined || lostSuccess ? 'recompute' : firstStatus.size > 0 ? 'advance' : 'keep';
    return { summary, dates, runs, completeThrough: mode, state };
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
export function timetableCache(): (definition: PipelineDefinition | null) => Timetable | null {
  const made = new Map<string, Timetable | null>();
  return (definition) => {
    if (definition === null) return null;
    const key = JSON.stringify([definition.schedule, definition.timetable, definition.timezone, definition.start, definition.end]);
    let timetable = made.get(key);
    if (timetable === undefined) {
      if (made.size >= 256) made.clear();
      timetable = timetableOf(definition);
      made.set(key, timetable);
    }
    return timetable;
  };
}

/**
 * Complete-through after an append: kept, walked on from where it stood, or walked again from the
 * first slot (after a redefinition or when a success was lost). `isSuccess` looks a key up (the folded
 * dates first, then the stored rows), so the walk reads one indexed row per slot it passes.
 *
 * @example
 * summary.completeThrough = completeThroughAfter(summary, mode, isSuccess, timetable);
 */
export function completeThroughAfter(summary: PipelineSummary, mode: CompleteThroughMode, isSuccess: (key: string) => boolean, timetable = timetableOf(summary.definition)): string | null {
  if (timetable === null) return null;
  if (mode === 'keep') return summary.completeThrough;
  let through: Slot | undefined;
  let next: Slot | undefined;
  if (mode === 'advance' && summary.completeThrough !== null) {
    through = timetable.slotAt(timetable.parseDate(summary.completeThrough));
    // A key the timetable no longer gives (never after a redefinition, which recomputes): walk again.
    next = through === undefined ? timetable.first() : timetable.next(through);
  } else {
    next = timetable.first();
  }
  if (through === undefined) next = timetable.first();
  for (; next !== undefined && isSuccess(next.date); next = timetable.next(next)) through = next;
  return through?.date ?? null;
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
  folded.summary.completeThrough = completeThroughAfter(folded.summary, 'recompute', (key) => isDone(folded.state.dates.get(key)?.status));
  return folded;
}
