import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { isDone, type DateState, type DateStatus } from '../../projections/date-state.js';
import { initialState, type PipelineState } from '../../projections/pipeline-state.js';
import type { PendingReason } from '../../projections/pending.js';
import type { Slot } from '../../projections/slot.js';
import { noPending, pendingReason, pipelineStatus, runsInFlight, statusRowOf, type LastFailure, type LastSuccess, type PipelineStatus, type PipelineStatusInput, type RunsInFlight } from '../../projections/views/pipeline-status.js';
import type { PipelineSummary, RunningDate, StatusSummary } from '../../projections/pipeline-summary.js';
import { timetableCache, type TimetableOf } from '../store/read-model-fold.js';
import type { ReadModels } from '../store/read-models.js';
import type { Timetable } from '../timetable/timetable.js';
import { checkPipelineName } from './build-definition.js';
import type { LedgerCore } from './ledger-core.js';
import type { AsOf } from './ledger-types.js';
import { definedPipeline } from './load-pipeline.js';
import { slotsFrom } from './slots.js';

/**
 * The read models to answer from, or null when the ledger must fold the events instead: a question
 * about the past (`asOf` is history, folded from the events), a store that keeps none, or tables that
 * cannot be brought up to date from this process (a read-only file of an older release).
 *
 * @example
 * const models = await readModelsFor(core, input.asOf);
 */
export async function readModelsFor(core: LedgerCore, asOf: AsOf | undefined): Promise<ReadModels | null> {
  if (asOf !== undefined) return null;
  const models = core.store.readModels;
  if (models === undefined) return null;
  return (await models.ensure(core.rebuildProgress)) ? models : null;
}

/** A pipeline as the tables hold it: its summary, and a folded state holding only the dates read. */
export type TableView = { summary: PipelineSummary; definition: PipelineDefinition; timetable: Timetable; state: PipelineState };

/** What a status row is made from when it needs no dates read (`statusOfViewNow`): a table view is one. */
export type StatusView = { summary: StatusSummary; definition: PipelineDefinition; timetable: Timetable };

/**
 * The status view of a defined pipeline's status summary (`eachStatusSummary`), its timetable from the store's cache.
 *
 * @example
 * const row = statusOfViewNow(statusView(models, summary, definition), nowMs);
 */
export function statusView(models: ReadModels, summary: StatusSummary, definition: PipelineDefinition): StatusView {
  return { summary, definition, timetable: timetablesOf(models)(definition) as Timetable };
}

/**
 * A pipeline's summary row and timetable, with `dates` as its state's dates; `notFound.pipeline` as a
 * fold would say it.
 *
 * @example
 * const view = await tableView(models, 'etl_orders');
 */
export async function tableView(models: ReadModels, pipeline: string): Promise<TableView> {
  checkPipelineName(pipeline);
  return viewOfSummary(models, pipeline, (await models.summary(pipeline)) ?? null);
}

/**
 * A table view of a summary row already read (`summaries`), or `notFound.pipeline` for a name without
 * one or without a definition, as `tableView` says it.
 */
export function viewOfSummary(models: ReadModels, pipeline: string, summary: PipelineSummary | null): TableView {
  if (summary === null || summary.definition === null) definedPipeline(initialState(pipeline)); // throws notFound.pipeline
  const defined = summary as PipelineSummary;
  const definition = defined.definition as PipelineDefinition;
  return new SummaryView(defined, definition, timetablesOf(models)(definition) as Timetable);
}

/**
 * A table view whose state is made when an answer reads dates into it: `status` over 1,000 pipelines reads none. A
 * class (its getter on the prototype), not an object literal with a getter, which V8 builds on a slow path each time;
 * so a spread (`{ ...view }`) has no `state`: name the fields instead.
 */
class SummaryView implements TableView {
  #state: PipelineState | undefined;

  constructor(
    readonly summary: PipelineSummary,
    readonly definition: PipelineDefinition,
    public timetable: Timetable,
  ) {}

  get state(): PipelineState {
    this.#state ??= stateOfSummary(this.summary, []);
    return this.#state;
  }
}

