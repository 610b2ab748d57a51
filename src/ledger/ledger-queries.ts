import { completeThrough } from '../../projections/complete-through.js';
import { leaseExpired } from '../../projections/date-state.js';
import { deriveRunOutcome } from '../../projections/derive-run-outcome.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { taskGrid } from '../../projections/task-grid.js';
import { LedgerError } from '../errors.js';
import type { Timetable } from '../timetable/timetable.js';
import type { LedgerCore } from './ledger-core.js';
import type { AsOf, DateRow, PendingView, RangeInput, RunsView, StateView, WatermarkView } from './ledger-types.js';
import { nowFor, readPipeline } from './load-pipeline.js';
import { readModelsFor, statusFromTables, tableView, withDates } from './read-model-views.js';
import { pipelineStatus, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { keyOf, rangeOf } from './resolve-keys.js';
import { boundedSlots, duePending, slotsFrom } from './slots.js';
import type { TaskGridInput, TaskGridView } from './task-types.js';

/**
 * Per-date state from the latest run of each date, with the watermark and complete-through.
 *
 * @example
 * const view = await stateView(core, { pipeline: 'etl_orders', from: '2026-11-02' });
 */
export async function stateView(core: LedgerCore, input: RangeInput): Promise<StateView> {
  // "Now" first: after the load, nothing may await until the view is built, or a concurrent call could advance the shared state mid-view.
  const nowMs = await nowFor(core, input.asOf);
  const models = await readModelsFor(core, input.asOf);
  let timetable: Timetable;
  let state: PipelineState;
  let fromMs: number;
  let toMs: number;
  let through: () => string | null;
  if (models !== null) {
    // The summary row, then only the dates of the range, by their logical dates' index.
    const view = await tableView(models, input.pipeline);
    timetable = view.timetable;
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
    // Off-schedule runs outside the slots show too unless the range is bounded (see below): fetch their rows as well.
    const fetchFrom = input.from === undefined ? Number.MIN_SAFE_INTEGER : fromMs;
    const fetchTo = input.to === undefined ? Math.max(toMs, nowMs) : toMs;
    state = withDates(view, await models.dates(input.pipeline, { fromMs: fetchFrom, toMs: fetchTo })).state;
    through = () => view.summary.completeThrough;
  } else {
    ({ timetable, state } = await readPipeline(core, input.pipeline, input.asOf));
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
    through = () => completeThroughOf(timetable, state);
  }
  const rows = new Map<string, DateRow>();
  for (const slot of boundedSlots(timetable, fromMs, toMs)) rows.set(slot.date, missingRow(slot));
  for (const date of state.dates.values()) {
    const at = Date.parse(date.logicalDate);
    // Off-schedule (manual) runs show even outside the slots: before the start, or after the last due slot,
    // unless the caller bounded the range.
    const from = date.offSchedule && input.from === undefined ? Number.NEGATIVE_INFINITY : fromMs;
    const to = date.offSchedule && input.to === undefined ? Math.max(toMs, nowMs) : toMs;
    if (at < from || at > to) continue;
    rows.set(date.date, {
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
      metrics: date.metrics,
      outputs: date.outputs,
      error: date.error?.message ?? null,
      errorCode: date.error?.code ?? null,
      offSchedule: date.offSchedule,
      stalled: leaseExpired(date, nowMs),
    });
  }
  // Each logical date parsed once, not once per comparison.
  const dates = [...rows.values()]
    .map((row) => ({ at: Date.parse(row.logicalDate), row }))
    .sort((a, b) => a.at - b.at)
    .map(({ row }) => row);
  return { pipeline: input.pipeline, watermark: state.watermark?.date ?? null, completeThrough: through(), position: state.position, dates };
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
    // One summary row: no date is read.
    const { summary } = await tableView(models, input.pipeline);
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
  const models = await readModelsFor(core, input.asOf);
  let timetable: Timetable;
  let state: PipelineState;
  let fromMs: number;
  let toMs: number;
  if (models !== null) {
    // The timetable is walked over the range; the dates that had events are read by index, the rest are missing.
    const view = await tableView(models, input.pipeline);
    timetable = view.timetable;
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
    // Off-schedule runs outside the slots show too unless the range is bounded (see below): fetch their rows as well.
    const fetchFrom = input.from === undefined ? Number.MIN_SAFE_INTEGER : fromMs;
    const fetchTo = input.to === undefined ? Math.max(toMs, nowMs) : toMs;
    state = withDates(view, await models.dates(input.pipeline, { fromMs: fetchFrom, toMs: fetchTo })).state;
  } else {
    ({ timetable, state } = await readPipeline(core, input.pipeline, input.asOf));
    [fromMs, toMs] = rangeOf(timetable, input, nowMs);
  }
  // Pending means due: an explicit --to past now must not list tomorrow as missing.
  // A slot already started early (a manual run) keeps its state visible.
  const { from, to, pending, inFlight } = duePending(timetable, fromMs, toMs, nowMs, state);
  return { pipeline: input.pipeline, from, to, pending, inFlight };
}

/**
 * Every run (attempt) of a pipeline, oldest first.
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
    const before = input.before === undefined ? undefined : await models.run(input.before);
    if (input.before !== undefined && (before === null || before === undefined || before.pipeline !== input.pipeline)) throw unknownRun(input.pipeline, input.before);
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

function missingRow(slot: Slot): DateRow {
  return {
    date: slot.date,
    status: 'missing',
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

/** A pipeline's `status` row, with the logical dates of its watermark and complete-through (for the metrics). */
export type PipelineStatusView = { status: PipelineStatus; watermarkLogicalDate: string | null; completeThroughLogicalDate: string | null };

/**
 * A pipeline's `status` row at `nowMs`: from its summary row and the dates after its complete-through
 * when the ledger keeps read models, else from the fold.
 *
 * @example
 * const { status } = await pipelineStatusView(core, 'etl_orders', Date.now());
 */
export async function pipelineStatusView(core: LedgerCore, pipeline: string, nowMs: number): Promise<PipelineStatusView> {
  const models = await readModelsFor(core, undefined);
  if (models !== null) {
    const { status, view } = await statusFromTables(models, pipeline, nowMs);
    const through = status.completeThrough === null ? undefined : view.state.dates.get(status.completeThrough);
    return { status, watermarkLogicalDate: view.summary.watermark?.logicalDate ?? null, completeThroughLogicalDate: through?.logicalDate ?? null };
  }
  const { timetable, state, history } = await readPipeline(core, pipeline);
  const status = pipelineStatus({ state, history, slots: slotsFrom(timetable), nowMs });
  const through = status.completeThrough === null ? undefined : state.dates.get(status.completeThrough);
  return { status, watermarkLogicalDate: state.watermark?.logicalDate ?? null, completeThroughLogicalDate: through?.logicalDate ?? null };
}
