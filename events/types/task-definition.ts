import type { TRIGGER_RULES } from '../trigger-rules.js';

/** Airflow's trigger rules, with Airflow's names (the values are in trigger-rules.ts). */
export type TriggerRule = (typeof TRIGGER_RULES)[number];

/**
 * One task of a pipeline as recorded by `define --tasks`, with every default
 * filled in, so a stored definition never depends on this version's defaults.
 *
 * @example
 * const load: TaskDefinition = { id: 'load', upstream: ['extract'], triggerRule: 'all_success', teardown: false, failRunOnFailure: false };
 */
export type TaskDefinition = {
  id: string;
  upstream: string[];
  triggerRule: TriggerRule;
  /** A teardown leaf does not decide the run's state unless it sets `failRunOnFailure` (Airflow's `on_failure_fail_dagrun`). */
  teardown: boolean;
  failRunOnFailure: boolean;
};