/** Timetables per definition, one cache per store's read models: `status` over 1,000 pipelines of a few schedules parsed each one. */
const timetableCaches = new WeakMap<ReadModels, TimetableOf>();
function timetablesOf(models: ReadModels): TimetableOf {
  let cache = timetableCaches.get(models);
  if (cache === undefined) {
    cache = timetableCache();
    timetableCaches.set(models, cache);
  }
  return cache;
}

/**
 * A defined pipeline's summary row alone, for answers that need no timetable (the watermark);
 * `notFound.pipeline` as `tableView` says it.
 *
 * @example
 * const { watermark } = await definedSummary(models, 'etl_orders');
 */
export async function definedSummary(models: ReadModels, pipeline: string): Promise<PipelineSummary> {
  checkPipelineName(pipeline);
  const summary = await models.summary(pipeline);
  if (summary === null || summary.definition === null) definedPipeline(initialState(pipeline));
  return summary as PipelineSummary;
}

/** The folded state a summary and some of its dates stand for (the dates not read are left out). */
export function stateOfSummary(summary: PipelineSummary, dates: readonly DateState[]): PipelineState {
  const state: PipelineState = {
    ...initialState(summary.pipeline),
    definition: summary.definition,
    definedAt: summary.definedAt,
    version: summary.version,
    watermark: summary.watermark,
    position: summary.position,
    paused: summary.paused,
    retired: summary.retired,
  };
  for (const date of dates) state.dates.set(date.date, date);
  return state;
}

/** Adds `dates` to a table view's state. */
export function withDates(view: TableView, dates: readonly DateState[]): TableView {
  for (const date of dates) view.state.dates.set(date.date, date);
  return view;
}

/** The counted part of a status row: what the walk over the due slots after complete-through gives. */
type PendingPart = Pick<PipelineStatus, 'behind' | 'pending' | 'blocked' | 'firstBlocked'>;

/**
 * A pipeline's `status` row from its summary: what `pipelineStatus` computes over the whole fold, read
 * in what the answer costs. Every slot up to complete-through is a success, and every date row that is
 * not done lies after it, so the pending counts are the summary's slot counts by status less the rows
 * dated after the last due slot (read by index, usually none), `missing` is the due slots after
 * complete-through (counted by the timetable, nothing formatted) less the rows among them, and stalled
 * runs come from the runs in flight (their own index). Three questions need the slots one by one and
 * walk the due slots after complete-through instead (`walkPending`): a pipeline with upstreams (which
 * slot waits for which upstream slot), one that depends on its past (which slot's previous one is not
 * done), and one whose rows were keyed under another zone (misaligned rows).
 *
 * @example
 * const { status } = await statusFromTables(models, 'etl_orders', Date.now());
 */
export async function statusFromTables(models: ReadModels, pipeline: string, nowMs: number, upstream: { blocked?: PipelineStatusInput['blocked'] } = {}): Promise<{ status: PipelineStatus; view: TableView }> {
  const view = await tableView(models, pipeline);
  return { status: await statusOfView(models, view, nowMs, upstream, true), view };
}

/**
 * The `status` row of a table view, as `statusFromTables` gives it. `throughRow`: also read the
 * complete-through date's row into the view's state (the metrics' logical date of complete-through needs
 * it; the row itself does not).
 */
export async function statusOfView(models: ReadModels, view: TableView, nowMs: number, upstream: { blocked?: PipelineStatusInput['blocked'] } = {}, throughRow = false): Promise<PipelineStatus> {
  const { summary, timetable } = view;
  const pipeline = summary.pipeline;
  const throughSlot = throughSlotOf(view);
  if (summary.completeThrough !== null && throughSlot === undefined) {
    // A complete-through key the timetable cannot place (never expected): the plain walk over the rows.
    withDates(view, await models.dates(pipeline, { light: true }));
    const lastFailure = lastFailureOf(summary);
    return pipelineStatus({ state: view.state, lastFailure, lastSuccess: lastSuccessOf(summary), slots: slotsFrom(timetable), nowMs, ...(upstream.blocked ? { blocked: upstream.blocked } : {}) });
  }
  if (throughRow && throughSlot !== undefined) withDates(view, await models.dates(pipeline, { keys: [throughSlot.date], light: true }));
  const at = dueAt(view, throughSlot, nowMs);
  let part: PendingPart;
  if (at.lastMs <= at.throughMs) part = nothingPending();
  else if (upstream.blocked !== undefined || mustWalk(view)) part = await walkPending(models, view, throughSlot, at.lastMs, nowMs, upstream.blocked);
  else part = countPending(view, at, await rowsAfterLastDue(models, summary, at.lastMs));
  return rowOfParts(view, at, part, nowMs);
}

