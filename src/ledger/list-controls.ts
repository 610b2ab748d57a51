import { PIPELINE_NAME_PATTERN } from '../../events/name-patterns.js';
import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { LedgerCore } from './ledger-core.js';

/** A pipeline's run control now: its pause and its retirement (null: not paused, not retired). */
export type PipelineControls = { paused: PipelineControl | null; retired: PipelineControl | null };

/**
 * The run control of every pipeline (or of the `only` ones) that has been paused or retired and is still so, by name:
 * from the summary rows when the store keeps them, else folded from the control events. A name missing from the map
 * is neither.
 *
 * @example
 * const controls = await listControls(core);
 * const retired = controls.get('etl_orders')?.retired ?? null;
 */
export async function listControls(core: LedgerCore, only?: readonly string[]): Promise<Map<string, PipelineControls>> {
  const out = new Map<string, PipelineControls>();
  const models = core.store.readModels;
  if (models !== undefined && (await models.ensure(core.rebuildProgress))) {
    // Named pipelines read their own rows (a `state` or a `start` on a ledger of 1,000 pipelines reads one).
    const summaries = only === undefined ? await models.summaries() : (await Promise.all(only.filter((name) => PIPELINE_NAME_PATTERN.test(name)).map((name) => models.summary(name)))).filter((s) => s !== null);
    for (const summary of summaries) {
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
