import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { TaskDefinition } from '../../events/task-definition.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { searchMasking } from '../../projections/search-masking.js';
import { checkTaskGraph, type TaskSpec } from '../../projections/task-graph.js';
import { oracleMasking } from '../support/masking-oracle.js';

const graph = (specs: TaskSpec[]): TaskDefinition[] => {
  const checked = checkTaskGraph(specs);
  if (!checked.ok) throw new Error(checked.issues.map((i) => i.message).join('; '));
  return checked.tasks;
};

const REPRO_1: TaskSpec[] = [{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['a', 'b'], triggerRule: 'all_done' }, { id: 'd', upstream: ['b', 'c'] }];
const REPRO_2: TaskSpec[] = [{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['a'] }, { id: 'd', upstream: ['b', 'c'], triggerRule: 'one_success' }];
const REPRO_3: TaskSpec[] = [{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['b'], triggerRule: 'all_done' }];

/** The three graphs of issue 18, in `define --tasks` form, with the answers Airflow's scheduler gives. */
describe('the masking lint on the graphs it used to get wrong', () => {
  test('1. a skip reaches the leaf before the failure does: d hides a and c, both in every order, and not b', () => {
    const [warning, ...rest] = lintTasks(graph(REPRO_1));
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({
      leaf: 'd',
      hides: ['a', 'c'],
      failures: [
        { taskId: 'a', orders: 'every', when: null },
        { taskId: 'c', orders: 'every', when: null },
      ],
    });
    // Only c failing: b is skipped, so d is skipped while c still runs; the failure of c then reaches no leaf.
    expect(warning?.message).toBe(
      "leaf 'd' (all_success) can end in success or be skipped after 'a' or 'c' failed, because 'b' (one_failed) and 'c' (all_done) do not pass the failure on, " +
        "so the run would be recorded as a success; add a leaf with trigger rule all_success downstream of 'a' and 'c', or mark 'd' a teardown so it no longer decides the run",
    );
  });

  test('2. one_success whose other upstream cannot succeed: d hides only a (only c failing skips b, so d is upstream_failed)', () => {
    const warnings = lintTasks(graph(REPRO_2));
    expect(warnings.map((w) => ({ leaf: w.leaf, failures: w.failures }))).toEqual([{ leaf: 'd', failures: [{ taskId: 'a', orders: 'every', when: null }] }]);
    expect(searchMasking(graph(REPRO_2), 'c', 1000)).toMatchObject({ checked: true, masks: 'never' });
  });

  test('3. a task that runs only after a failure cannot fail on its own: c hides only a', () => {
    const warnings = lintTasks(graph(REPRO_3));
    expect(warnings.map((w) => ({ leaf: w.leaf, hides: w.hides }))).toEqual([{ leaf: 'c', hides: ['a'] }]);
    expect(warnings[0]?.message).toBe(
      "leaf 'c' (all_done) can end in success after 'a' failed, because 'b' (one_failed) does not pass the failure on, so the run would be recorded as a success; " +
        "add a leaf with trigger rule all_success downstream of 'a'",
    );
  });
});

describe('a failure hidden in only some scheduling orders', () => {
  // Only b failing: c (all_failed) is skipped once a succeeds; d (all_success) is skipped by that skip if b is still running, but upstream_failed if b failed first.
  const tasks = graph([{ id: 'a', triggerRule: 'always' }, { id: 'b', triggerRule: 'none_failed' }, { id: 'c', upstream: ['a'], triggerRule: 'all_failed' }, { id: 'd', upstream: ['a', 'b', 'c'] }]);

  test('says so, with an order in which it happens', () => {
    const [warning, ...rest] = lintTasks(tasks);
    expect(rest).toEqual([]);
    expect(warning?.failures).toEqual([{ taskId: 'b', orders: 'some', when: "when 'b' is still running after 'd' is skipped" }]);
    expect(warning?.message).toBe(
      "leaf 'd' (all_success) can be skipped in some orders after 'b' failed (when 'b' is still running after 'd' is skipped), so the run would be recorded as a success; " +
        "add a leaf with trigger rule all_success downstream of 'b', or mark 'd' a teardown so it no longer decides the run",
    );
  });

  test('the search finds both kinds of end', () => {
    const search = searchMasking(tasks, 'b', 1000);
    expect(search).toMatchObject({ checked: true, masks: 'sometimes' });
    if (search.checked && search.masks !== 'never') expect(search.witness.final).toEqual(new Map([['a', 'success'], ['b', 'failed'], ['c', 'skipped'], ['d', 'skipped']]));
  });
});

describe('a skip travels two tasks down while the failing task still runs', () => {
  // The scheduler loops many times while a long task runs, so a pass need not wait for a task to finish.
  const tasks = graph([{ id: 'load', triggerRule: 'always' }, { id: 'check' }, { id: 'alert', upstream: ['check'], triggerRule: 'one_failed' }, { id: 'publish', upstream: ['load', 'alert'] }]);

  test('only load failing: check succeeds, alert is skipped, then publish is skipped before load fails', () => {
    const [warning] = lintTasks(tasks);
    expect(warning?.failures).toEqual([
      { taskId: 'load', orders: 'some', when: "when 'load' is still running after 'publish' is skipped" },
      { taskId: 'check', orders: 'every', when: null },
    ]);
  });
});

describe('past the bound on scheduler states, the coarse check', () => {
  test('warns with a note that it did not check every order', () => {
    const [warning] = lintTasks(graph(REPRO_1), { maxStates: 3 });
    expect(warning?.failures.map((f) => f.orders)).toContain('unchecked');
    expect(warning?.message).toContain('(not checked order by order: more than 3 scheduler states, so this may be a false alarm)');
  });

  test('never misses a hidden failure: with no states to explore it names every pair the oracle finds (random graphs)', () => {
    const rules = ['all_success', 'all_failed', 'all_done', 'all_done_min_one_success', 'all_done_setup_success', 'one_success', 'one_failed', 'one_done', 'none_failed', 'none_failed_min_one_success', 'none_skipped', 'all_skipped', 'always'] as const;
    const randomGraph = fc.array(fc.record({ mask: fc.nat(), rule: fc.constantFrom(...rules), teardown: fc.boolean() }), { minLength: 2, maxLength: 7 }).map((specs): TaskDefinition[] =>
      specs.map((s, i) => ({
        id: `t${i}`,
        upstream: specs.slice(0, i).flatMap((_, j) => ((s.mask >> j) & 1 ? [`t${j}`] : [])),
        triggerRule: s.rule,
        teardown: s.teardown && (s.mask & 1) === 0,
        failRunOnFailure: false,
      })),
    );
    fc.assert(
      fc.property(randomGraph, (tasks) => {
        const coarse = new Set(lintTasks(tasks, { maxStates: 0 }).flatMap((w) => w.failures.map((f) => `${w.leaf}<${f.taskId}`)));
        for (const answer of oracleMasking(tasks)) expect(coarse).toContain(`${answer.leaf}<${answer.task}`);
      }),
      { numRuns: 300 },
    );
  });
});