/**
 * `statusOfView`'s row when it needs no read beyond the summary (no upstream, nothing to walk, no row dated after the
 * last due slot, a complete-through the timetable places), else undefined. Synchronous: `status` over 1,000 pipelines
 * answers nearly every row here, without the promises an async call and its awaits cost each row.
 *
 * @example
 * const row = statusOfViewNow(view, nowMs) ?? (await statusOfView(models, view, nowMs));
 */
export function statusOfViewNow(view: StatusView, nowMs: number): PipelineStatus | undefined {
  const { summary } = view;
  const throughSlot = throughSlotOf(view);
  if (summary.completeThrough !== null && throughSlot === undefined) return undefined;
  const at = dueAt(view, throughSlot, nowMs);
  if (at.lastMs <= at.throughMs) return rowOfParts(view, at, nothingPending(), nowMs);
  if (mustWalk(view) || afterLastDue(summary, at.lastMs)) return undefined;
  return rowOfParts(view, at, countPending(view, at, []), nowMs);
}

/** The counted part of a row with no due slot after complete-through. */
function nothingPending(): PendingPart {
  return { behind: 0, pending: noPending(), blocked: 0, firstBlocked: null };
}

/** Complete-through's slot: undefined when nothing is complete, or (never expected) when the timetable cannot place its key. */
function throughSlotOf({ summary, timetable }: StatusView): Slot | undefined {
  return summary.completeThrough === null ? undefined : timetable.slotAt(timetable.parseDate(summary.completeThrough));
}

/**
 * Where a status row's counting starts and ends: complete-through's slot and the last due one, as instants; and the
 * summary row's runs in flight (no date row is read for them), with the logical instant of each stalled one.
 */
type DueAt = { throughSlot: Slot | undefined; last: Slot | undefined; throughMs: number; lastMs: number; runs: RunsInFlight; stalledMs: number[] };

function dueAt(view: StatusView, throughSlot: Slot | undefined, nowMs: number): DueAt {
  const { summary, timetable } = view;
  const last = timetable.lastDue(nowMs);
  const throughMs = throughSlot === undefined ? Number.MIN_SAFE_INTEGER : throughLogicalMs(throughSlot.logicalDate);
  const lastMs = last === undefined ? Number.MIN_SAFE_INTEGER : lastLogicalMs(last.logicalDate);
  const stalledMs: number[] = [];
  return { throughSlot, last, throughMs, lastMs, runs: runsOfSummary(summary.running, nowMs, stalledMs), stalledMs };
}

/**
 * `Date.parse`, remembering the last text and its instant: the rows of one timetable ask the same slot's instants in
 * turn (1,000 `@daily` pipelines parsed the last due slot's logical date 1,000 times). One per question asked.
 */
function lastParsed(): (text: string) => number {
  let last: string | undefined;
  let lastMs = Number.NaN;
  return (text) => {
    if (text !== last) {
      lastMs = Date.parse(text);
      last = text;
    }
    return lastMs;
  };
}

const throughLogicalMs = lastParsed();
const lastLogicalMs = lastParsed();
const lagFromMs = lastParsed();
// The runs one scheduler pass started together hold one lease end: their rows ask it in turn.
const leaseEndMs = lastParsed();

/**
 * The runs in flight of a summary row as `statusRow` lists them (`runsInFlight`); the logical instants of the stalled
 * ones go to `stalledMs`, in their order. Most rows have none or one: answered here, each text parsed once.
 */
