import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { LedgerCore } from './ledger-core.js';

/** A pipeline's run control now: its pause and its retirement (null: not paused, not retired). */
export type PipelineControls = { paused: PipelineControl | null; retired: PipelineControl | null };

/**
 * The run control of every pipeline that has been paused or retired and is still so, by name: from the summary rows
 * when the store keeps them, else folded from the control events. A name missing from the map is neither.
 *
 * @example
 * const controls = await listControls(core);
 * const retired = controls.get('etl_orders')?.retired ?? null;
 */
export async function listControls(core: LedgerCore): Promise<Map<string, PipelineControls>> {
  const out = new Map<string, PipelineControls>();
  const models = core.store.readModels;
  if (models !== undefined && (await models.ensure(core.rebuildProgress))) {
    for (const summary of await models.summaries()) {
      if (summary.paused !== null || summary.retired !== null) out.set(summary.pipeline, { paused: summary.paused, retired: summary.retired });
    }
    return out;
  }
  const all = new Map<string, PipelineControls>();
  for await (const batch of core.store.read({ types: ['PipelinePaused', 'PipelineUnpaused', 'PipelineRetired', 'PipelineUnretired'] })) {
    for (const event of batch) {
      const now = all.get(event.data.pipeline) ?? { paused: null, retired: null };
      const control = { since: event.recordedAt, by: event.metadata.actor, reason: event.metadata.reason ?? '' };
      if (event.type === 'PipelinePaused') now.paused = control;
      else if (event.type === 'PipelineUnpaused') now.paused = null;
      else if (event.type === 'PipelineRetired') now.retired = control;
      else if (event.type === 'PipelineUnretired') now.retired = null;
      all.set(event.data.pipeline, now);
    }
  }
  for (const [name, control] of all) if (control.paused !== null || control.retired !== null) out.set(name, control);
  return out;
}
