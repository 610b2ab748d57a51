import type { PipelineStatus } from '../../projections/views/pipeline-status.js';
import { checkPipelineName } from './build-definition.js';
import type { LedgerCore } from './ledger-core.js';
import { pipelineStatusView } from './ledger-queries.js';
import { listPipelines } from './load-pipeline.js';
import { compareNames } from '../../projections/views/compare-names.js';
import { readModelsFor, statusOfView, viewOfSummary } from './read-model-views.js';
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
    for (const name of names ?? (await listPipelines(core)).map((d) => d.pipeline)) rows.push((await pipelineStatusView(core, name, nowMs)).status);
    return rows;
  }
  const summaries = new Map((await models.summaries()).map((summary) => [summary.pipeline, summary]));
  const list = names ?? [...summaries.values()].filter((summary) => summary.definition !== null).map((summary) => summary.pipeline).sort(compareNames);
  // Pipelines of one timetable (the cache shares it) ask it the same questions at the same "now".
  const memos = new Map<Timetable, Timetable>();
  for (const name of list) {
    checkPipelineName(name);
    const view = viewOfSummary(models, name, summaries.get(name) ?? null);
    if (view.definition.upstreams) {
      rows.push((await pipelineStatusView(core, name, nowMs)).status);
      continue;
    }
    let timetable = memos.get(view.timetable);
    if (timetable === undefined) {
      timetable = memoTimetable(view.timetable);
      memos.set(view.timetable, timetable);
    }
    rows.push(await statusOfView(models, { ...view, timetable }, nowMs));
  }
  return rows;
}
