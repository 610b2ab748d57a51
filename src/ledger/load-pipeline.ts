import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { RunHistory } from '../../projections/run-history.js';
import type { TaskRuns } from '../../projections/task-runs.js';
import { compareNames } from '../../projections/views/compare-names.js';
import { LedgerError } from '../errors.js';
import { timetableCache } from '../store/read-model-fold.js';
import type { Timetable } from '../timetable/timetable.js';
import { checkPipelineName } from './build-definition.js';
import type { LedgerCore } from './ledger-core.js';
import type { AsOf } from './ledger-types.js';
import { foldPipeline, initialLoaded, loadCheckpoint, saveCheckpoint, type Loaded } from './projection-checkpoint.js';

/** What `Ledger.pipeline` answers: the definition, its timetable, and the folded state, history and tasks. */
export type PipelineView = { definition: PipelineDefinition; timetable: Timetable; state: PipelineState; history: RunHistory; tasks: TaskRuns };

/**
 * A pipeline's folded state: from the cache (or its checkpoint) caught up to the head, or, with `asOf`,
 * folded afresh up to that point. Loads of one pipeline run one after another (see `LedgerCore.loading`).
 *
 * @example
 * const { state } = await loadPipeline(core, 'etl_orders');
 */
export async function loadPipeline(core: LedgerCore, pipeline: string, asOf?: AsOf): Promise<Loaded> {
  if (asOf !== undefined) {
    const toPosition = await positionFor(core, asOf);
    const start = (core.checkpointAfter > 0 ? await loadCheckpoint(core.store, pipeline, toPosition) : null) ?? initialLoaded(pipeline);
    return (await foldPipeline(core.store, start, pipeline, toPosition)).loaded;
  }
  const previous = core.loading.get(pipeline);
  const load = (async () => {
    await previous?.catch(() => undefined);
    const cached = core.cache.get(pipeline) ?? (core.checkpointAfter > 0 ? await loadCheckpoint(core.store, pipeline) : null) ?? initialLoaded(pipeline);
    try {
      const { loaded, folded, lastHash } = await foldPipeline(core.store, cached, pipeline, undefined);
      core.cache.set(pipeline, loaded);
      const pending = (core.uncheckpointed.get(pipeline) ?? 0) + folded;
      core.uncheckpointed.set(pipeline, pending);
      if (core.checkpointAfter > 0 && pending >= core.checkpointAfter && lastHash !== null) {
        // Lazily, after the fold: a crash before this line only leaves an older checkpoint, which is still a true prefix.
        if (await saveCheckpoint(core.store, loaded, lastHash)) core.uncheckpointed.set(pipeline, 0);
      }
      return loaded;
    } catch (error) {
      // A read that failed halfway has already changed the cached maps; rebuild from scratch next time.
      core.cache.delete(pipeline);
      throw error;
    }
  })();
  core.loading.set(pipeline, load);
  try {
    return await load;
  } finally {
    if (core.loading.get(pipeline) === load) core.loading.delete(pipeline);
  }
}

/**
 * The store position an as-of point names (undefined without one: the head).
 *
 * @example
 * const toPosition = await positionFor(core, { position: 12 });
 */
export async function positionFor(core: LedgerCore, asOf: AsOf | undefined): Promise<number | undefined> {
  if (asOf === undefined) return undefined;
  if ('position' in asOf) {
    // A position past the head names a moment the ledger has not reached; answering with today's state would hide a typo.
    const head = await core.store.head();
    if (asOf.position > head.position) {
      throw new LedgerError('input.asOfBeyondHead', `--as-of ${asOf.position} is past the ledger's last event (position ${head.position}); pass a position up to ${head.position} or an instant`);
    }
    return asOf.position;
  }
  return core.store.positionAt(asOf.instant);
}

