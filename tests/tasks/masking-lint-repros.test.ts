import { describe, expect, test } from 'vitest';
import type { TaskDefinition } from '../../events/task-definition.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { checkTaskGraph, type TaskSpec } from '../../projections/task-graph.js';

const graph = (specs: TaskSpec[]): TaskDefinition[] => {
  const checked = checkTaskGraph(specs);
  if (!checked.ok) throw new Error(checked.issues.map((i) => i.message).join('; '));
  return checked.tasks;
};

/** The three graphs of issue 18, in `define --tasks` form, with the answers Airflow's scheduler gives. */
describe('the masking lint on the graphs it used to get wrong', () => {
  test('1. a skip reaches the leaf before the failure does: d hides a and c, both in every order (not b)', () => {
    const tasks = graph([{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['a', 'b'], triggerRule: 'all_done' }, { id: 'd', upstream: ['b', 'c'] }]);
    const warnings = lintTasks(tasks);
    console.log(JSON.stringify(warnings, null, 1));
    expect(warnings.map((w) => ({ leaf: w.leaf, failures: w.failures }))).toEqual([
      { leaf: 'd', failures: [{ taskId: 'a', orders: 'every', when: null }, { taskId: 'c', orders: 'every', when: null }] },
    ]);
  });

  test('2. one_success whose other upstream cannot succeed: d hides only a', () => {
    const tasks = graph([{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['a'] }, { id: 'd', upstream: ['b', 'c'], triggerRule: 'one_success' }]);
    const warnings = lintTasks(tasks);
    console.log(JSON.stringify(warnings, null, 1));
    expect(warnings.map((w) => ({ leaf: w.leaf, hides: w.hides }))).toEqual([{ leaf: 'd', hides: ['a'] }]);
  });

  test('3. a task that runs only after a failure cannot fail on its own: c hides only a', () => {
    const tasks = graph([{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['b'], triggerRule: 'all_done' }]);
    const warnings = lintTasks(tasks);
    console.log(JSON.stringify(warnings, null, 1));
    expect(warnings.map((w) => ({ leaf: w.leaf, hides: w.hides }))).toEqual([{ leaf: 'c', hides: ['a'] }]);
  });
});
