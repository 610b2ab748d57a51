import { sortedTally, tallyRun, type RunTally } from '../../projections/views/run-tally.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { completeThrough } from '../../projections/complete-through.js';
import { isDone, leaseExpired, type DateState } from '../../projections/date-state.js';
import { deriveRunOutcome } from '../../projections/derive-run-outcome.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { DataInterval, Slot } from '../../projections/slot.js';
import { taskGrid } from '../../projections/task-grid.js';
import { LedgerError } from '../errors.js';
import type { Timetable } from '../timetable/timetable.js';
import type { LedgerCore } from './ledger-core.js';
import type { AsOf, DateRow, PendingView, RangeInput, RunsView, StateInput, StateView, WatermarkView } from './ledger-types.js';
import { byInstantSlotFirst, cursorFrom, pageEnd, pageOfRows, type Timed } from './page-rows.js';
import { nowFor, readPipeline } from './load-pipeline.js';
import { definedSummary, readModelsFor, statusOfView, tableView, withDates, type TableView } from './read-model-views.js';
import { withPause, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { statusOfFold } from './status-of-fold.js';
import { keyOf, rangeOf } from './resolve-keys.js';
import { parseRangeStart } from '../timetable/parse-range-end.js';
import { boundedSlots, duePending, previousSlot, slotsFrom } from './slots.js';
import { blockingRule, loadUpstreams } from './load-upstreams.js';
import { markBlocked } from '../../projections/pending.js';
import type { BlockedBy } from '../../projections/upstream-slots.js';
import type { TaskGridInput, TaskGridView } from './task-types.js';
import type { ReadModels } from '../store/read-models.js';

/**
 * Per-date state from the latest run of each date, with the watermark and complete-through.
 *
 * @example
 * const view = await stateView(core, { pipeline: 'etl_orders', from: '2026-11-02' });
 */
export async function stateView(core: LedgerCore, input: StateInput): Promise<StateView> {
  // "Now" first: after the load, nothing may await until the view is built, or a concurrent call could advance the shared state mid-view.
  const nowMs = await nowFor(core, input.asOf);
  const blocked = await blockingFor(core, input);
  const models = await readModelsFor(core, input.asOf);
  let timetable: Timetable;
  let state: PipelineState;
  let fromMs: number;
  let rangeEndMs: number;
  let toMs: number;
  let through: () => string | null;
  // Keys whose state sits at another instant than their slot (kept from an earlier zone): their slot is no row.
  const moved = new Set<string>();
  if (models !== null) {
    // The summary row, then only the dates of the range (of the page, with a limit), by their logical dates' index.
    const view = await tableView(models, input.pipeline);
    timetable = view.timetable;
    [fromMs, rangeEndMs] = rangeOf(timetable, input, nowMs);
    toMs = pageEnd(timetable, fromMs, rangeEndMs, input.limit, moved);
    // Only day keys can name a slot and sit elsewhere; those of the page's slots are looked up by key.
    for (let round = 0; timetable.dailyKeys && input.limit !== undefined && round < 16; round++) {
      const keys: string[] = [];
      for (const slot of boundedSlots(timetable, fromMs, toMs)) if (!moved.has(slot.date)) keys.push(slot.date);
      const before = moved.size;
      for (const date of await models.dates(input.pipeline, { keys, light: true })) {
        const at = Date.parse(date.logicalDate);
        if (at >= fromMs && at <= rangeEndMs && isMoved(timetable, date.date, at)) moved.add(date.date);
      }
      if (moved.size === before) break;
      toMs = pageEnd(timetable, fromMs, rangeEndMs, input.limit, moved);
    }
    // Off-schedule runs outside the slots show too unless the range is bounded (see offScheduleBounds): fetch their rows as well.
    const reach = offScheduleBounds(input, fromMs, toMs, rangeEndMs, nowMs);
    const results = input.metrics === false ? { withoutResults: true } : {};
    state = withDates(view, await models.dates(input.pipeline, { fromMs: Math.max(reach.from, Number.MIN_SAFE_INTEGER), toMs: reach.to, ...results })).state;
    through = () => view.summary.completeThrough;
  } else {
    ({ timetable, state } = await readPipeline(core, input.pipeline, input.asOf));
    [fromMs, rangeEndMs] = rangeOf(timetable, input, nowMs);
    for (const date of state.dates.values()) {
      const at = Date.parse(date.logicalDate);
      if (at >= fromMs && at <= rangeEndMs && isMoved(timetable, date.date, at)) moved.add(date.date);
    }
    // A page reads only as far as it can reach.
    toMs = pageEnd(timetable, fromMs, rangeEndMs, input.limit, moved);
    const folded = timetable;
    through = () => completeThroughOf(folded, state);
  }
  const recorded: Array<Timed<DateRow>> = [];
  // Off-schedule (manual) runs show even outside the slots: before the start, or after the last due slot, unless the
  // caller bounded the range. A recorded slot row shows after the last due slot too (up to now, on the same terms): a
  // redefinition can make its slot one that is not due yet (daily to @weekly), and nothing recorded leaves `state`.
  const open = offScheduleBounds(input, fromMs, toMs, rangeEndMs, nowMs);
  const onSchedule = { from: fromMs, to: open.to };
  for (const date of state.dates.values()) {
    const at = Date.parse(date.logicalDate);
    const bounds = date.offSchedule ? open : onSchedule;
    if (at < bounds.from || at > bounds.to) continue;
    recorded.push({ at, key: date.date, row: dateRow(date, nowMs, input.metrics !== false) });
  }
  recorded.sort(byInstantSlotFirst(timetable));
  // The slots are walked lazily: a page of a long range builds only its own rows.
  // A slot after the last due one is not due (an explicit --to past now): shown, never counted as missing.
  const lastDue = timetable.lastDue(nowMs);
  const lastTick = lastDue === undefined ? Number.NEGATIVE_INFINITY : Date.parse(lastDue.logicalDate);
  const slots = (function* () {
    for (const slot of boundedSlots(timetable, fromMs, toMs)) {
      const at = Date.parse(slot.logicalDate);
      yield { at, key: slot.date, row: slotRow(slot, at > lastTick ? 'not-due' : 'missing') };
    }
  })();
  const { rows: page, next } = pageOfRows(slots, recorded, input.limit, new Set([...recorded.map((r) => r.key), ...moved]));
  // Upstream blocking is looked up for the page's rows only (a date waiting for an upstream slot that is not done).
  const rows = blocked === undefined ? page : page.map((row) => withBlockedBy(row, blocked));
  const view: StateView = { pipeline: input.pipeline, watermark: state.watermark?.date ?? null, completeThrough: through(), position: state.position, dates: rows };
  if (input.limit !== undefined) view.nextFrom = next === null ? null : cursorFrom(timetable, next.key, next.at, next.row.logicalDate);
  return view;
}

/**
 * The instants an off-schedule row may sit between: before the first slot when the caller gave no `from` (so only on
 * the first page), after the last due slot when it gave no `to` and this page reaches the range's end.
 */
function offScheduleBounds(input: StateInput, fromMs: number, toMs: number, rangeEndMs: number, nowMs: number): { from: number; to: number } {
  return {
    from: input.from === undefined ? Number.NEGATIVE_INFINITY : fromMs,
    to: input.to === undefined && toMs >= rangeEndMs ? Math.max(toMs, nowMs) : toMs,
  };
}

/** True for a key that names a slot of the timetable at another instant than its own (a day key kept from an earlier zone). */
function isMoved(timetable: Timetable, key: string, at: number): boolean {
  if (!timetable.dailyKeys) return false;
  try {
    return parseRangeStart(timetable, key) !== at;
  } catch {
    return false;
  }
}

function dateRow(date: DateState, nowMs: number, results = true): DateRow {
  return {
    date: date.date,
    status: date.status,
    runId: date.runId,
    attempt: date.attempt,
    attempts: date.attempts,
    runType: date.runType,
    logicalDate: date.logicalDate,
    dataInterval: date.dataInterval,
    startedAt: date.startedAt,
    finishedAt: date.finishedAt,
    leaseExpiresAt: date.leaseExpiresAt,
    metrics: results ? date.metrics : null,
    outputs: results ? date.outputs : [],
    error: date.error?.message ?? null,
    errorCode: date.error?.code ?? null,
    offSchedule: date.offSchedule,
    stalled: leaseExpired(date, nowMs),
    ...(date.clearCause === undefined ? {} : { clearCause: date.clearCause }),
    ...(date.mark ? { mark: date.mark } : {}),
    ...(date.retry ? { retry: date.retry } : {}),
  };
}

/** A row that is not done (not a success, nor a run whose lease is live) with the first upstream slot it waits for, if any. */
function withBlockedBy(row: DateRow, blocked: (interval: DataInterval) => BlockedBy | null): DateRow {
  if (row.status === 'success' || row.status === 'not-due' || (row.status === 'running' && !row.stalled)) return row;
  const by = blocked(row.dataInterval);
  return by === null ? row : { ...row, blockedBy: by };
}

/**
 * The watermark (greatest date ever successful; it never goes down) and complete-through (every date from the start up to it is successful now).
 *
 * @example
 * const { watermark } = await watermarkView(core, { pipeline: 'etl_orders' });
 */
export async function watermarkView(core: LedgerCore, input: { pipeline: string; asOf?: AsOf }): Promise<WatermarkView> {
  const models = await readModelsFor(core, input.asOf);
  if (models !== null) {
    // One summary row: no date is read, and no timetable is built.
    const summary = await definedSummary(models, input.pipeline);
    return { pipeline: input.pipeline, watermark: summary.watermark?.date ?? null, completeThrough: summary.completeThrough };
  }
  const { timetable, state } = await readPipeline(core, input.pipeline, input.asOf);
  return { pipeline: input.pipeline, watermark: state.watermark?.date ?? null, completeThrough: completeThroughOf(timetable, state) };
}

/**
 * Slots due by `now` that are not done, with reasons; running ones apart.
 *
 * @example
 * const { missing } = await pendingView(core, { pipeline: 'etl_orders' });
 */
export async function pendingView(core: LedgerCore, input: RangeInput): Promise<PendingView> {
  // "Now" first: after the load, nothing may await until the view is built, or a concurrent call could advance the shared state mid-view.
  const nowMs = await nowFor(core, input.asOf);
  const blocked = await blockingFor(core, input);
  const models = await readModelsFor(core, input.asOf);
  let definition: PipelineDefinition;
  let timetable: Timetable;
  let state: PipelineState;
  let fromMs: number;
  let toMs: number;
  if (models !== null) {
    // The timetable is walked over the range; the dates that had events are read by index, the rest are missing.
    const view = await tableView(models, input.pipeline);
    ({ definition, timetable } = view);
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
    // Off-schedule runs outside the slots show too unless the range is bounded (see below): fetch their rows as well.
    const fetchFrom = input.from === undefined ? Number.MIN_SAFE_INTEGER : fromMs;
    const fetchTo = input.to === undefined ? Math.max(toMs, nowMs) : toMs;
    // Light rows (no metrics read from their events); only the rows that carry an error are read again whole, for its full text.
    state = withDates(view, await models.dates(input.pipeline, { fromMs: fetchFrom, toMs: fetchTo, light: true })).state;
    const erred = [...state.dates.values()].filter((date) => date.error !== null && !isDone(date.status)).map((date) => date.date);
    if (erred.length > 0) withDates(view, await models.dates(input.pipeline, { keys: erred }));
    // Depends on past: the slot before the range says whether the range's first date waits for it.
    const before = definition.dependsOnPast ? previousSlot(timetable, fromMs) : undefined;
    if (before) withDates(view, await models.dates(input.pipeline, { keys: [before.date], light: true }));
  } else {
    ({ definition, timetable, state } = await readPipeline(core, input.pipeline, input.asOf));
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
  }
  // Pending means due: an explicit --to past now must not list tomorrow as missing.
  // A slot already started early (a manual run) keeps its state visible.
  const { from, to, pending, inFlight } = duePending(timetable, fromMs, toMs, nowMs, state, definition.dependsOnPast === true, input.to === undefined);
  markBlocked(pending, state, blocked === undefined ? null : (slot) => blocked(slot.dataInterval));
  return { pipeline: input.pipeline, from, to, pending, inFlight };
}

/**
 * Every run (attempt) of a pipeline, oldest first; `limit` keeps the last n, `before` (a run id) pages back.
 *
 * @example
 * const { runs } = await runsView(core, { pipeline: 'etl_orders', date: '2026-11-03' });
 */
export async function runsView(core: LedgerCore, input: RunsInput): Promise<RunsView> {
  const models = await readModelsFor(core, input.asOf);
  if (models !== null) {
    const view = await tableView(models, input.pipeline);
    let key: string | undefined;
    if (input.date !== undefined) {
      // A key recorded under an earlier timetable still names itself, as in the fold.
      withDates(view, await models.dates(input.pipeline, { keys: [input.date], light: true }));
      key = keyOf(view.timetable, input.date, view.state);
    }
    // This pipeline's run of that id: another pipeline's run may share it.
    const before = input.before === undefined ? undefined : await models.run(input.before, input.pipeline);
    if (input.before !== undefined && (before === null || before === undefined)) throw unknownRun(input.pipeline, input.before);
    const page = { ...(key === undefined ? {} : { date: key }), ...(input.limit === undefined ? {} : { limit: input.limit }), ...(before ? { before: before.seq } : {}), ...(input.light ? { light: true } : {}) };
    return { pipeline: input.pipeline, runs: await models.runs(input.pipeline, page) };
  }
  const { timetable, state, history } = await readPipeline(core, input.pipeline, input.asOf);
  const key = input.date === undefined ? undefined : keyOf(timetable, input.date, state);
  const runs = [...history.runs.values()].filter((run) => key === undefined || run.date === key);
  return { pipeline: input.pipeline, runs: pageOf(runs, input) };
}

/**
 * The task grid of one run: every declared task with its latest state and try, and the outcome they imply.
 *
 * @example
 * const { tasks } = await runTasksView(core, { pipeline: 'etl_orders', runId });
 */
export async function runTasksView(core: LedgerCore, input: TaskGridInput): Promise<TaskGridView> {
  const { definition, history, tasks } = await readPipeline(core, input.pipeline, input.asOf);
  const run = history.runs.get(input.runId);
  if (!run) throw new LedgerError('notFound.run', `no run ${input.runId} of ${input.pipeline}${input.asOf ? ' at that point' : ''}; list its runs with \`runledger runs ${input.pipeline}\``);
  const reported = tasks.runs.get(input.runId) ?? new Map();
  const outcome = definition.tasks ? deriveRunOutcome(definition.tasks, reported) : null;
  return { pipeline: input.pipeline, run, tasks: taskGrid(definition.tasks ?? [], reported), outcome };
}

/**
 * The blocking rule of a pipeline's upstreams as they stand at the query's point, or undefined when it
 * has none (then nothing more is read). Read before the pipeline's own final load, so nothing awaits
 * between that load and the view. With read models, the definition is the summary row's and each
 * upstream's states are its date rows; otherwise both are folded.
 */
async function blockingFor(core: LedgerCore, input: { pipeline: string; asOf?: AsOf }) {
  const models = await readModelsFor(core, input.asOf);
  const definition = models !== null ? (await tableView(models, input.pipeline)).definition : (await readPipeline(core, input.pipeline, input.asOf)).definition;
  if (!definition.upstreams) return undefined;
  const read = async (name: string) => (models !== null ? withDates(await tableView(models, name), await models.dates(name, { light: true })) : readPipeline(core, name, input.asOf));
  return blockingRule(await loadUpstreams(definition, read));
}

/** The runs a page asks for: the last `limit` of those started before the run `before`. */
function pageOf(runs: RunsView['runs'], input: RunsInput): RunsView['runs'] {
  if (input.limit === undefined && input.before === undefined) return runs;
  let until = runs.length;
  if (input.before !== undefined) {
    until = runs.findIndex((run) => run.runId === input.before);
    if (until === -1) throw unknownRun(input.pipeline, input.before);
  }
  const from = input.limit === undefined ? 0 : Math.max(0, until - input.limit);
  return runs.slice(from, until);
}

function unknownRun(pipeline: string, runId: string): LedgerError {
  return new LedgerError('notFound.run', `no run ${runId} of ${pipeline}; list its runs with \`runledger runs ${pipeline}\``);
}

/**
 * Which runs `Ledger.runs` lists: every run of the pipeline (or of one date), oldest first; `limit` keeps
 * the last n, `before` (a run id) pages back to the runs started before that one.
 */
export type RunsInput = {
  pipeline: string;
  date?: string;
  asOf?: AsOf;
  limit?: number;
  before?: string;
  /** Metrics only as "some were recorded" (`{}`) and long errors as excerpts: enough for outcomes and durations, and no event is read. */
  light?: boolean;
};

function completeThroughOf(timetable: Timetable, state: PipelineState): string | null {
  return completeThrough(state, slotsFrom(timetable));
}

/** The row of a slot with no state: `missing` when it is due, `not-due` when its run-after is still ahead. */
function slotRow(slot: Slot, status: 'missing' | 'not-due'): DateRow {
  return {
    date: slot.date,
    status,
    runId: null,
    attempt: null,
    attempts: 0,
    runType: null,
    logicalDate: slot.logicalDate,
    dataInterval: slot.dataInterval,
    startedAt: null,
    finishedAt: null,
    leaseExpiresAt: null,
    metrics: null,
    outputs: [],
    error: null,
    errorCode: null,
    offSchedule: false,
    stalled: false,
  };
}

/**
 * A pipeline's `status` row, with what the metrics add to it: the logical dates of its watermark and
 * complete-through, and its finished runs by outcome with their durations (`RunTally`).
 */
export type PipelineStatusView = { status: PipelineStatus; watermarkLogicalDate: string | null; completeThroughLogicalDate: string | null; runTally: RunTally };

/**
 * The status view of a pipeline's table view (its summary row, however it was read: alone, or with every
 * other one at once as a scrape reads them), with complete-through's row read for its logical date.
 *
 * @example
 * const { status, runTally } = await statusViewOfTable(models, await tableView(models, 'etl_orders'), Date.now());
 */
export async function statusViewOfTable(models: ReadModels, view: TableView, nowMs: number, upstream: { blocked?: (slot: Slot) => BlockedBy | null } = {}): Promise<PipelineStatusView> {
  const status = await statusOfView(models, view, nowMs, upstream, true);
  const through = status.completeThrough === null ? undefined : view.state.dates.get(status.completeThrough);
  return { status, watermarkLogicalDate: view.summary.watermark?.logicalDate ?? null, completeThroughLogicalDate: through?.logicalDate ?? null, runTally: view.summary.runTally };
}

/**
 * A pipeline's `status` row at `nowMs`: from its summary row and the dates after its complete-through
 * when the ledger keeps read models, else from the fold.
 *
 * @example
 * const { status } = await pipelineStatusView(core, 'etl_orders', Date.now());
 */
export async function pipelineStatusView(core: LedgerCore, pipeline: string, nowMs: number): Promise<PipelineStatusView> {
  const rule = await blockingFor(core, { pipeline });
  const blocked: { blocked?: (slot: Slot) => BlockedBy | null } = rule === undefined ? {} : { blocked: (slot: Slot) => rule(slot.dataInterval) };
  const models = await readModelsFor(core, undefined);
  if (models !== null) {
    const view = await tableView(models, pipeline);
    const found = await statusViewOfTable(models, view, nowMs, blocked);
    return { ...found, status: withPause(found.status, view.summary.paused) };
  }
  const { timetable, state, history } = await readPipeline(core, pipeline);
  const status = withPause(statusOfFold({ timetable, state, history, nowMs, ...blocked }), state.paused);
  const through = status.completeThrough === null ? undefined : state.dates.get(status.completeThrough);
  const runTally: RunTally = {};
  for (const run of history.runs.values()) tallyRun(runTally, run, 1);
  return { status, watermarkLogicalDate: state.watermark?.logicalDate ?? null, completeThroughLogicalDate: through?.logicalDate ?? null, runTally: sortedTally(runTally) };
}