/**
 * "Now" as the ledger stood at the as-of point. With an instant, that
 * instant; with a position, the moment that event was recorded, so pending,
 * stalled leases and the default range are what the ledger said right after
 * it, not a mix of old events and today's clock. Without as-of, the clock.
 *
 * @example
 * const nowMs = await nowFor(core, input.asOf);
 */
export async function nowFor(core: LedgerCore, asOf: AsOf | undefined): Promise<number> {
  if (asOf === undefined) return core.clock();
  if ('instant' in asOf) return Date.parse(asOf.instant);
  for await (const batch of core.store.read({ fromPosition: asOf.position, toPosition: asOf.position, batchSize: 1 })) {
    const event = batch[0];
    if (event) return Date.parse(event.recordedAt);
  }
  // A position this store does not hold: a replayed export filtered to one pipeline.
  return core.clock();
}

/**
 * The definition and timetable of a folded state; `notFound.pipeline` when it was never defined.
 *
 * @example
 * const { timetable } = definedPipeline(state);
 */
export function definedPipeline(state: PipelineState): { definition: PipelineDefinition; timetable: Timetable } {
  if (!state.definition) {
    // `../../etc/passwd` is no name at all: say so, rather than suggest defining it.
    checkPipelineName(state.pipeline);
    throw new LedgerError('notFound.pipeline', `no pipeline '${state.pipeline}' in this ledger; define it with \`runledger define ${state.pipeline} --schedule @daily --start <date>\` (library: ledger.define)`);
  }
  return { definition: state.definition, timetable: timetableOfDefinition(state.definition) };
}

/**
 * A definition's timetable, parsed once per distinct set of timetable fields: what `Ledger.pipeline` gives with the
 * state, for a caller that has the definition already and needs no state (the scheduler's next wake).
 *
 * @example
 * const next = timetableOfDefinition(definition).next(last);
 */
export function timetableOfDefinition(definition: PipelineDefinition): Timetable {
  return timetableFor(definition) as Timetable;
}

/**
 * The timetables of the definitions already asked about, one per distinct set of timetable fields (at most 256
 * kept): a scheduler reads each pipeline several times per run it starts, and parsing its schedule each time was a
 * twentieth of a burst of 1,000 starts. Not one per definition object: 10,000 pipelines' timetables held ~70 MB.
 */
const timetableFor = timetableCache();

/**
 * The definition, timetable and folded views of a pipeline; `notFound.pipeline` when it was never defined.
 *
 * @example
 * const { timetable, state, history } = await readPipeline(core, 'etl_orders');
 */
export async function readPipeline(core: LedgerCore, name: string, asOf?: AsOf): Promise<PipelineView> {
  checkPipelineName(name);
  const loaded = await loadPipeline(core, name, asOf);
  // Getters, not a spread: a state from a checkpoint reads its run history and task states only when asked.
  return {
    ...definedPipeline(loaded.state),
    state: loaded.state,
    get history() {
      return loaded.history;
    },
    get tasks() {
      return loaded.tasks;
    },
  };
}


/**
 * Every defined pipeline and its current definition, by name.
 *
 * @example
 * const names = (await listPipelines(core)).map((d) => d.pipeline);
 */
export async function listPipelines(core: LedgerCore): Promise<PipelineDefinition[]> {
  const models = core.store.readModels;
  if (models !== undefined && (await models.ensure(core.rebuildProgress))) {
    // The definition column of the summary rows, not every event.
    return (await models.definitions()).sort((a, b) => compareNames(a.pipeline, b.pipeline));
  }
  const byName = new Map<string, PipelineDefinition>();
  for await (const batch of core.store.read()) {
    for (const event of batch) {
      if (event.type === 'PipelineDefined') byName.set(event.data.pipeline, event.data);
      if (event.type === 'PipelineRedefined') byName.set(event.data.pipeline, event.data.definition);
    }
  }
  return [...byName.values()].sort((a, b) => compareNames(a.pipeline, b.pipeline));
}
