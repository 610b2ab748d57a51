import { decideControl, type ControlKind, type ControlOutcome } from '../../projections/decide-control.js';
import type { PipelineControl } from '../../projections/pipeline-control.js';
import { initialState } from '../../projections/pipeline-state.js';
import { LedgerError } from '../errors.js';
import type { AppendEventsRequest } from './append-events.js';
import { checkPipelineName } from './build-definition.js';
import { handleCommand } from './handle-command.js';
import type { LedgerCore } from './ledger-core.js';
import { listControls } from './list-controls.js';
import { definedPipeline, listPipelines, loadPipeline } from './load-pipeline.js';
import { readModelsFor } from './read-model-views.js';

/** What one pipeline's pause, unpause, retire or unretire did, and its run control after it. */
export type ControlResult = { pipeline: string; outcome: ControlOutcome; paused: PipelineControl | null; retired: PipelineControl | null };

/**
 * Pauses, unpauses, retires or brings back the named pipelines, all or none: every name is checked and decided
 * before anything is written, and their events go in one append. A pause and a retirement need a reason
 * (`input.missingReason`); a name never defined is `notFound.pipeline`; the rule's refusals are `ledger.retired`
 * and `ledger.hasDownstream`.
 *
 * @example
 * await controlPipelines(core, 'pause', ['orders_raw'], 'vendor outage until Monday');
 */
export async function controlPipelines(core: LedgerCore, kind: ControlKind, pipelines: readonly string[], reason: string | undefined): Promise<ControlResult[]> {
  if (pipelines.length === 0) throw new LedgerError('input.whichPipeline', `name the pipeline to ${kind}, e.g. runledger ${kind} etl_orders${needsReason(kind) ? ' --reason "…"' : ''}`);
  for (const name of pipelines) checkPipelineName(name);
  if (needsReason(kind) && (reason === undefined || reason.trim() === '')) {
    throw new LedgerError('input.missingReason', `${kind === 'pause' ? 'a pause' : 'a retirement'} needs a reason, recorded with it: add --reason "…" (library: reason), e.g. --reason "${kind === 'pause' ? 'vendor outage until Monday' : 'replaced by orders_v2'}"`);
  }
  const names = [...new Set(pipelines)];
  return handleCommand<ControlResult[]>(core, async () => {
    const models = await readModelsFor(core, undefined);
    const results: ControlResult[] = [];
    const requests: AppendEventsRequest[] = [];
    const downstream = kind === 'retire' ? await activeDownstream(core) : null;
    for (const name of names) {
      const summary = models === null ? null : await models.summary(name);
      const state = summary === null ? (await loadPipeline(core, name)).state : summary;
      if (state.definition === null) definedPipeline(initialState(name)); // throws notFound.pipeline
      const decision = decideControl({ pipeline: name, paused: state.paused, retired: state.retired }, kind, (downstream?.get(name) ?? []).filter((d) => !names.includes(d)));
      if (!decision.ok) throw new LedgerError(decision.refusal.code, decision.refusal.message);
      const { outcome, events } = decision.value;
      if (events.length > 0) requests.push({ stream: name, expectedVersion: state.version, events });
      results.push({ pipeline: name, outcome, paused: state.paused, retired: state.retired });
    }
    return { result: results, requests, reason, label: names.join(', ') };
  }).then((results) => settled(core, results));
}

/** The results with each pipeline's run control as it stands after the append. */
async function settled(core: LedgerCore, results: ControlResult[]): Promise<ControlResult[]> {
  if (results.every((r) => r.outcome === 'unchanged')) return results;
  const controls = await listControls(core);
  return results.map((r) => ({ ...r, paused: controls.get(r.pipeline)?.paused ?? null, retired: controls.get(r.pipeline)?.retired ?? null }));
}

function needsReason(kind: ControlKind): boolean {
  return kind === 'pause' || kind === 'retire';
}

/** For each pipeline, the pipelines that name it as an upstream and are not retired, by name. */
async function activeDownstream(core: LedgerCore): Promise<Map<string, string[]>> {
  const controls = await listControls(core);
  const out = new Map<string, string[]>();
  for (const definition of await listPipelines(core)) {
    if (controls.get(definition.pipeline)?.retired) continue;
    for (const upstream of definition.upstreams ?? []) out.set(upstream.pipeline, [...(out.get(upstream.pipeline) ?? []), definition.pipeline]);
  }
  return out;
}
