import type { RecordedEvent } from '../events/recorded-event.js';
import type { TaskState } from '../events/types/task-state-changed.js';

/** The latest reported state of one task in one run (a row of `runs --run`). */
export type TaskRun = {
  taskId: string;
  state: TaskState;
  /** 1-based; grows when the task runs again after `up_for_retry` (or after it had ended). */
  tryNumber: number;
  /** When the first state of this task in this run happened: the producer's time (`at`) when it sent one, else when it was recorded. */
  firstAt: string;
  updatedAt: string;
  error: string | null;
  /** How many state changes were recorded for this task in this run. */
  changes: number;
};

/**
 * Per run, the latest state of each task that reported one. `open`
 * holds, per date key, the run that may still change task states: the
 * current run while it is running.
 */
export type TaskRuns = { runs: Map<string, Map<string, TaskRun>>; open: Map<string, string> };

export function initialTaskRuns(): TaskRuns {
  return { runs: new Map(), open: new Map() };
}

/**
 * Folds one event into the task states. Like the other projections it updates
 * the maps it is given. A task state only lands on a run that is still open
 * (started, not finished, abandoned or cleared), so no log can let a fenced-out
 * run change its tasks.
 *
 * @example
 * const tasks = events.reduce(evolveTaskRuns, initialTaskRuns());
 * tasks.runs.get(runId)?.get('load')?.state // 'success'
 */
export function evolveTaskRuns(tasks: TaskRuns, event: RecordedEvent): TaskRuns {
  switch (event.type) {
    case 'PipelineDefined':
    case 'PipelineRedefined':
    case 'PipelinePaused':
    case 'PipelineUnpaused':
    case 'PipelineRetired':
    case 'PipelineUnretired':
    case 'RunHeartbeat':
    // The failure that scheduled it already closed the run.
    case 'RetryScheduled':
      return tasks;
    case 'RunMarked':
      // A mark opens a generation of its own, with no tasks: nothing may report on the key's older run.
      tasks.open.delete(event.data.date);
      return tasks;
    case 'RunStarted':
      // A new attempt supersedes whatever run the key had (S2).
      tasks.open.set(event.data.date, event.data.runId);
      return tasks;
    case 'RunSucceeded':
    case 'RunFailed':
    case 'RunInterrupted':
    case 'RunAbandoned':
      if (tasks.open.get(event.data.date) === event.data.runId) tasks.open.delete(event.data.date);
      return tasks;
    case 'RunCleared':
      // A clear closes the key's generation whichever run it names, as in pipeline-state.
      tasks.open.delete(event.data.date);
      return tasks;
    case 'TaskStateChanged': {
      const d = event.data;
      if (tasks.open.get(d.date) !== d.runId) return tasks;
      const run = tasks.runs.get(d.runId) ?? new Map<string, TaskRun>();
      const before = run.get(d.taskId);
      run.set(d.taskId, {
        taskId: d.taskId,
        state: d.state,
        tryNumber: d.tryNumber,
        firstAt: before?.firstAt ?? d.at ?? event.recordedAt,
        updatedAt: d.at ?? event.recordedAt,
        error: d.error,
        changes: (before?.changes ?? 0) + 1,
      });
      tasks.runs.set(d.runId, run);
      return tasks;
    }
    default: {
      const unknown: never = event;
      throw new Error(`evolveTaskRuns: unhandled event ${JSON.stringify((unknown as { type: unknown }).type)}`);
    }
  }
}
