import type { PipelineDefinition } from '../events/pipeline-definition.js';
import type { RunFailed } from '../events/run-failed.js';
import type { RunSucceeded } from '../events/run-succeeded.js';
import type { TaskState, TaskStateChanged } from '../events/task-state-changed.js';
import { isTaskState, isTerminalTaskState } from '../events/task-states.js';
import { deriveRunOutcome, describeRunOutcome, type RunOutcome } from './derive-run-outcome.js';
import type { PipelineState } from './pipeline-state.js';
import { accept, refuse, type Decision, type Refusal } from './refusal.js';
import type { TaskRun, TaskRuns } from './task-runs.js';

/** `tryNumber: null` lets the ledger count tries (see `nextTryNumber`). The task must be one of the definition's. */
export type TaskStateCommand = { runId: string; date: string; taskId: string; state: TaskState; tryNumber: number | null; error: string | null; at?: string };

/** `events` is empty for a repeat; when the task was the last to finish, they end with the run's derived outcome. */
export type TaskStateDecision = {
  events: Array<TaskStateChanged | RunSucceeded | RunFailed>;
  repeated: boolean;
  tryNumber: number;
  /** The run's state as its tasks imply it after this change. */
  outcome: RunOutcome;
};

/** The `code` of a `RunFailed` that the ledger derived from leaf tasks. */
export const DERIVED_FAILURE_CODE = 'leafFailed';

/**
 * Records a task's state in the current, running run of its key.
 * A repeat of the state already recorded (same try) is a no-op, even after
 * the run finished. When every task of the definition is terminal after this
 * change, the run's `RunSucceeded` or `RunFailed` comes with it, derived from
 * the leaves, so per-date state, watermark and pending need no special case.
 *
 * @example
 * decideTaskState(state, tasks, { runId, date: '2026-11-02', taskId: 'load', state: 'success', tryNumber: null, error: null })
 */
