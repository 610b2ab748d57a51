import { evolveAll, initialState, type PipelineState } from '../../projections/pipeline-state.js';
import { PROJECTION_VERSION } from '../../projections/projection-version.js';
import { evolveRunHistory, initialRunHistory, type RunHistory } from '../../projections/run-history.js';
import { evolveTaskRuns, initialTaskRuns, type TaskRun, type TaskRuns } from '../../projections/task-runs.js';
import type { EventStore, LoadedCheckpoint } from '../store/event-store.js';

/** Everything the ledger folds per pipeline. */
export type Loaded = { state: PipelineState; history: RunHistory; tasks: TaskRuns };

/** The outcome of a fold: the state, how many events it took in, and the hash of the last one. */
export type Folded = { loaded: Loaded; folded: number; lastHash: string | null };

export function initialLoaded(pipeline: string): Loaded {
  return { state: initialState(pipeline), history: initialRunHistory(), tasks: initialTaskRuns() };
}

/**
 * Folds a pipeline's events after `from` (up to `toPosition`) into it. The
 * folds update `from`'s maps in place.
 */
export async function foldPipeline(store: EventStore, from: Loaded, pipeline: string, toPosition: number | undefined): Promise<Folded> {
  let folded = 0;
  let lastHash: string | null = null;
  const filter = { pipeline, fromPosition: from.state.position + 1, ...(toPosition === undefined ? {} : { toPosition }) };
  let state = from.state;
  let history: RunHistory | undefined;
  let tasks: TaskRuns | undefined;
  for await (const batch of store.read(filter)) {
    // Only now, with events to fold, are the run history and task states read (a checkpoint decodes them lazily).
    history ??= from.history;
    tasks ??= from.tasks;
    state = evolveAll(state, batch);
    for (const event of batch) {
      history = evolveRunHistory(history, event);
      tasks = evolveTaskRuns(tasks, event);
    }
    folded += batch.length;
    lastHash = batch.at(-1)?.hash ?? lastHash;
  }
  if (history === undefined || tasks === undefined) return { loaded: from, folded, lastHash };
  return { loaded: { state, history, tasks }, folded, lastHash };
}

type EncodedState = Omit<PipelineState, 'dates'> & { dates: Array<[string, unknown]> };
type EncodedTasks = { runs: Array<[string, Array<[string, TaskRun]>]>; open: Array<[string, string]> };

/**
 * The folded state as three JSON documents on three lines (state, run
 * history, task states; maps as entry lists, user metrics as they are), so a
 * query that needs only the state parses only the first line.
 */
export function encodeLoaded(loaded: Loaded): string {
  const state: EncodedState = { ...loaded.state, dates: [...loaded.state.dates] };
  const tasks: EncodedTasks = { runs: [...loaded.tasks.runs].map(([runId, runTasks]) => [runId, [...runTasks]]), open: [...loaded.tasks.open] };
  // JSON.stringify never writes a raw newline, so the lines split back exactly.
  return `${JSON.stringify(state)}\n${JSON.stringify([...loaded.history.runs])}\n${JSON.stringify(tasks)}`;
}

/** Decodes `encodeLoaded`'s text: the state now, the run history and task states on first use. */
export function decodeLoaded(text: string): Loaded {
  const [stateLine, historyLine, tasksLine] = text.split('\n');
  if (stateLine === undefined || historyLine === undefined || tasksLine === undefined) throw new Error('checkpoint: not three lines');
  const encoded = JSON.parse(stateLine) as EncodedState;
  // A checkpoint written before pauses and retirements has neither field (its projection version differs anyway).
  const state = { ...encoded, paused: encoded.paused ?? null, retired: encoded.retired ?? null, dates: new Map(encoded.dates) } as PipelineState;
  let history: RunHistory | undefined;
  let tasks: TaskRuns | undefined;
  return {
    state,
    get history(): RunHistory {
      history ??= { runs: new Map(JSON.parse(historyLine) as Array<[string, RunHistory['runs'] extends Map<string, infer R> ? R : never]>) };
      return history;
    },
    get tasks(): TaskRuns {
      if (tasks === undefined) {
        const decoded = JSON.parse(tasksLine) as EncodedTasks;
        tasks = { runs: new Map(decoded.runs.map(([runId, runTasks]) => [runId, new Map(runTasks)])), open: new Map(decoded.open) };
      }
      return tasks;
    },
  };
}

