import { z } from 'zod';
import { RunRef } from './common.js';
import { TaskId } from './task-definition.js';

/** Airflow's task instance states that a caller may report (the `None` state is "not reported yet"). */
export const TaskState = z.enum(['scheduled', 'queued', 'running', 'success', 'failed', 'skipped', 'upstream_failed', 'up_for_retry', 'removed']);
export type TaskState = z.infer<typeof TaskState>;

/** The states after which a task does nothing more in its run (Airflow's finished states, minus retries). */
export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['success', 'failed', 'skipped', 'upstream_failed', 'removed']);

/** True when a task in this state will not change again on its own. */
export function isTerminalTaskState(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.has(state);
}

/**
 * A task of a run changed state (S12). Lives in the run's stream, so it is
 * fenced and versioned like every completion (S3). `tryNumber` is 1-based and
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
  }),
});
export type TaskStateChanged = z.infer<typeof TaskStateChanged>;