export function decideTaskState(state: PipelineState, tasks: TaskRuns, command: TaskStateCommand): Decision<TaskStateDecision> {
  const { pipeline } = state;
  const date = state.dates.get(command.date);
  const what = `task ${command.taskId} ${command.state}`;
  if (!date) return refuse('ledger.unknownRun', `run ${command.runId} has no start for ${pipeline} ${command.date}; start the run first`);
  if (date.runId !== command.runId) {
    return refuse('ledger.staleRun', `run ${command.runId} of ${pipeline} ${command.date} was superseded by attempt ${date.attempt} (run ${date.runId}); its ${what} is not recorded`);
  }
  if (date.status === 'cleared') {
    return refuse('ledger.staleRun', `run ${command.runId} of ${pipeline} ${command.date} was cleared at ${date.clearedAt}; its ${what} is not recorded. Start a new attempt instead`);
  }
  const definitionTasks = state.definition?.tasks ?? [];
  const run = tasks.runs.get(command.runId) ?? new Map<string, TaskRun>();
  const previous = run.get(command.taskId);
  const tryNumber = command.tryNumber ?? nextTryNumber(previous, command.state);
  const repeated = previous !== undefined && previous.state === command.state && previous.tryNumber === tryNumber;
  if (date.status !== 'running') {
    if (repeated) return accept({ events: [], repeated: true, tryNumber, outcome: deriveRunOutcome(definitionTasks, run) });
    const finished = date.error?.code === 'abandoned' ? 'was abandoned when its lease expired' : `already ${date.status === 'success' ? 'succeeded' : 'failed'}`;
    return refuse('ledger.runFinished', `run ${command.runId} of ${pipeline} ${command.date} ${finished}; its ${what} is not recorded. Start a new attempt to run it again`);
  }
  if (repeated) return accept({ events: [], repeated: true, tryNumber, outcome: deriveRunOutcome(definitionTasks, run) });

  const ref = { pipeline, date: command.date, runId: command.runId };
  // The producer's time of this change is also when a run it ends ended.
  const at = command.at === undefined ? {} : { at: command.at };
  const changed: TaskStateChanged = { type: 'TaskStateChanged', schemaVersion: 1, data: { ...ref, taskId: command.taskId, state: command.state, tryNumber, error: command.error, ...at } };
  const after = new Map<string, { state: TaskState }>(run);
  after.set(command.taskId, { state: command.state });
  const outcome = deriveRunOutcome(definitionTasks, after);
  switch (outcome.status) {
    case 'running':
      return accept({ events: [changed], repeated: false, tryNumber, outcome });
    case 'success':
      return accept({ events: [changed, { type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, metrics: {}, outputs: [], ...at } }], repeated: false, tryNumber, outcome });
    case 'failed':
      return accept({
        events: [changed, { type: 'RunFailed', schemaVersion: 1, data: { ...ref, error: describeRunOutcome(outcome), code: DERIVED_FAILURE_CODE, ...at } }],
        repeated: false,
        tryNumber,
        outcome,
      });
    default: {
      const unknown: never = outcome;
      throw new Error(`decideTaskState: unhandled outcome ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The try a new report belongs to: the first report is try 1; leaving
 * `up_for_retry` for an execution state starts the next try, and so does
 * running a task again after it had ended. Anything else stays in the same
 * try (a repeat, a task marked success by hand, …).
 *
 * @example
 * nextTryNumber({ state: 'up_for_retry', tryNumber: 1, … }, 'running') // 2
 */
export function nextTryNumber(previous: Pick<TaskRun, 'state' | 'tryNumber'> | undefined, state: TaskState): number {
  if (!previous) return 1;
  const executes = state === 'scheduled' || state === 'queued' || state === 'running';
  const retried = previous.state === 'up_for_retry' && (executes || state === 'success' || state === 'failed');
  const rerun = isTerminalTaskState(previous.state) && executes;
  return retried || rerun ? previous.tryNumber + 1 : previous.tryNumber;
}

/**
 * An explicit `succeed` or `fail` of a run whose pipeline has tasks is
 * refused while any task is unfinished; the run's outcome follows from its
 * leaves once they all finish. Null when the completion may go ahead.
 *
 * @example
 * const refusal = refuseUnfinishedTasks(definition, tasks, { runId, kind: 'succeed' });
 */
export function refuseUnfinishedTasks(
  definition: PipelineDefinition,
  tasks: TaskRuns,
  command: { runId: string; kind: 'succeed' | 'fail' | 'heartbeat' },
): Refusal | null {
  if (command.kind === 'heartbeat' || !definition.tasks) return null;
  const outcome = deriveRunOutcome(definition.tasks, tasks.runs.get(command.runId) ?? new Map());
  if (outcome.status !== 'running') return null;
  const what = command.kind === 'succeed' ? 'success' : 'failure';
  return {
    code: 'ledger.tasksUnfinished',
    message:
      `run ${command.runId} of ${definition.pipeline} records task-level state and has ${describeRunOutcome(outcome)}; its ${what} is not recorded. ` +
      `Report each task with \`runledger task ${command.runId} <task> <state>\` and the run's outcome follows from its leaf tasks, or clear the date`,
  };
}

/** The tasks a producer's verdict settled (each with its `TaskStateChanged`) and the ones it left unreported. */
export type Settlement = { events: TaskStateChanged[]; unreported: string[] };

/**
 * A producer's verdict on a run of a task-level pipeline (an Airflow DAG
 * run's COMPLETE or FAIL): Airflow sends no event for a task that ends
 * `upstream_failed` or is skipped without running, so the verdict settles
 * every declared task that has no finished state yet. A task the producer
 * names in a finished state (`reported`, e.g. the `airflowState` facet's
 * `tasksState`) gets that state, at the verdict's time; any other is left
 * `unreported`, and the run's outcome is the verdict either way. Tasks already
 * finished keep their state. With every task settled from the producer's
 * states, the outcome `deriveRunOutcome` gives is the one Airflow computes by
 * the same leaf rule, so the masking lint's warnings hold for such runs too.
 *
 * @example
 * settleUnfinishedTasks(definition, tasks, { pipeline, date, runId }, new Map([['load', 'upstream_failed']]))
 * // { events: [TaskStateChanged load upstream_failed], unreported: [] }
 */
export function settleUnfinishedTasks(
  definition: PipelineDefinition,
  tasks: TaskRuns,
  ref: { pipeline: string; date: string; runId: string },
  reported: ReadonlyMap<string, string> | null,
  at?: string,
): Settlement {
  const run = tasks.runs.get(ref.runId) ?? new Map<string, TaskRun>();
  const events: TaskStateChanged[] = [];
  const unreported: string[] = [];
  for (const task of definition.tasks ?? []) {
    const previous = run.get(task.id);
    if (previous && isTerminalTaskState(previous.state)) continue;
    const state = reported?.get(task.id);
    if (!isTaskState(state) || !isTerminalTaskState(state)) {
      unreported.push(task.id);
      continue;
    }
    const tryNumber = nextTryNumber(previous, state);
    events.push({ type: 'TaskStateChanged', schemaVersion: 1, data: { ...ref, taskId: task.id, state, tryNumber, error: null, ...(at === undefined ? {} : { at }) } });
  }
  return { events, unreported };
}
