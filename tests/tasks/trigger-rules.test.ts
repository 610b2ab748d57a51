import { describe, expect, test } from 'vitest';
import { TriggerRule, type TaskDefinition } from '../../events/task-definition.js';
import type { TaskState } from '../../events/task-state-changed.js';
import { deriveRunOutcome } from '../../projections/derive-run-outcome.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { passesFailureOn, triggerOutcome, type UpstreamState } from '../../projections/trigger-outcome.js';

const task = (id: string, upstream: string[] = [], over: Partial<TaskDefinition> = {}): TaskDefinition => ({
  id,
  upstream,
  triggerRule: 'all_success',
  teardown: false,
  failRunOnFailure: false,
  ...over,
});

/** What a task does once its upstream tasks finished, as Airflow's TriggerRuleDep decides it. */
describe('trigger rule outcomes (Airflow TriggerRuleDep with flag_upstream_failed)', () => {
  test.each<{ rule: TriggerRule; upstream: UpstreamState[]; outcome: ReturnType<typeof triggerOutcome> }>([
    { rule: 'all_success', upstream: ['success', 'success'], outcome: 'runs' },
    { rule: 'all_success', upstream: ['success', 'skipped'], outcome: 'skipped' },
    { rule: 'all_success', upstream: ['skipped', 'failed'], outcome: 'upstream_failed' },
    { rule: 'all_failed', upstream: ['failed', 'upstream_failed'], outcome: 'runs' },
    { rule: 'all_failed', upstream: ['failed', 'success'], outcome: 'skipped' },
    { rule: 'all_done', upstream: ['failed', 'skipped'], outcome: 'runs' },
    { rule: 'all_done_min_one_success', upstream: ['failed', 'success'], outcome: 'runs' },
    { rule: 'all_done_min_one_success', upstream: ['failed', 'upstream_failed'], outcome: 'upstream_failed' },
    { rule: 'all_done_min_one_success', upstream: ['success', 'skipped'], outcome: 'skipped' },
    { rule: 'all_done_setup_success', upstream: ['failed'], outcome: 'runs' },
    { rule: 'one_success', upstream: ['failed', 'success'], outcome: 'runs' },
    { rule: 'one_success', upstream: ['failed', 'skipped'], outcome: 'upstream_failed' },
    { rule: 'one_success', upstream: ['skipped', 'skipped'], outcome: 'skipped' },
    { rule: 'one_failed', upstream: ['upstream_failed', 'success'], outcome: 'runs' },
    { rule: 'one_failed', upstream: ['success', 'skipped'], outcome: 'skipped' },
    { rule: 'one_done', upstream: ['failed'], outcome: 'runs' },
    { rule: 'one_done', upstream: ['upstream_failed', 'skipped'], outcome: 'skipped' },
    { rule: 'none_failed', upstream: ['success', 'skipped'], outcome: 'runs' },
    { rule: 'none_failed', upstream: ['success', 'failed'], outcome: 'upstream_failed' },
    { rule: 'none_failed_min_one_success', upstream: ['skipped', 'skipped'], outcome: 'skipped' },
    { rule: 'none_failed_min_one_success', upstream: ['skipped', 'upstream_failed'], outcome: 'upstream_failed' },
    { rule: 'none_skipped', upstream: ['failed', 'success'], outcome: 'runs' },
    { rule: 'none_skipped', upstream: ['success', 'skipped'], outcome: 'skipped' },
    { rule: 'all_skipped', upstream: ['skipped', 'skipped'], outcome: 'runs' },
    { rule: 'all_skipped', upstream: ['skipped', 'failed'], outcome: 'skipped' },
    { rule: 'always', upstream: ['upstream_failed'], outcome: 'runs' },
    { rule: 'all_success', upstream: [], outcome: 'runs' },
  ])('$rule with upstream [$upstream] → $outcome', ({ rule, upstream, outcome }) => {
    expect(triggerOutcome(rule, upstream)).toBe(outcome);
  });
});

/**
 * Every rule as the rule of a leaf whose upstream failed: the state the leaf
 * ends in (a leaf that runs is taken to succeed), the run state S12 derives
 * from it, and whether `define` warns. The lint must warn exactly when the
 * run can succeed.
 */
