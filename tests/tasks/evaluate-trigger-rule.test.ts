import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { TriggerRule } from '../../events/task-definition.js';
import { evaluateTriggerRule, type EvaluatedTask, type TriggerDecision, type UpstreamCounts } from '../../projections/evaluate-trigger-rule.js';
import { airflowVerdict } from '../support/masking-oracle.js';

type Up = 'success' | 'skipped' | 'failed' | 'upstream_failed' | 'running';

/** Counts as Airflow's `_UpstreamTIStates` makes them; `setup` marks which upstream tasks are setup tasks. */
const counts = (ups: Up[], setup: boolean[] = []): UpstreamCounts => {
  const n = (s: Up, only = false) => ups.filter((u, i) => u === s && (!only || setup[i] === true)).length;
  return {
    upstream: ups.length,
    success: n('success'),
    skipped: n('skipped'),
    failed: n('failed'),
    upstreamFailed: n('upstream_failed'),
    done: ups.filter((u) => u !== 'running').length,
    upstreamSetup: setup.filter(Boolean).length,
    successSetup: n('success', true),
    skippedSetup: n('skipped', true),
  };
};
const plain = (triggerRule: TriggerRule): EvaluatedTask => ({ triggerRule, teardown: false, indirectSetups: null });

/**
 * Airflow's TriggerRuleDep within one scheduler pass, rule by rule: `running`
 * stands for an upstream task not finished when the pass started. The rows
 * marked "early" are the decisions taken before every upstream task finished.
 */
describe('evaluateTriggerRule mirrors TriggerRuleDep with flag_upstream_failed', () => {
  const rows: Array<{ rule: TriggerRule; ups: Up[]; want: TriggerDecision }> = [
    { rule: 'all_success', ups: ['success', 'success'], want: 'runs' },
    { rule: 'all_success', ups: ['success', 'running'], want: 'waits' },
    { rule: 'all_success', ups: ['skipped', 'running'], want: 'skipped' }, // early
    { rule: 'all_success', ups: ['failed', 'running'], want: 'upstream_failed' }, // early
    { rule: 'all_success', ups: ['skipped', 'upstream_failed'], want: 'upstream_failed' },
    { rule: 'all_failed', ups: ['failed', 'upstream_failed'], want: 'runs' },
    { rule: 'all_failed', ups: ['failed', 'running'], want: 'waits' },
    { rule: 'all_failed', ups: ['success', 'running'], want: 'skipped' }, // early
    { rule: 'all_failed', ups: ['skipped'], want: 'skipped' },
    { rule: 'all_done', ups: ['failed', 'skipped'], want: 'runs' },
    { rule: 'all_done', ups: ['failed', 'running'], want: 'waits' },
    { rule: 'all_done_setup_success', ups: ['failed', 'upstream_failed'], want: 'runs' },
    { rule: 'all_done_setup_success', ups: ['success', 'running'], want: 'waits' },
    { rule: 'all_done_min_one_success', ups: ['success', 'failed'], want: 'runs' },
    { rule: 'all_done_min_one_success', ups: ['success', 'running'], want: 'waits' },
    { rule: 'all_done_min_one_success', ups: ['skipped', 'running'], want: 'skipped' }, // early
    { rule: 'all_done_min_one_success', ups: ['failed', 'upstream_failed'], want: 'upstream_failed' },
    { rule: 'all_done_min_one_success', ups: ['failed', 'running'], want: 'waits' },
    { rule: 'one_success', ups: ['success', 'running'], want: 'runs' }, // early
    { rule: 'one_success', ups: ['skipped', 'skipped'], want: 'skipped' },
    { rule: 'one_success', ups: ['failed', 'skipped'], want: 'upstream_failed' },
    { rule: 'one_success', ups: ['skipped', 'running'], want: 'waits' },
    { rule: 'one_success', ups: ['failed', 'running'], want: 'waits' },
    { rule: 'one_failed', ups: ['failed', 'running'], want: 'runs' }, // early
    { rule: 'one_failed', ups: ['upstream_failed', 'running'], want: 'runs' }, // early
    { rule: 'one_failed', ups: ['success', 'skipped'], want: 'skipped' },
    { rule: 'one_failed', ups: ['success', 'running'], want: 'waits' },
    { rule: 'one_done', ups: ['success', 'running'], want: 'runs' }, // early
    { rule: 'one_done', ups: ['failed', 'running'], want: 'runs' }, // early
    { rule: 'one_done', ups: ['upstream_failed', 'skipped'], want: 'skipped' },
    { rule: 'one_done', ups: ['upstream_failed', 'running'], want: 'waits' },
    { rule: 'none_failed', ups: ['success', 'skipped'], want: 'runs' },
    { rule: 'none_failed', ups: ['failed', 'running'], want: 'upstream_failed' }, // early
    { rule: 'none_failed', ups: ['success', 'running'], want: 'waits' },
    { rule: 'none_failed_min_one_success', ups: ['skipped', 'skipped'], want: 'skipped' },
    { rule: 'none_failed_min_one_success', ups: ['skipped', 'upstream_failed'], want: 'upstream_failed' },
    { rule: 'none_failed_min_one_success', ups: ['skipped', 'success'], want: 'runs' },
    { rule: 'none_failed_min_one_success', ups: ['skipped', 'running'], want: 'waits' },
    { rule: 'none_skipped', ups: ['skipped', 'running'], want: 'skipped' }, // early
    { rule: 'none_skipped', ups: ['failed', 'success'], want: 'runs' },
    { rule: 'none_skipped', ups: ['success', 'running'], want: 'waits' },
    { rule: 'all_skipped', ups: ['skipped', 'skipped'], want: 'runs' },
    { rule: 'all_skipped', ups: ['failed', 'running'], want: 'skipped' }, // early
    { rule: 'all_skipped', ups: ['skipped', 'running'], want: 'waits' },
    { rule: 'always', ups: ['running'], want: 'runs' },
    { rule: 'always', ups: ['upstream_failed'], want: 'runs' },
  ];

  test.each(rows)('$rule with upstream [$ups] → $want', ({ rule, ups, want }) => {
    expect(evaluateTriggerRule(plain(rule), counts(ups))).toBe(want);
  });

  test.each(TriggerRule.options)('%s without upstream tasks runs', (rule) => {
    expect(evaluateTriggerRule(plain(rule), counts([]))).toBe('runs');
  });

  test('the rows cover every trigger rule', () => {
    expect([...new Set(rows.map((r) => r.rule))].sort()).toEqual([...TriggerRule.options].sort());
  });
});

