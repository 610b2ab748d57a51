import type { TriggerRule } from '../events/task-definition.js';

/**
 * How many of a task's upstream tasks are in each finished state, as
 * Airflow's `_UpstreamTIStates` counts them at the start of a scheduler pass.
 * `done` counts every finished upstream; the `setup` counts are the subset of
 * upstream tasks that are setup tasks. Upstream tasks still waiting or running
 * count in `upstream` only. `removed` upstream tasks are not modelled.
 */
export type UpstreamCounts = {
  upstream: number;
  success: number;
  skipped: number;
  failed: number;
  upstreamFailed: number;
  done: number;
  upstreamSetup: number;
  successSetup: number;
  skippedSetup: number;
};

/**
 * What one scheduler pass does to a waiting task: it is queued to run, it
 * keeps waiting, or it is marked `skipped` or `upstream_failed` without
 * running (Airflow's `flag_upstream_failed`).
 */
export type TriggerDecision = 'runs' | 'waits' | 'skipped' | 'upstream_failed';

/** The task being evaluated: its rule, whether it is a teardown, and its setup tasks that are not direct upstream tasks. */
export type EvaluatedTask = {
  triggerRule: TriggerRule;
  teardown: boolean;
  /** Counts over the setup tasks upstream of it but not directly upstream (Airflow's indirect setups); null when it has none. */
  indirectSetups: Pick<UpstreamCounts, 'upstream' | 'success' | 'skipped' | 'failed' | 'upstreamFailed'> | null;
};

/**
 * Airflow's `TriggerRuleDep` as the scheduler loop runs it (with
 * `flag_upstream_failed`), rule by rule: first the state a rule flags the task
 * with, then whether the dependency passes. A flag wins: a flagged task never
 * runs. Rules such as `one_failed` or `all_success` decide before every
 * upstream task finished (a failure or a skip is enough), which is why the
 * masking lint has to look at scheduling orders.
 *
 * Setup tasks: a task that is not a teardown and has indirect setup tasks is
 * first held to them (any failed → upstream_failed, any skipped → skipped,
 * all must succeed); `all_done_setup_success` looks at its direct setup
 * upstream tasks. runledger's task definitions declare no setup tasks, so for
 * them the setup counts are zero and `all_done_setup_success` acts like
 * `all_done`.
 *
 * @example
 * evaluateTriggerRule({ triggerRule: 'all_success', teardown: false, indirectSetups: null }, { upstream: 2, success: 0, skipped: 1, failed: 0, upstreamFailed: 0, done: 1, upstreamSetup: 0, successSetup: 0, skippedSetup: 0 })
 * // 'skipped' (a skip is enough, the other upstream task may still be running)
 */
export function evaluateTriggerRule(task: EvaluatedTask, counts: UpstreamCounts): TriggerDecision {
  if (counts.upstream === 0 || task.triggerRule === 'always') return 'runs';
  if (!task.teardown && task.indirectSetups !== null && task.indirectSetups.upstream > 0) {
    const setups = task.indirectSetups;
    const flag = setups.failed > 0 || setups.upstreamFailed > 0 ? 'upstream_failed' : setups.skipped > 0 ? 'skipped' : null;
    // Airflow returns before the direct upstream tasks only when the setups flagged the task.
    if (flag !== null) return flag;
    const direct = evaluateDirectUpstream(task.triggerRule, counts);
    if (direct !== 'runs') return direct;
    return setups.upstream - setups.success > 0 ? 'waits' : 'runs';
  }
  return evaluateDirectUpstream(task.triggerRule, counts);
}

/** `_evaluate_direct_relatives`: the flag under `flag_upstream_failed`, then the rule's pass condition. */
function evaluateDirectUpstream(rule: TriggerRule, c: UpstreamCounts): TriggerDecision {
  const upstreamDone = c.done >= c.upstream;
  switch (rule) {
    case 'all_success':
      if (c.upstreamFailed > 0 || c.failed > 0) return 'upstream_failed';
      if (c.skipped > 0) return 'skipped';
      return passes(c.upstream - c.success <= 0);
    case 'all_failed':
      if (c.success > 0 || c.skipped > 0) return 'skipped';
      return passes(c.upstream - c.failed - c.upstreamFailed <= 0);
    case 'all_done':
      return passes(upstreamDone);
    case 'all_done_setup_success':
      if (upstreamDone && c.upstreamSetup > 0 && c.skippedSetup >= c.upstreamSetup) return 'skipped';
      if (upstreamDone && c.upstreamSetup > 0 && c.successSetup === 0) return 'upstream_failed';
      return passes(upstreamDone && !(c.upstreamSetup > 0 && c.successSetup === 0));
    case 'all_done_min_one_success': {
      // Skipped upstream tasks do not count as done for this rule.
      if (c.skipped > 0) return 'skipped';
      const nonSkippedDone = c.success + c.failed + c.upstreamFailed;
      const nonSkippedUpstream = c.upstream - c.skipped;
      if (nonSkippedDone >= nonSkippedUpstream && c.success === 0) return 'upstream_failed';
      return passes(nonSkippedDone >= nonSkippedUpstream && c.success > 0);
    }
    case 'one_success':
      if (upstreamDone && c.done === c.skipped) return 'skipped';
      if (upstreamDone && c.success <= 0) return 'upstream_failed';
      return passes(c.success > 0);
    case 'one_failed':
      if (upstreamDone && !(c.failed > 0 || c.upstreamFailed > 0)) return 'skipped';
      return passes(c.failed > 0 || c.upstreamFailed > 0);
    case 'one_done':
      // `upstream_failed` is not "done" for this rule, only success and failed are.
      if (upstreamDone && !(c.failed > 0 || c.success > 0)) return 'skipped';
      return passes(c.success + c.failed > 0);
    case 'none_failed':
      if (c.upstreamFailed > 0 || c.failed > 0) return 'upstream_failed';
      return passes(c.upstream - c.success - c.skipped <= 0);
    case 'none_failed_min_one_success':
      if (c.upstreamFailed > 0 || c.failed > 0) return 'upstream_failed';
      if (c.skipped === c.upstream) return 'skipped';
      return passes(c.upstream - c.success - c.skipped <= 0);
    case 'none_skipped':
      if (c.skipped > 0) return 'skipped';
      return passes(upstreamDone);
    case 'all_skipped':
      if (c.success > 0 || c.failed > 0 || c.upstreamFailed > 0) return 'skipped';
      return passes(c.upstream - c.skipped <= 0);
    case 'always':
      return 'runs';
    default: {
      const unknown: never = rule;
      throw new Error(`evaluateTriggerRule: unhandled trigger rule ${String(unknown)}`);
    }
  }
}

function passes(met: boolean): TriggerDecision {
  return met ? 'runs' : 'waits';
}
