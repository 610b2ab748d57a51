import type { TASK_STATES } from '../task-states.js';

/** Airflow's task instance states that a caller may report (the `None` state is "not reported yet"). */
export type TaskState = (typeof TASK_STATES)[number];

/**
 * A task of a run changed state. Lives in the run's stream, so it is
 * fenced and versioned like every completion. `tryNumber` is 1-based and
 * grows when a task is run again after `up_for_retry` (or after it ended).
 */
export type TaskStateChanged = {
  type: 'TaskStateChanged';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    taskId: string;
    state: TaskState;
    tryNumber: number;
    error: string | null;
    /** When the producer saw the task change (its `eventTime`); absent: when it was recorded. */
    at?: string | undefined;
  };
};