describe('every trigger rule: its effect on the leaf rule, and the lint', () => {
  type Row = { rule: TriggerRule; alone: { leaf: TaskState; run: 'success' | 'failed' }; besideSuccess: { leaf: TaskState; run: 'success' | 'failed' } };
  const rows: Row[] = [
    { rule: 'all_success', alone: { leaf: 'upstream_failed', run: 'failed' }, besideSuccess: { leaf: 'upstream_failed', run: 'failed' } },
    { rule: 'all_failed', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'skipped', run: 'success' } },
    { rule: 'all_done', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'all_done_min_one_success', alone: { leaf: 'upstream_failed', run: 'failed' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'all_done_setup_success', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'one_success', alone: { leaf: 'upstream_failed', run: 'failed' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'one_failed', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'one_done', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
    // The issue guessed none_failed masks; Airflow marks the task upstream_failed as soon as an upstream failed, so it is safe.
    { rule: 'none_failed', alone: { leaf: 'upstream_failed', run: 'failed' }, besideSuccess: { leaf: 'upstream_failed', run: 'failed' } },
    { rule: 'none_failed_min_one_success', alone: { leaf: 'upstream_failed', run: 'failed' }, besideSuccess: { leaf: 'upstream_failed', run: 'failed' } },
    { rule: 'none_skipped', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
    { rule: 'all_skipped', alone: { leaf: 'skipped', run: 'success' }, besideSuccess: { leaf: 'skipped', run: 'success' } },
    { rule: 'always', alone: { leaf: 'success', run: 'success' }, besideSuccess: { leaf: 'success', run: 'success' } },
  ];

  test('the table covers every Airflow trigger rule', () => {
    expect(rows.map((r) => r.rule).sort()).toEqual([...TriggerRule.options].sort());
  });

  const leafState = (rule: TriggerRule, upstream: UpstreamState[]): TaskState => {
    const outcome = triggerOutcome(rule, upstream);
    return outcome === 'runs' ? 'success' : outcome;
  };

  test.each(rows)('$rule leaf after its only upstream failed → leaf $alone.leaf, run $alone.run', ({ rule, alone }) => {
    const tasks = [task('extract'), task('report', ['extract'], { triggerRule: rule })];
    const leaf = leafState(rule, ['failed']);
    expect(leaf).toBe(alone.leaf);
    const outcome = deriveRunOutcome(tasks, new Map([['extract', { state: 'failed' as const }], ['report', { state: leaf }]]));
    expect(outcome.status).toBe(alone.run);
    const warnings = lintTasks(tasks);
    expect(warnings.length > 0).toBe(alone.run === 'success');
    expect(passesFailureOn(rule, 1)).toBe(alone.run === 'failed');
    if (warnings.length > 0) expect(warnings[0]).toMatchObject({ leaf: 'report', triggerRule: rule, hides: ['extract'], addLeafAfter: ['extract'] });
  });

  test.each(rows)('$rule leaf after one of two upstream tasks failed and the other succeeded → leaf $besideSuccess.leaf, run $besideSuccess.run', ({ rule, besideSuccess }) => {
    const tasks = [task('orders'), task('customers'), task('report', ['orders', 'customers'], { triggerRule: rule })];
    const leaf = leafState(rule, ['failed', 'success']);
    expect(leaf).toBe(besideSuccess.leaf);
    const outcome = deriveRunOutcome(tasks, new Map<string, { state: TaskState }>([['orders', { state: 'failed' }], ['customers', { state: 'success' }], ['report', { state: leaf }]]));
    expect(outcome.status).toBe(besideSuccess.run);
    const warnings = lintTasks(tasks);
    expect(warnings.length > 0).toBe(besideSuccess.run === 'success');
    expect(passesFailureOn(rule, 2)).toBe(besideSuccess.run === 'failed');
  });
});

describe('the masking lint on whole graphs', () => {
  const chain = [task('extract'), task('load', ['extract']), task('cleanup', ['load'], { triggerRule: 'all_done' })];

  test('extract » load » cleanup(all_done) warns about cleanup, naming what it hides and both fixes', () => {
    const [warning, ...rest] = lintTasks(chain);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ leaf: 'cleanup', triggerRule: 'all_done', hides: ['extract', 'load'], absorbedBy: [{ taskId: 'cleanup', triggerRule: 'all_done' }], addLeafAfter: ['load'] });
    expect(warning?.message).toBe(
      "leaf 'cleanup' (all_done) can end in success after 'extract' or 'load' failed, so the run would be recorded as a success; " +
        "add a leaf with trigger rule all_success downstream of 'load', or mark 'cleanup' a teardown so it no longer decides the run",
    );
  });

  test('an all_success leaf after load silences it: the run can no longer succeed after a failure', () => {
    expect(lintTasks([...chain, task('mark_complete', ['load'])])).toEqual([]);
  });

  test('marking cleanup a teardown silences it: load becomes the leaf', () => {
    expect(lintTasks([chain[0]!, chain[1]!, task('cleanup', ['load'], { triggerRule: 'all_done', teardown: true })])).toEqual([]);
  });

  test('a teardown that fails the run on failure is a leaf again, so it warns', () => {
    const tasks = [chain[0]!, chain[1]!, task('cleanup', ['load'], { triggerRule: 'all_done_setup_success', teardown: true, failRunOnFailure: true })];
    expect(lintTasks(tasks).map((w) => w.leaf)).toEqual(['cleanup']);
  });

  test('a tolerant task in the middle is named as the reason, and the fix is a leaf after its upstream', () => {
    const tasks = [task('extract'), task('notify', ['extract'], { triggerRule: 'all_done' }), task('report', ['notify'])];
    const [warning] = lintTasks(tasks);
    expect(warning).toMatchObject({ leaf: 'report', hides: ['extract'], absorbedBy: [{ taskId: 'notify', triggerRule: 'all_done' }], addLeafAfter: ['extract'] });
    expect(warning?.message).toContain("because 'notify' (all_done) does not pass the failure on");
    expect(warning?.message).not.toContain('teardown');
  });

  test('a pipeline of all_success tasks has nothing to warn about', () => {
    expect(lintTasks([task('a'), task('b', ['a']), task('c', ['a']), task('d', ['b', 'c'])])).toEqual([]);
  });
});
