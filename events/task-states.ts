// Plain values beside the zod schema in task-state-changed.ts, so code that only names or compares states
// (projections, `task --help`) does not load zod.

/** Airflow's task instance states that a caller may report (the `None` state is "not reported yet"). */
export const TASK_STATES = ['scheduled', 'queued', 'running', 'success', 'failed', 'skipped', 'upstream_failed', 'up_for_retry', 'removed'] as const;
type TaskStateName = (typeof TASK_STATES)[number];

/** The states after which a task does nothing more in its run (Airflow's finished states, minus retries). */
const TERMINAL_TASK_STATES: ReadonlySet<TaskStateName> = new Set<TaskStateName>(['success', 'failed', 'skipped', 'upstream_failed', 'removed']);

/**
 * True when a task in this state will not change again on its own.
 *
 * @example
 * isTerminalTaskState('up_for_retry') // false
 */
export function isTerminalTaskState(state: TaskStateName): boolean {
  return TERMINAL_TASK_STATES.has(state);
}

/**
 * True when `text` is one of `TASK_STATES`, exactly.
 *
 * @example
 * isTaskState('upstream_failed') // true
 */
export function isTaskState(text: unknown): text is TaskStateName {
  return typeof text === 'string' && (TASK_STATES as readonly string[]).includes(text);
}
