import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { DateState } from '../../projections/date-state.js';
import { initialState, type PipelineState } from '../../projections/pipeline-state.js';
import { leaseExpired } from '../../projections/date-state.js';
import type { PendingReason } from '../../projections/pending.js';
import { formatLag } from '../../projections/views/format-lag.js';
import { pipelineStatus, type LastFailure, type LastSuccess, type PendingCounts, type PipelineStatus, type PipelineStatusInput } from '../../projections/views/pipeline-status.js';
import type { PipelineSummary } from '../store/read-model-rows.js';
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

/**
 * A pipeline's summary row and timetable, with `dates` as its state's dates; `notFound.pipeline` as a
 * fold would say it.
 *
 * @example
 * const view = await tableView(models, 'etl_orders');
 */
export async function tableView(models: ReadModels, pipeline: string): Promise<TableView> {
  checkPipelineName(pipeline);
  const summary = (await models.summary(pipeline)) ?? null;
  const state = summary === null ? initialState(pipeline) : stateOfSummary(summary, []);
  const { definition, timetable } = definedPipeline(state);
  return { summary: summary as PipelineSummary, definition, timetable, state };
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
  };
  for (const date of dates) state.dates.set(date.date, date);
  return state;
}

/** Adds `dates` to a table view's state. */
export function withDates(view: TableView, dates: readonly DateState[]): TableView {
  for (const date of dates) view.state.dates.set(date.date, date);
  return view;
}

/**
 * A pipeline's `status` row from its summary: what `pipelineStatus` computes over the whole fold, read
 * in what the answer costs. Every slot up to complete-through is a success, so only the due slots after
 * it are walked (by the timetable's allocation-free walk), each looked up among the compact (key,
 * status, lease) tuples of the dates after it; the runs in flight are read by their own index. With
 * `upstream.blocked`, each pending date of the walk (and only those) is asked what upstream slot it
 * waits for, giving `blocked`, `firstBlocked` and the `upstream` pending count as the fold does.
 *
 * @example
 * const { status } = await statusFromTables(models, 'etl_orders', Date.now());
 */
export async function statusFromTables(models: ReadModels, pipeline: string, nowMs: number, upstream: { blocked?: PipelineStatusInput['blocked'] } = {}): Promise<{ status: PipelineStatus; view: TableView }> {
  const view = await tableView(models, pipeline);
  const { summary, timetable, definition } = view;
  const throughSlot = summary.completeThrough === null ? undefined : timetable.slotAt(timetable.parseDate(summary.completeThrough));
  if (summary.completeThrough !== null && throughSlot === undefined) {
    // A complete-through key the timetable cannot place (never expected): the plain walk over the rows.
    withDates(view, await models.dates(pipeline, { light: true }));
    const lastFailure = lastFailureOf(summary);
    return { status: pipelineStatus({ state: view.state, lastFailure, lastSuccess: lastSuccessOf(summary), slots: slotsFrom(timetable), nowMs, ...(upstream.blocked ? { blocked: upstream.blocked } : {}) }), view };
  }
  if (throughSlot !== undefined) withDates(view, await models.dates(pipeline, { keys: [throughSlot.date], light: true }));
  const afterMs = throughSlot === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(throughSlot.logicalDate);
  const known = new Map<string, [string, string]>();
  for (const [date, status, lease] of await models.statuses(pipeline, afterMs)) known.set(date, [status, lease]);
  const pending: PendingCounts = { total: 0, missing: 0, failed: 0, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 0, waitingForPrevious: 0, upstream: 0 };
  let behind = 0;
  let blocked = 0;
  let firstBlocked: PipelineStatus['firstBlocked'] = null;
  const waitsFor = upstream.blocked;
  const last = timetable.lastDue(nowMs);
  const dependsOnPast = definition.dependsOnPast === true;
  // The slot before the first one walked is complete-through's, which is done (none before the first slot).
  let previousDone: boolean | null = throughSlot === undefined ? null : true;
  if (last !== undefined) {
    timetable.eachSlot(afterMs + 1, Date.parse(last.logicalDate), (date, logicalDate, end) => {
      behind += 1;
      const row = known.get(date);
      const status = row?.[0];
      const done = status === 'success' || status === 'skipped';
      // Depends on past, as the fold's status decides it: a slot that would run afresh waits while the one before it is not done.
      const waiting = dependsOnPast && previousDone === false && (status === undefined || status === 'cleared');
      previousDone = done;
      let reason: PendingReason | null;
      if (waiting) reason = 'waitingForPrevious';
      else if (row === undefined) reason = 'missing';
      else if (status === 'running') reason = Date.parse(row[1]) <= nowMs ? 'stalled' : null;
      else if (done) reason = null;
      else reason = status as PendingReason;
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
        pending[reason] = (pending[reason] ?? 0) + 1;
        pending.total += 1;
      }
    });
  }
  const running = await models.dates(pipeline, { status: 'running', light: true });
  withDates(view, running);
  const inFlight: PipelineStatus['inFlight'] = [];
  const stalled: PipelineStatus['stalled'] = [];
  for (const date of running) (leaseExpired(date, nowMs) ? stalled : inFlight).push({ date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt });
  const completeUntil = throughSlot?.dataInterval.end ?? null;
  const lagFrom = completeUntil ?? timetable.first()?.dataInterval.start ?? null;
  const lagMs = last !== undefined || throughSlot !== undefined ? Math.max(0, nowMs - Date.parse(lagFrom ?? '')) : null;
  const status: PipelineStatus = {
    pipeline,
    schedule: definition.schedule,
    timezone: definition.timezone,
    watermark: summary.watermark?.date ?? null,
    completeThrough: throughSlot?.date ?? null,
    completeUntil,
    lagSeconds: lagMs !== null && Number.isFinite(lagMs) ? lagMs / 1000 : null,
    lag: lagMs !== null && Number.isFinite(lagMs) ? formatLag(lagMs) : '-',
    behind,
    pending,
    blocked,
    firstBlocked,
    inFlight,
    stalled,
    lastFailure: lastFailureOf(summary),
    lastSuccess: lastSuccessOf(summary),
    freshnessSeconds: definition.freshnessMs === undefined ? null : definition.freshnessMs / 1000,
  };
  return { status, view };
}

function lastSuccessOf(summary: PipelineSummary): LastSuccess | null {
  const last = summary.lastSuccess;
  return last === null ? null : { date: last.date, runId: last.runId, at: last.at };
}

function lastFailureOf(summary: PipelineSummary): LastFailure | null {
  const last = summary.lastFailure;
  return last === null ? null : { date: last.date, runId: last.runId, at: last.at, error: last.error ?? '' };
}