/** Why a stored checkpoint is not used, or null when it may be. */
export function distrust(checkpoint: LoadedCheckpoint): 'projectionVersion' | 'pastHead' | 'otherChain' | null {
  if (checkpoint.projectionVersion !== PROJECTION_VERSION) return 'projectionVersion';
  if (checkpoint.hashAtPosition === null) return 'pastHead';
  if (checkpoint.hashAtPosition !== checkpoint.eventHash) return 'otherChain';
  return null;
}

/**
 * The pipeline's checkpoint when it can be trusted and covers no more than
 * `toPosition`; one that cannot (another projection version, a position past
 * the head, a hash that is not the chain's) is discarded. Any failure reads
 * as "no checkpoint": the caller folds from the first event.
 */
export async function loadCheckpoint(store: EventStore, pipeline: string, toPosition?: number): Promise<Loaded | null> {
  const checkpoints = store.checkpoints;
  if (checkpoints === undefined) return null;
  try {
    const checkpoint = await checkpoints.load(pipeline);
    if (checkpoint === null) return null;
    if (distrust(checkpoint) !== null) {
      await checkpoints.discard(pipeline);
      return null;
    }
    if (toPosition !== undefined && checkpoint.position > toPosition) return null;
    let loaded: Loaded;
    try {
      loaded = decodeLoaded(checkpoint.state);
    } catch {
      loaded = initialLoaded('');
    }
    if (loaded.state.pipeline !== pipeline || loaded.state.position !== checkpoint.position) {
      // Unreadable or not this pipeline's: drop it, so the next save can replace it.
      await checkpoints.discard(pipeline);
      return null;
    }
    return loaded;
  } catch {
    return null;
  }
}

/** Saves a folded state as the pipeline's checkpoint; best effort (a read-only or locked ledger keeps the one it has). */
export async function saveCheckpoint(store: EventStore, loaded: Loaded, eventHash: string): Promise<boolean> {
  const checkpoints = store.checkpoints;
  if (checkpoints === undefined || loaded.state.position === 0) return false;
  try {
    await checkpoints.save({
      pipeline: loaded.state.pipeline,
      position: loaded.state.position,
      eventHash,
      projectionVersion: PROJECTION_VERSION,
      state: encodeLoaded(loaded),
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Drops every checkpoint and writes a fresh one per pipeline from a full
 * fold (after `import`, whose rows arrive without any). Returns how many
 * were written.
 */
export async function rebuildCheckpoints(store: EventStore): Promise<number> {
  const checkpoints = store.checkpoints;
  if (checkpoints === undefined) return 0;
  await checkpoints.discard();
  let written = 0;
  for (const pipeline of await checkpoints.pipelines()) {
    const { loaded, lastHash } = await foldPipeline(store, initialLoaded(pipeline), pipeline, undefined);
    if (lastHash !== null && (await saveCheckpoint(store, loaded, lastHash))) written += 1;
  }
  return written;
}

export type CheckpointCheck = {
  pipeline: string;
  position: number;
  /** `ok`: equal to a full rebuild; `differs`: trusted but not equal (a fault); the others are ignored by queries. */
  status: 'ok' | 'differs' | 'projectionVersion' | 'pastHead' | 'otherChain';
};

/**
 * `verify --checkpoints`: every stored checkpoint against a full fold of its
 * pipeline up to the checkpoint's position. Only `differs` is a fault: the
 * others are ones no query would use.
 */
export async function verifyCheckpoints(store: EventStore): Promise<CheckpointCheck[]> {
  const checkpoints = store.checkpoints;
  if (checkpoints === undefined) return [];
  const checks: CheckpointCheck[] = [];
  for (const checkpoint of await checkpoints.list()) {
    const reason = distrust(checkpoint);
    if (reason !== null) {
      checks.push({ pipeline: checkpoint.pipeline, position: checkpoint.position, status: reason });
      continue;
    }
    const { loaded } = await foldPipeline(store, initialLoaded(checkpoint.pipeline), checkpoint.pipeline, checkpoint.position);
    let same: boolean;
    try {
      same = encodeLoaded(decodeLoaded(checkpoint.state)) === encodeLoaded(loaded);
    } catch {
      same = false;
    }
    checks.push({ pipeline: checkpoint.pipeline, position: checkpoint.position, status: same ? 'ok' : 'differs' });
  }
  return checks;
}
