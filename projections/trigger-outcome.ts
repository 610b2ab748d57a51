import type { TriggerRule } from '../events/task-definition.js';

/** The finished states an upstream task can hand to its downstream (removed upstreams do not count, as in Airflow). */
export type UpstreamState = 'success' | 'skipped' | 'failed' | 'upstream_failed';

/** What a task does once all its upstream tasks are finished: it runs, or is marked skipped or upstream_failed without running. */
export type TriggerOutcome = 'runs' | 'skipped' | 'upstream_failed';

/**
 * Airflow's trigger rule evaluation (`TriggerRuleDep` with
 * `flag_upstream_failed`) for a task whose upstream tasks are all finished.
 * Only which states are present matters, never how many, so the lint can
 * reason about every possible run with a handful of cases. A task without
 * upstream tasks always runs. Setup tasks are not modelled, so
 * `all_done_setup_success` behaves like `all_done`.
 *
 * @example
 * triggerOutcome('all_success', ['failed']) // 'upstream_failed'
 * triggerOutcome('all_done', ['failed'])    // 'runs'
 * triggerOutcome('all_skipped', ['failed']) // 'skipped'
 */
export function triggerOutcome(rule: TriggerRule, upstream: Iterable<UpstreamState>): TriggerOutcome {
  const present = new Set(upstream);
  if (present.size === 0) return 'runs';
  const success = present.has('success');
  const skipped = present.has('skipped');
  const failed = present.has('failed');
  const upstreamFailed = present.has('upstream_failed');
  const anyFailure = failed || upstreamFailed;
  switch (rule) {
    case 'all_success':
      return anyFailure ? 'upstream_failed' : skipped ? 'skipped' : 'runs';
    case 'all_failed':
      return success || skipped ? 'skipped' : 'runs';
    case 'all_done':
    case 'all_done_setup_success':
    case 'always':
      return 'runs';
    case 'all_done_min_one_success':
      return skipped ? 'skipped' : success ? 'runs' : 'upstream_failed';
    case 'one_success':
      if (!success && !anyFailure) return 'skipped';
      return success ? 'runs' : 'upstream_failed';
    case 'one_failed':
      return anyFailure ? 'runs' : 'skipped';
    case 'one_done':
      // Airflow counts `failed` and `success` here, not `upstream_failed`.
      return failed || success ? 'runs' : 'skipped';
    case 'none_failed':
      return anyFailure ? 'upstream_failed' : 'runs';
    case 'none_failed_min_one_success':
      return anyFailure ? 'upstream_failed' : success ? 'runs' : 'skipped';
    case 'none_skipped':
      return skipped ? 'skipped' : 'runs';
    case 'all_skipped':
      return success || anyFailure ? 'skipped' : 'runs';
    default: {
      const unknown: never = rule;
      throw new Error(`triggerOutcome: unhandled trigger rule ${String(unknown)}`);
    }
  }
}

const STATES: readonly UpstreamState[] = ['success', 'skipped', 'failed', 'upstream_failed'];

/**
 * True when a task with this rule and this many upstream tasks can end in
 * `success` or `skipped` although one of its upstream tasks failed: it does
 * not pass the failure on as `upstream_failed`. As a leaf, such a task lets a
 * run succeed after a failure (S12's masking trap).
 *
 * @example
 * passesFailureOn('all_success', 1) // true
 * passesFailureOn('one_success', 1) // true  (its only upstream failed: upstream_failed)
 * passesFailureOn('one_success', 2) // false (the other upstream succeeded: it runs)
 */
export function passesFailureOn(rule: TriggerRule, upstreamCount: number): boolean {
  if (upstreamCount === 0) return true;
  for (const upstream of presenceSets(Math.min(upstreamCount, STATES.length))) {
    const failure = upstream.includes('failed') || upstream.includes('upstream_failed');
    if (failure && triggerOutcome(rule, upstream) !== 'upstream_failed') return false;
  }
  return true;
}

/** Every non-empty set of at most `max` distinct upstream states. */
function presenceSets(max: number): UpstreamState[][] {
  const sets: UpstreamState[][] = [];
  for (let mask = 1; mask < 1 << STATES.length; mask++) {
    const set = STATES.filter((_, i) => (mask & (1 << i)) !== 0);
    if (set.length <= max) sets.push(set);
  }
  return sets;
}