function runsOfSummary(running: readonly RunningDate[], nowMs: number, stalledMs: number[]): RunsInFlight {
  if (running.length === 0) return { inFlight: [], stalled: [] };
  if (running.length === 1) {
    const date = running[0] as RunningDate;
    const run = [{ date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt }];
    if (!(leaseEndMs(date.leaseExpiresAt) <= nowMs)) return { inFlight: run, stalled: [] };
    stalledMs.push(Date.parse(date.logicalDate));
    return { inFlight: [], stalled: run };
  }
  // Two or more: split and ordered by `runsInFlight` itself (a date is running once), the stalled ones' instants by date.
  const runs = runsInFlight(running.map((date) => ({ ...date, status: 'running' as const })), nowMs);
  const logicalMs = new Map(running.map((date) => [date.date, Date.parse(date.logicalDate)]));
  for (const run of runs.stalled) stalledMs.push(logicalMs.get(run.date) as number);
  return runs;
}

/** Questions that need the slots one by one (`walkPending`): depends-on-past, or rows keyed under another zone. */
function mustWalk(view: StatusView): boolean {
  return view.definition.dependsOnPast === true || view.summary.misaligned > 0;
}

/** Whether a row was ever dated after the last due slot (`rowsAfterLastDue` reads them). */
function afterLastDue(summary: StatusSummary, lastMs: number): boolean {
  return summary.latestMs !== null && summary.latestMs > lastMs;
}

/** The rows dated after the last due slot (not due): none read when no row was ever dated after it. */
async function rowsAfterLastDue(models: ReadModels, summary: PipelineSummary, lastMs: number): Promise<DateState[]> {
  return afterLastDue(summary, lastMs) ? await models.dates(summary.pipeline, { fromMs: lastMs + 1, light: true }) : [];
}

function rowOfParts(view: StatusView, at: DueAt, part: PendingPart, nowMs: number): PipelineStatus {
  const { summary, timetable, definition } = view;
  const firstSlotStart = at.throughSlot === undefined ? (timetable.first()?.dataInterval.start ?? null) : null;
  const throughSlot = at.throughSlot ?? null;
  // The parts one by one (`statusRowOf`), not an object of them made for each row.
  return statusRowOf(
    summary.pipeline,
    definition,
    summary.watermark?.date ?? null,
    throughSlot,
    firstSlotStart,
    at.last !== undefined,
    part.behind,
    part.pending,
    part.blocked,
    part.firstBlocked,
    at.runs.inFlight,
    at.runs.stalled,
    lastFailureOf(summary),
    lastSuccessOf(summary),
    nowMs,
    lagFromMs(throughSlot?.dataInterval.end ?? firstSlotStart ?? ''),
  );
}

/**
 * The pending counts from the summary's slot counts: no slot is visited, one is counted (by the
 * timetable's arithmetic), and only the rows after the last due slot and the running ones are read.
 */
function countPending(view: StatusView, at: DueAt, after: readonly DateState[]): PendingPart {
  const { summary, timetable } = view;
  const { throughMs, lastMs } = at;
  // Slot rows dated after the last due slot (`after`, usually none): not due, so not pending and not behind.
  const future: Record<string, number> = {};
  let futureRows = 0;
  for (const date of after) {
    if (timetable.slotKeyAt(Date.parse(date.logicalDate)) !== date.date) continue;
    future[date.status] = (future[date.status] ?? 0) + 1;
    futureRows += 1;
  }
  const counts = summary.slotCounts;
  let slotRows = 0;
  for (const status in counts) slotRows += counts[status] as number;
  const behind = timetable.countSlots(throughMs, lastMs);
  // Every slot through complete-through has a done row; the other rows up to the last due slot are the due ones after it.
  const rowsBehind = slotRows - summary.throughSlots - futureRows;
  const pending = noPending();
  pending.missing = behind - rowsBehind;
  pending.failed = (counts['failed'] ?? 0) - (future['failed'] ?? 0);
  pending.up_for_retry = (counts['up_for_retry'] ?? 0) - (future['up_for_retry'] ?? 0);
  pending.interrupted = (counts['interrupted'] ?? 0) - (future['interrupted'] ?? 0);
  pending.cleared = (counts['cleared'] ?? 0) - (future['cleared'] ?? 0);
  // A stalled run (its lease expired at `nowMs`, as `pendingReason` says) of a due slot is pending. The slot counts
  // say how many running dates are slots (by the same question to the same timetable): when all or none are, none is
  // asked again (each a key formatted in the pipeline's zone).
  const { stalled } = at.runs;
  const runningSlots = counts['running'] ?? 0;
  const allSlots = runningSlots === summary.running.length;
  if (runningSlots > 0 || allSlots) {
    for (let i = 0; i < stalled.length; i++) {
      const logicalMs = at.stalledMs[i] as number;
      if (logicalMs <= lastMs && (allSlots || timetable.slotKeyAt(logicalMs) === (stalled[i] as RunsInFlight['stalled'][number]).date)) pending.stalled += 1;
    }
  }
  pending.total = pending.missing + pending.failed + pending.up_for_retry + pending.interrupted + pending.cleared + pending.stalled;
  return { behind, pending, blocked: 0, firstBlocked: null };
}

