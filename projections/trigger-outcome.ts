import type { TriggerRule } from '../events/task-definition.js';
import { evaluateTriggerRule, type UpstreamCounts } from './evaluate-trigger-rule.js';

/** The finished states an upstream task can hand to its downstream (removed upstreams do not count, as in Airflow). */
export type UpstreamState = 'success' | 'skipped' | 'failed' | 'upstream_failed';

/** What a task does once all its upstream tasks are finished: it runs, or is marked skipped or upstream_failed without running. */
export type TriggerOutcome = 'runs' | 'skipped' | 'upstream_failed';

/**
 * What a task does once all its upstream tasks are finished, as Airflow's
 * `TriggerRuleDep` with `flag_upstream_failed` decides it
 * (`evaluateTriggerRule`). With every upstream task finished no rule waits.
 * Only which states are present matters, never how many. A task without
 * upstream tasks always runs. runledger declares no setup tasks, so
 * `all_done_setup_success` behaves like `all_done`.
 *
 * @example
 * triggerOutcome('all_success', ['failed']) // 'upstream_failed'
 * triggerOutcome('all_done', ['failed'])    // 'runs'
 * triggerOutcome('all_skipped', ['failed']) // 'skipped'
 */
export function triggerOutcome(rule: TriggerRule, upstream: Iterable<UpstreamState>): TriggerOutcome {
  const decision = evaluateTriggerRule({ triggerRule: rule, teardown: false, indirectSetups: null }, countsOf(upstream, false));
  if (decision === 'waits') throw new Error(`triggerOutcome: ${rule} waits although every upstream task finished`);
  return decision;
}

/**
 * The counts a set of upstream states gives, one task per distinct state;
 * with `unfinished`, one more upstream task that has not finished. Every
 * condition of a trigger rule depends only on which states are present, so
 * these counts stand for any number of tasks in those states.
 *
 * @example
 * countsOf(['failed', 'skipped'], true) // { upstream: 3, failed: 1, skipped: 1, done: 2, … }
 */
export function countsOf(upstream: Iterable<UpstreamState>, unfinished: boolean): UpstreamCounts {
  const present = new Set(upstream);
  const one = (state: UpstreamState) => (present.has(state) ? 1 : 0);
  return {
    upstream: present.size + (unfinished ? 1 : 0),
    success: one('success'),
    skipped: one('skipped'),
    failed: one('failed'),
    upstreamFailed: one('upstream_failed'),
    done: present.size,
    upstreamSetup: 0,
    successSetup: 0,
    skippedSetup: 0,
  };
}

const STATES: readonly UpstreamState[] = ['success', 'skipped', 'failed', 'upstream_failed'];

/**
 * True when a task with this rule and this many upstream tasks can end in
 * `success` or `skipped` although one of its upstream tasks failed: it does
 * not pass the failure on as `upstream_failed`. As a leaf, such a task lets a
 * run succeed after a failure (the masking trap: a failure hidden by a leaf that still succeeds).
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
