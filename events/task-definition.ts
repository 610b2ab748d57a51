import { z } from 'zod';

/**
 * Airflow's trigger rules, with Airflow's names. runledger does not schedule
 * tasks, so a rule never decides when a task runs here; it explains why a
 * leaf ran and feeds the masking lint of `define` (S12).
 */
export const TriggerRule = z.enum([
  'all_success',
  'all_failed',
  'all_done',
  'all_done_min_one_success',
  'all_done_setup_success',
  'one_success',
  'one_failed',
  'one_done',
  'none_failed',
  'none_failed_min_one_success',
  'none_skipped',
  'all_skipped',
  'always',
]);
export type TriggerRule = z.infer<typeof TriggerRule>;

/** Task ids as Airflow allows them: letters, digits, `_`, `.` and `-`, at most 250 characters. */
export const TaskId = z.string().regex(/^[A-Za-z0-9_.-]{1,250}$/);

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
export type TaskDefinition = z.infer<typeof TaskDefinition>;
