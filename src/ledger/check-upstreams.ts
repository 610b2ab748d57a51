import { canonicalJson } from '../../events/canonical-json.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { findCycle } from '../../projections/dependency-graph.js';
import { retiredText, type PipelineControl } from '../../projections/pipeline-control.js';
import { LedgerError } from '../errors.js';
import type { PipelineControls } from './list-controls.js';

/**
 * Refuses a definition whose upstreams name a pipeline the ledger does not have
 * (`input.unknownUpstream`) or close a cycle through the other pipelines' upstreams
 * (`input.dependencyCycle`, naming it). `others` are the ledger's current definitions.
 *
 * @example
 * refuseBadUpstreams(definition, await listPipelines(core));
 */
export function refuseBadUpstreams(definition: PipelineDefinition, others: readonly PipelineDefinition[]): void {
  const graph = new Map(others.map((d) => [d.pipeline, d.upstreams ?? []]));
  for (const up of definition.upstreams ?? []) {
    if (!graph.has(up.pipeline)) {
      throw new LedgerError(
        'input.unknownUpstream',
        `--upstream ${up.pipeline}: there is no pipeline '${up.pipeline}' in this ledger; define it first (runledger define ${up.pipeline} --schedule … --start …), then name it as an upstream`,
      );
    }
  }
  graph.set(definition.pipeline, definition.upstreams ?? []);
  const cycle = findCycle(graph);
  if (cycle) {
    throw new LedgerError(
      'input.dependencyCycle',
      `these upstreams would make a cycle: ${cycle.join(' -> ')} (each waits for the next); drop one of the --upstream options that closes it`,
    );
  }
}

/** True when a (re)definition changes which upstreams a pipeline has. */
export function upstreamsChanged(before: PipelineDefinition | null, after: PipelineDefinition): boolean {
  return canonicalJson(before?.upstreams ?? []) !== canonicalJson(after.upstreams ?? []);
}

/**
 * Refuses a definition whose upstreams name a retired pipeline (`ledger.retired`): its dates will never run, so a
 * downstream would wait for ever. `controls` are the ledger's paused and retired pipelines (`listControls`).
 *
 * @example
 * refuseRetiredUpstreams(definition, await listControls(core));
 */
export function refuseRetiredUpstreams(definition: PipelineDefinition, controls: ReadonlyMap<string, PipelineControls>): void {
  for (const up of definition.upstreams ?? []) {
    const retired = controls.get(up.pipeline)?.retired;
    if (retired) {
      throw new LedgerError('ledger.retired', `--upstream ${up.pipeline}: ${up.pipeline} is ${retiredText(retired)}, so its dates never run; bring it back first (runledger unretire ${up.pipeline}) or name another upstream`);
    }
  }
}

/**
 * Refuses to define a name that a retired pipeline holds (`ledger.retired`): its history is still under that name.
 *
 * @example
 * if (state.retired !== null) refuseRetiredName('etl_orders', state.retired);
 */
export function refuseRetiredName(pipeline: string, retired: PipelineControl): never {
  throw new LedgerError(
    'ledger.retired',
    `${pipeline} is ${retiredText(retired)}; its history keeps the name. Bring it back with runledger unretire ${pipeline} (then define changes it as usual), or define the new pipeline under a new name`,
  );
}
