import type { TaskDefinition } from '../events/types/task-definition.js';
import type { TaskState } from '../events/types/task-state-changed.js';
import { isTerminalTaskState } from '../events/task-states.js';
import { runLeaves } from './task-graph.js';

export type LeafState = { taskId: string; state: TaskState };

/** The run state its tasks imply. `unfinished` lists tasks with no state yet as well as running ones. */
export type RunOutcome =
  | { status: 'running'; unfinished: string[] }
  | { status: 'success'; leaves: LeafState[] }
  | { status: 'failed'; failedLeaves: LeafState[] };

/**
 * As Airflow's `DagRun.update_state`: while any task of the definition is
 * unfinished (no state yet, or not terminal) the run is running; once all are
 * terminal, any leaf `failed` or `upstream_failed` fails the run, and
 * otherwise (every leaf `success` or `skipped`) it succeeds. Leaves come from
 * `runLeaves` (ignorable teardowns do not count); `removed` leaves are
 * ignored. States of tasks the definition no longer has are ignored too.
 *
 * @example
 * deriveRunOutcome(tasks, new Map([['extract', { state: 'failed' }], ['load', { state: 'upstream_failed' }], ['cleanup', { state: 'success' }]]))
 * // { status: 'success', leaves: [{ taskId: 'cleanup', state: 'success' }] }   (the masking trap the lint warns about)
 */
export function deriveRunOutcome(tasks: readonly TaskDefinition[], states: ReadonlyMap<string, { state: TaskState }>): RunOutcome {
  const unfinished = tasks.filter((t) => {
    const state = states.get(t.id)?.state;
    return state === undefined || !isTerminalTaskState(state);
  });
  if (unfinished.length > 0) return { status: 'running', unfinished: unfinished.map((t) => t.id) };
  const leaves = runLeaves(tasks)
    .map((taskId) => ({ taskId, state: states.get(taskId)?.state as TaskState }))
    .filter((leaf) => leaf.state !== 'removed');
  const failedLeaves = leaves.filter((leaf) => leaf.state === 'failed' || leaf.state === 'upstream_failed');
  return failedLeaves.length > 0 ? { status: 'failed', failedLeaves } : { status: 'success', leaves };
}

/**
 * One line on why a run is where it is, for messages and the derived `RunFailed` error.
 *
 * @example
 * describeRunOutcome({ status: 'failed', failedLeaves: [{ taskId: 'load', state: 'upstream_failed' }] })
 * // "leaf task 'load' upstream_failed"
 */
export function describeRunOutcome(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'running':
      return `${outcome.unfinished.length} task${outcome.unfinished.length === 1 ? '' : 's'} unfinished (${outcome.unfinished.join(', ')})`;
    case 'failed':
      return outcome.failedLeaves.map((l) => `leaf task '${l.taskId}' ${l.state}`).join(', ');
    case 'success':
      return outcome.leaves.length === 0 ? 'every leaf task was removed' : `every leaf task succeeded or was skipped (${outcome.leaves.map((l) => `${l.taskId} ${l.state}`).join(', ')})`;
    default: {
      const unknown: never = outcome;
      throw new Error(`describeRunOutcome: unhandled status ${JSON.stringify((unknown as { status: unknown }).status)}`);
    }
  }
}
