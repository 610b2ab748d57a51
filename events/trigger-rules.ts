// Plain values beside the zod schema in task-definition.ts, for the checks on a query's path, which does not load zod.

/**
 * Airflow's trigger rules, with Airflow's names. runledger does not schedule
 * tasks, so a rule never decides when a task runs here; it explains why a
 * leaf ran and feeds the masking lint of `define`.
 */
export const TRIGGER_RULES = [
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
] as const;

/**
 * True when `value` is one of `TRIGGER_RULES`, exactly.
 *
 * @example
 * isTriggerRule('none_failed') // true
 */
export function isTriggerRule(value: unknown): value is (typeof TRIGGER_RULES)[number] {
  return typeof value === 'string' && (TRIGGER_RULES as readonly string[]).includes(value);
}
