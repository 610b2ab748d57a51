import { z } from 'zod';
import type { TriggerRule as PlainTriggerRule, TaskDefinition as PlainTaskDefinition } from './types/task-definition.js';
import type { Equals } from './same-type.js';
import { TASK_ID_PATTERN } from './name-patterns.js';
import { TRIGGER_RULES } from './trigger-rules.js';

/** Airflow's trigger rules, with Airflow's names (the values are in trigger-rules.ts). */
export const TriggerRule = z.enum(TRIGGER_RULES);
export type TriggerRule = PlainTriggerRule;
true satisfies Equals<TriggerRule, z.infer<typeof TriggerRule>>;

/** Task ids as Airflow allows them: letters, digits, `_`, `.` and `-`, at most 250 characters. */
export const TaskId = z.string().regex(TASK_ID_PATTERN);

/**
 * One task of a pipeline as recorded by `define --tasks`, with every default
 * filled in, so a stored definition never depends on this version's defaults.
 *
 * @example
 * const load: TaskDefinition = { id: 'load', upstream: ['extract'], triggerRule: 'all_success', teardown: false, failRunOnFailure: false };
 */
export const TaskDefinition = z.object({
  id: TaskId,
  upstream: z.array(TaskId),
  triggerRule: TriggerRule,
  /** A teardown leaf does not decide the run's state unless it sets `failRunOnFailure` (Airflow's `on_failure_fail_dagrun`). */
  teardown: z.boolean(),
  failRunOnFailure: z.boolean(),
});
export type TaskDefinition = PlainTaskDefinition;
true satisfies Equals<TaskDefinition, z.infer<typeof TaskDefinition>>;
