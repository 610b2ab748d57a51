import { z } from 'zod';
import type { TaskState as PlainTaskState, TaskStateChanged as PlainTaskStateChanged } from './types/task-state-changed.js';
import type { Equals } from './same-type.js';
import { ProducerAt, RunRef } from './common.js';
import { TaskId } from './task-definition.js';
import { TASK_STATES } from './task-states.js';

/** Airflow's task instance states that a caller may report (the `None` state is "not reported yet"). */
export const TaskState = z.enum(TASK_STATES);
export type TaskState = PlainTaskState;
true satisfies Equals<TaskState, z.infer<typeof TaskState>>;

/**
 * A task of a run changed state. Lives in the run's stream, so it is
 * fenced and versioned like every completion. `tryNumber` is 1-based and
 * grows when a task is run again after `up_for_retry` (or after it ended).
 */
export const TaskStateChanged = z.object({
  type: z.literal('TaskStateChanged'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    taskId: TaskId,
    state: TaskState,
    tryNumber: z.number().int().positive(),
    error: z.string().nullable(),
    /** When the producer saw the task change (its `eventTime`); absent: when it was recorded. */
    at: ProducerAt,
  }),
});
export type TaskStateChanged = PlainTaskStateChanged;
true satisfies Equals<TaskStateChanged, z.infer<typeof TaskStateChanged>>;