/**
 * The pending counts by a walk over the due slots after complete-through (by the timetable's
 * allocation-free walk), each looked up among the compact (key, status, lease) tuples of the dates
 * after it. With `waitsFor`, each pending slot of the walk (and only those) is asked what upstream slot
 * it waits for, giving `blocked`, `firstBlocked` and the `upstream` count as the fold does.
 */
async function walkPending(models: ReadModels, view: TableView, throughSlot: Slot | undefined, lastMs: number, nowMs: number, waitsFor: PipelineStatusInput['blocked']): Promise<PendingPart> {
  const { summary, timetable, definition } = view;
  const afterMs = throughSlot === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(throughSlot.logicalDate);
  const known = new Map<string, [string, string]>();
  await models.statuses(summary.pipeline, afterMs, (date, status, lease) => known.set(date, [status, lease]));
  const pending = noPending();
  let behind = 0;
  let blocked = 0;
  let firstBlocked: PipelineStatus['firstBlocked'] = null;
  const dependsOnPast = definition.dependsOnPast === true;
  // The slot before the first one walked is complete-through's, which is done (none before the first slot).
  let previousDone: boolean | null = throughSlot === undefined ? null : true;
  timetable.eachSlot(afterMs + 1, lastMs, (date, logicalDate, end) => {
    behind += 1;
    const row = known.get(date);
    const status = row?.[0] as DateStatus | undefined;
    // Depends on past, as the fold's status decides it: a slot that would run afresh waits while the one before it is not done.
    const waiting = dependsOnPast && previousDone === false && (status === undefined || status === 'cleared');
    previousDone = isDone(status);
    let reason: PendingReason | null = waiting ? 'waitingForPrevious' : pendingReason(status, row?.[1] ?? '', nowMs);
    // As pipelineStatus decides it: a pending date that is not a stalled run, waiting for an upstream
    // slot that is not done, is blocked (a failed or up-for-retry one keeps its reason). Only pending slots build a Slot.
    if (reason !== null && reason !== 'stalled' && waitsFor !== undefined) {
      const by = waitsFor({ date, logicalDate, dataInterval: { start: logicalDate, end }, runAfter: end });
      if (by !== null) {
        blocked += 1;
        firstBlocked ??= { date, blockedBy: by };
        if (reason !== 'failed' && reason !== 'up_for_retry') reason = 'upstream';
      }
    }
    if (reason !== null) {
      pending[reason] += 1;
      pending.total += 1;
    }
  });
  return { behind, pending, blocked, firstBlocked };
}

function lastSuccessOf(summary: StatusSummary): LastSuccess | null {
  const last = summary.lastSuccess;
  return last === null ? null : { date: last.date, runId: last.runId, at: last.at };
}

function lastFailureOf(summary: StatusSummary): LastFailure | null {
  const last = summary.lastFailure;
  return last === null ? null : { date: last.date, runId: last.runId, at: last.at, error: last.error ?? '' };
}
