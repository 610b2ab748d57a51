import { withPause, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { retiredText, type PipelineControl } from '../../projections/pipeline-control.js';
import { LedgerError } from '../errors.js';
import { listControls } from './list-controls.js';
import { PIPELINE_NAME_PATTERN } from '../../events/name-patterns.js';
import type { PipelineSummary } from '../../projections/pipeline-summary.js';
import type { ReadModels } from '../store/read-models.js';
import { checkPipelineName } from './build-definition.js';
import type { LedgerCore } from './ledger-core.js';
import { pipelineStatusView } from './ledger-queries.js';
import { listPipelines } from './load-pipeline.js';
import { compareNames } from '../../projections/views/compare-names.js';
import { readModelsFor, statusOfView, statusOfViewNow, statusView, tableView, viewOfSummary, type StatusView, type TableView } from './read-model-views.js';
import { memoTimetable } from '../timetable/memo-timetable.js';
import type { Timetable } from '../timetable/timetable.js';

/**
 * The `status` rows of the named pipelines (every defined one, by name, when `names` is undefined) at
 * `nowMs`, in that order: each row what `pipelineStatusView` gives. With read models, every summary row
 * is read in one statement and every running date in another, instead of a summary twice and the running
 * dates and complete-through's row once per pipeline; a pipeline with upstreams (whose blocking rule
 * reads its upstreams' dates) is still read alone. `notFound.pipeline` for the first unknown name.
 *
 * @example
 * const rows = await pipelineStatusesView(core, undefined, Date.now());
 */
export async function pipelineStatusesView(core: LedgerCore, names: readonly string[] | undefined, nowMs: number): Promise<PipelineStatus[]> {
  const models = await readModelsFor(core, undefined);
  const rows: PipelineStatus[] = [];
  if (models === null) {
    const controls = await listControls(core);
    for (const name of names ?? (await listPipelines(core)).map((d) => d.pipeline).filter((name) => !controls.get(name)?.retired)) {
      const retired = controls.get(name)?.retired;
      if (retired) refuseRetired(name, retired);
      rows.push((await pipelineStatusView(core, name, nowMs)).status);
    }
    return rows;
  }
  if (names === undefined) return await everyStatus(core, models, nowMs);
  // Named pipelines read their own rows (`status etl_orders` on a ledger of 1,000 read all 1,000 before).
  const summaries = new Map((await namedSummaries(models, names)).map((summary) => [summary.pipeline, summary]));
  const memos = new Map<Timetable, Timetable>();
  const pooled = new Set<string>();
  for (const name of names) {
    checkPipelineName(name);
    const view = viewOfSummary(models, name, summaries.get(name) ?? null);
    if (view.summary.retired !== null) refuseRetired(name, view.summary.retired);
    if (view.definition.pool !== undefined) pooled.add(name);
    rows.push(view.definition.upstreams ? (await pipelineStatusView(core, name, nowMs)).status : await tableRow(models, view, memos, nowMs));
  }
  return inPools(rows, pooled);
}

/**
 * Every defined pipeline's row that is not retired, by name (`compareNames`, the order the table is read in). Each summary becomes its row as it is read (most need no
 * other read), so the summaries of 1,000 pipelines are never all held at once; a pipeline with upstreams (whose
 * blocking rule reads its upstreams' dates) or whose row needs dates read is answered after the table is read.
 */
async function everyStatus(core: LedgerCore, models: ReadModels, nowMs: number): Promise<PipelineStatus[]> {
  const rows: PipelineStatus[] = [];
  const later: string[] = [];
  const pooled = new Set<string>();
  // Pipelines of one timetable (the cache shares it) ask it the same questions at the same "now".
  const memos = new Map<Timetable, Timetable>();
  await models.eachStatusSummary((summary) => {
    const { definition } = summary;
    if (definition === null || summary.retired !== null) return;
    if (definition.pool !== undefined) pooled.add(summary.pipeline);
    const view = memoized(statusView(models, summary, definition), memos);
    const row = definition.upstreams ? undefined : statusOfViewNow(view, nowMs);
    if (row === undefined) later.push(summary.pipeline);
    else rows.push(withPause(row, summary.paused));
  });
  // Rows that read dates or upstreams: their whole summaries, read one by one now that the table is read.
  for (const name of later) {
    const view = await tableView(models, name);
    if (view.definition.pool !== undefined) pooled.add(name);
    rows.push(view.definition.upstreams ? (await pipelineStatusView(core, name, nowMs)).status : await tableRow(models, view, memos, nowMs));
  }
  // The table gives the rows by name (`eachStatusSummary`); only rows answered after it must be put in their places.
  return inPools(later.length === 0 ? rows : rows.sort((a, b) => compareNames(a.pipeline, b.pipeline)), pooled);
}

/** A pipeline's row from the tables, its timetable shared with the pipelines of the same one. */
async function tableRow(models: ReadModels, view: TableView, memos: Map<Timetable, Timetable>, nowMs: number): Promise<PipelineStatus> {
  memoized(view, memos);
  const row = statusOfViewNow(view, nowMs) ?? (await statusOfView(models, view, nowMs));
  return withPause(row, view.summary.paused);
}

function memoized<V extends StatusView>(view: V, memos: Map<Timetable, Timetable>): V {
  let timetable = memos.get(view.timetable);
  if (timetable === undefined) {
    timetable = memoTimetable(view.timetable);
    memos.set(view.timetable, timetable);
  }
  view.timetable = timetable;
  return view;
}

/** `rows`, known to be the rows whose pipelines are in `pooled` in a pool (`define --pool`) and the others in none. */
function inPools(rows: PipelineStatus[], pooled: ReadonlySet<string>): PipelineStatus[] {
  listPools.set(rows, pooled);
  return rows;
}

/** For each list of rows the read models answered: its pipelines in a pool, by the definitions their summaries held. */
const listPools = new WeakMap<readonly PipelineStatus[], ReadonlySet<string>>();

/**
 * The pipelines in a pool (`define --pool`) among the rows of a list `pipelineStatusesView` gave, as their definitions
 * said when the rows were made (the others are in none); undefined for a list it does not know (another source: ask
 * the definitions). `status` asks it before reading every definition again only to learn that no pipeline is in a
 * pool. One entry per list, not per row: a weak map's entry per row of 1,000 showed in a cold `status`.
 *
 * @example
 * const pooled = pooledOfStatusRows(rows); // Set {} when none is in a pool
 */
export function pooledOfStatusRows(rows: readonly PipelineStatus[]): ReadonlySet<string> | undefined {
  return listPools.get(rows);
}

/** A retired pipeline named to `status` or `check`: refused, with where its history still is. */
function refuseRetired(pipeline: string, retired: PipelineControl): never {
  throw new LedgerError('ledger.retired', `${pipeline} is ${retiredText(retired)}, so it has no status; its history is in runledger state ${pipeline} --include-retired and runledger log ${pipeline} (runledger unretire ${pipeline} brings it back)`);
}

/** The summary rows of the named pipelines that have one (an invalid name reads nothing: the loop reports it). */
async function namedSummaries(models: ReadModels, names: readonly string[]): Promise<PipelineSummary[]> {
  const found: PipelineSummary[] = [];
  for (const name of names) {
    if (!PIPELINE_NAME_PATTERN.test(name)) continue;
    const summary = await models.summary(name);
    if (summary !== null) found.push(summary);
  }
  return found;
}
