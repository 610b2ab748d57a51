import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import { firstBlocking, type BlockedBy, type UpstreamView } from '../../projections/upstream-slots.js';
import type { DataInterval } from '../../projections/slot.js';
import type { Timetable } from '../timetable/timetable.js';

/** How a pipeline's timetable and folded state are read (the ledger facade's `pipeline`, or the core's `readPipeline`). */
export type ReadPipeline = (name: string) => Promise<{ timetable: Timetable; state: PipelineState }>;

/**
 * The upstreams of a definition, each with its timetable (as the mapping's slot source) and its state.
 * Empty, and nothing read, for a pipeline without upstreams.
 *
 * @example
 * const upstreams = await loadUpstreams(definition, (name) => ledger.pipeline(name));
 */
export async function loadUpstreams(definition: PipelineDefinition, read: ReadPipeline): Promise<UpstreamView[]> {
  const views: UpstreamView[] = [];
  for (const upstream of definition.upstreams ?? []) {
    const { timetable, state } = await read(upstream.pipeline);
    views.push({ upstream, source: timetable, state });
  }
  return views;
}

/**
 * The blocking rule for a pipeline's slots given its loaded upstreams, or undefined without any (so
 * callers skip the work entirely).
 *
 * @example
 * const blocked = blockingRule(upstreams); blocked?.(slot.dataInterval)
 */
export function blockingRule(upstreams: readonly UpstreamView[]): ((interval: DataInterval) => BlockedBy | null) | undefined {
  if (upstreams.length === 0) return undefined;
  return (interval) => firstBlocking(interval, upstreams);
}
