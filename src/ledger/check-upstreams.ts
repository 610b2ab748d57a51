import { canonicalJson } from '../../events/canonical-json.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { findCycle } from '../../projections/dependency-graph.js';
import { LedgerError } from '../errors.js';

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
