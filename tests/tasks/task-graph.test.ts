import { describe, expect, test } from 'vitest';
import type { TaskDefinition } from '../../events/task-definition.js';
import { checkTaskGraph, runLeaves } from '../../projections/task-graph.js';

const issuesOf = (input: unknown) => {
  const result = checkTaskGraph(input);
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);
};

describe('checking a declared task list (S12)', () => {
  test('defaults are filled in: no upstream, all_success, not a teardown; a teardown defaults to all_done_setup_success', () => {
    const result = checkTaskGraph([{ id: 'extract' }, { id: 'load', upstream: ['extract', 'extract'] }, { id: 'cleanup', upstream: ['load'], teardown: true }]);
    expect(result).toEqual({
      ok: true,
      tasks: [
        { id: 'extract', upstream: [], triggerRule: 'all_success', teardown: false, failRunOnFailure: false },
        { id: 'load', upstream: ['extract'], triggerRule: 'all_success', teardown: false, failRunOnFailure: false },
        { id: 'cleanup', upstream: ['load'], triggerRule: 'all_done_setup_success', teardown: true, failRunOnFailure: false },
      ],
    });
  });

  test.each([
    { label: 'an unknown upstream id is refused, with the near miss', input: [{ id: 'extract' }, { id: 'load', upstream: ['extrct'] }], expected: /tasks\[1\]\.upstream: 'load' lists upstream 'extrct', which is not a task of this pipeline; did you mean 'extract'\?/ },
    { label: 'a duplicate id is refused, naming both places', input: [{ id: 'load' }, { id: 'x' }, { id: 'load' }], expected: /tasks\[2\]: task id 'load' is declared twice \(also tasks\[0\]\)/ },
    { label: 'an unknown trigger rule is refused with a suggestion', input: [{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'all_sucess' }], expected: /"all_sucess" is not a trigger rule; did you mean all_success\?/ },
    { label: 'a trigger rule in the wrong case is refused with the right spelling', input: [{ id: 'a', triggerRule: 'ALL_DONE' }], expected: /did you mean all_done\?/ },
    { label: 'a nonsense trigger rule lists every rule', input: [{ id: 'a', triggerRule: 'whenever' }], expected: /use one of all_success, all_failed, all_done, .*always/ },
    { label: 'a snake_case field is refused with the camelCase name', input: [{ id: 'a', trigger_rule: 'all_done' }], expected: /tasks\[0\]\.trigger_rule: unknown field 'trigger_rule'; did you mean 'triggerRule'\?/ },
    { label: 'a missing id is refused', input: [{ upstream: [] }], expected: /tasks\[0\]\.id: is missing/ },
    { label: 'an id with a space is refused', input: [{ id: 'my task' }], expected: /"my task" is not a task id/ },
    { label: 'upstream must be a list of ids', input: [{ id: 'a', upstream: 'b' }], expected: /upstream must be an array of task ids/ },
    { label: 'failRunOnFailure needs a teardown', input: [{ id: 'a', failRunOnFailure: true }], expected: /failRunOnFailure only applies to a teardown task/ },
    { label: 'an empty list is refused', input: [], expected: /declares no tasks/ },
    { label: 'a non-list is refused', input: { extract: {} }, expected: /must be an array of tasks/ },
    { label: 'a self-dependency is a cycle', input: [{ id: 'a', upstream: ['a'] }], expected: /the tasks form a cycle: a -> a/ },
  ])('$label', ({ input, expected }) => {
    expect(issuesOf(input).join('\n')).toMatch(expected);
  });

  test('a cycle is named in run order and closed', () => {
    const issues = issuesOf([{ id: 'extract', upstream: ['publish'] }, { id: 'load', upstream: ['extract'] }, { id: 'publish', upstream: ['load'] }, { id: 'other' }]);
    expect(issues).toEqual(['tasks: the tasks form a cycle: extract -> load -> publish -> extract; a task cannot run after itself']);
  });

  test('every problem is reported, not just the first', () => {
    expect(issuesOf([{ id: 'a', triggerRule: 'nope' }, { id: 'b', teardown: 'yes' }])).toHaveLength(2);
  });
});

describe('run leaves (Airflow DagRun.update_state)', () => {
  const t = (id: string, upstream: string[] = [], over: Partial<TaskDefinition> = {}): TaskDefinition => ({ id, upstream, triggerRule: 'all_success', teardown: false, failRunOnFailure: false, ...over });

  test.each([
    { label: 'a chain has its last task as the leaf', tasks: [t('extract'), t('load', ['extract'])], leaves: ['load'] },
    { label: 'an ignorable teardown is not a leaf, and does not hide its upstream', tasks: [t('load'), t('cleanup', ['load'], { teardown: true })], leaves: ['load'] },
    { label: 'a teardown with failRunOnFailure is a leaf, and its upstream is not', tasks: [t('load'), t('cleanup', ['load'], { teardown: true, failRunOnFailure: true })], leaves: ['cleanup'] },
    { label: 'a task with a real downstream and a teardown is not a leaf', tasks: [t('load'), t('report', ['load']), t('cleanup', ['load'], { teardown: true })], leaves: ['report'] },
    { label: 'when every leaf is an ignorable teardown, the plain leaves count', tasks: [t('cleanup', [], { teardown: true })], leaves: ['cleanup'] },
    { label: 'independent tasks are all leaves', tasks: [t('a'), t('b')], leaves: ['a', 'b'] },
  ])('$label', ({ tasks, leaves }) => {
    expect(runLeaves(tasks)).toEqual(leaves);
  });
});
