// Issue 27's graph with all_done_min_one_success: t0 (all_done_min_one_success), t1, t2 <- t0
// (all_done_min_one_success), t3 <- t2 (all_failed), t4 <- t1, t3 (all_success). Whether t4 can hide a failure
// of t1 depends on one thing only: whether the scheduler may take a pass while t1 keeps running. Airflow's does
// (its loop runs every scheduler heartbeat, and a pass that skipped t3 is followed by one that evaluates t4
// against it), so the lint keeps its "in some orders" warning, and shows the order.
import { describe, expect, test } from 'vitest';
import type { TaskDefinition } from '../../events/task-definition.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { checkTaskGraph, type TaskSpec } from '../../projections/task-graph.js';
import { oracleMasking, witnessHolds } from '../support/masking-oracle.js';

const SPECS: TaskSpec[] = [
  { id: 't0', triggerRule: 'all_done_min_one_success' },
  { id: 't1' },
  { id: 't2', upstream: ['t0'], triggerRule: 'all_done_min_one_success' },
  { id: 't3', upstream: ['t2'], triggerRule: 'all_failed' },
  { id: 't4', upstream: ['t1', 't3'] },
];

function graph(): TaskDefinition[] {
  const checked = checkTaskGraph(SPECS);
  if (!checked.ok) throw new Error(checked.issues.map((i) => i.message).join('; '));
  return checked.tasks;
}

describe('all_done_min_one_success upstream of an all_failed task', () => {
  test("the lint's answer for t1 is the oracle's, and its witness is a real scheduling order", () => {
    const tasks = graph();
    const [warning] = lintTasks(tasks);
    const t1 = warning?.failures.find((f) => f.taskId === 't1');
    expect(t1).toEqual({ taskId: 't1', orders: 'some', when: "when 't1' is still running after 't4' is skipped" });
    expect(oracleMasking(tasks)).toContainEqual({ leaf: 't4', task: 't1', orders: 'some' });
    expect(witnessHolds(tasks, 't1', t1?.when ?? '')).toBe(true);
  });

  test('if every pass had to wait for a task to finish, t4 would end upstream_failed whenever t1 fails', () => {
    // The reading of the issue: no pass while only t1 runs, so t4 always sees t1's failure first.
    expect(oracleMasking(graph(), false).filter((a) => a.task === 't1')).toEqual([]);
  });

  test('t0 and t2 failing are hidden in every order: t3 (all_failed) runs on their failure and succeeds', () => {
    const [warning] = lintTasks(graph());
    expect(warning?.failures.filter((f) => f.orders === 'every').map((f) => f.taskId)).toEqual(['t0', 't2']);
  });
});
