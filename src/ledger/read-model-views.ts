import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { DateState } from '../../projections/date-state.js';
import { initialState, type PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { pipelineStatus, type PipelineStatus } from '../../projections/views/pipeline-status.js';
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
 * A pipeline's `status` row from its summary: the slots are walked from its complete-through date on
 * (every slot before it is a success, so none is pending), looking each date up among the rows read
 * from there, plus the runs in flight. What `pipelineStatus` computes over the whole fold, read in
 * what the answer costs.
 *
 * @example
 * const row = await statusFromTables(models, 'etl_orders', Date.now());
 */
export async function statusFromTables(models: ReadModels, pipeline: string, nowMs: number): Promise<{ status: PipelineStatus; view: TableView }> {
  const view = await tableView(models, pipeline);
  const { summary, timetable } = view;
  let slots: Iterable<Slot> = slotsFrom(timetable);
  if (summary.completeThrough !== null) {
    const [through] = await models.dates(pipeline, { keys: [summary.completeThrough] });
    const slot = through === undefined ? undefined : timetable.slotAt(Date.parse(through.logicalDate));
    if (through !== undefined && slot !== undefined) {
      withDates(view, await models.dates(pipeline, { fromMs: Date.parse(through.logicalDate), light: true }));
      slots = slotsFromSlot(timetable, slot);
    } else {
      withDates(view, await models.dates(pipeline, { light: true }));
    }
  } else {
    withDates(view, await models.dates(pipeline, { light: true }));
  }
  withDates(view, await models.dates(pipeline, { status: 'running', light: true }));
  const lastFailure = summary.lastFailure === null ? null : { date: summary.lastFailure.date, runId: summary.lastFailure.runId, at: summary.lastFailure.at, error: summary.lastFailure.error ?? '' };
  return { status: pipelineStatus({ state: view.state, lastFailure, slots, nowMs }), view };
}

function* slotsFromSlot(timetable: Timetable, first: Slot): Generator<Slot> {
  for (let slot: Slot | undefined = first; slot; slot = timetable.next(slot)) yield slot;
}