describe('setup and teardown handling', () => {
  const teardown = (setup: boolean[], ups: Up[]) => evaluateTriggerRule({ triggerRule: 'all_done_setup_success', teardown: true, indirectSetups: null }, counts(ups, setup));

  test.each<{ label: string; ups: Up[]; setup: boolean[]; want: TriggerDecision }>([
    { label: 'its setup succeeded, the work failed', ups: ['success', 'failed'], setup: [true, false], want: 'runs' },
    { label: 'its only setup was skipped', ups: ['skipped', 'success'], setup: [true, false], want: 'skipped' },
    { label: 'its only setup failed', ups: ['failed', 'success'], setup: [true, false], want: 'upstream_failed' },
    { label: 'one of two setups succeeded', ups: ['success', 'failed'], setup: [true, true], want: 'runs' },
    { label: 'its setup succeeded, the work still runs', ups: ['success', 'running'], setup: [true, false], want: 'waits' },
  ])('an all_done_setup_success teardown when $label → $want', ({ ups, setup, want }) => {
    expect(teardown(setup, ups)).toBe(want);
  });

  const setups = (over: Partial<NonNullable<EvaluatedTask['indirectSetups']>>) => ({ upstream: 1, success: 0, skipped: 0, failed: 0, upstreamFailed: 0, ...over });

  test.each<{ label: string; task: EvaluatedTask; ups: Up[]; want: TriggerDecision }>([
    { label: 'an indirect setup failed', task: { ...plain('all_done'), indirectSetups: setups({ failed: 1 }) }, ups: ['success'], want: 'upstream_failed' },
    { label: 'an indirect setup was skipped', task: { ...plain('all_done'), indirectSetups: setups({ skipped: 1 }) }, ups: ['success'], want: 'skipped' },
    { label: 'an indirect setup still runs', task: { ...plain('all_done'), indirectSetups: setups({}) }, ups: ['success'], want: 'waits' },
    { label: 'an indirect setup still runs and a direct upstream was skipped', task: { ...plain('all_success'), indirectSetups: setups({}) }, ups: ['skipped'], want: 'skipped' },
    { label: 'every indirect setup succeeded', task: { ...plain('all_success'), indirectSetups: setups({ success: 1 }) }, ups: ['success'], want: 'runs' },
    { label: 'a teardown ignores indirect setups', task: { ...plain('all_done'), teardown: true, indirectSetups: setups({ failed: 1 }) }, ups: ['success'], want: 'runs' },
  ])('$label → $want', ({ task, ups, want }) => {
    expect(evaluateTriggerRule(task, counts(ups))).toBe(want);
  });
});

describe('evaluateTriggerRule equals the property-test oracle on any upstream states', () => {
  test('random rules and upstream states, finished or not', () => {
    const up = fc.constantFrom<Up>('success', 'skipped', 'failed', 'upstream_failed', 'running');
    fc.assert(
      fc.property(fc.constantFrom(...TriggerRule.options), fc.array(up, { maxLength: 6 }), (rule, ups) => {
        const oracle = airflowVerdict(rule, ups);
        expect(evaluateTriggerRule(plain(rule), counts(ups))).toBe(oracle === 'run' ? 'runs' : oracle === 'wait' ? 'waits' : oracle);
      }),
      { numRuns: 2000 },
    );
  });
});
