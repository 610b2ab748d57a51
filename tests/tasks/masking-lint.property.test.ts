import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { TriggerRule, type TaskDefinition } from '../../events/task-definition.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { oracleMasking, witnessHolds } from '../support/masking-oracle.js';

/**
 * A random graph of 2–8 tasks: each task picks upstream tasks among the
 * earlier ones, any rule, sometimes a teardown. One task in four copies the
 * upstream tasks and rule of the task before it, so parallel twins (which the
 * search folds together) are common.
 */
const randomGraph = fc
  .integer({ min: 2, max: 8 })
  .chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.record({
          upstreamMask: fc.nat({ max: (1 << i) - 1 }),
          triggerRule: fc.constantFrom(...TriggerRule.options),
          teardown: fc.boolean().chain((b) => (b ? fc.constantFrom(true, false, false) : fc.constant(false))),
          failRunOnFailure: fc.boolean(),
          twin: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
        }),
      ),
    ),
  )
  .map((specs): TaskDefinition[] => {
    const tasks: TaskDefinition[] = [];
    specs.forEach((s, i) => {
      const before = tasks[i - 1];
      const twin = s.twin && before !== undefined;
      tasks.push({
        id: `t${i}`,
        upstream: twin ? [...before.upstream] : specs.slice(0, i).flatMap((_, j) => ((s.upstreamMask >> j) & 1 ? [`t${j}`] : [])),
        triggerRule: twin ? before.triggerRule : s.triggerRule,
        teardown: twin ? before.teardown : s.teardown,
        failRunOnFailure: twin ? before.failRunOnFailure : s.teardown && s.failRunOnFailure,
      });
    });
    return tasks;
  });

const key = (a: { leaf: string; task: string; orders: string }) => `${a.leaf} hides ${a.task} in ${a.orders} order(s)`;

describe('the masking lint equals an exhaustive search of the scheduler written separately', () => {
  test('on 600 random graphs of 2–8 tasks over every trigger rule, with teardowns', () => {
    const seen = { warnings: 0, some: 0, rules: new Set<string>(), teardowns: 0 };
    fc.assert(
      fc.property(randomGraph, (tasks) => {
        const warnings = lintTasks(tasks);
        const got = warnings.flatMap((w) => w.failures.map((f) => key({ leaf: w.leaf, task: f.taskId, orders: f.orders }))).sort();
        const want = oracleMasking(tasks).map(key).sort();
        expect(got).toEqual(want);
        for (const w of warnings) {
          expect(w.hides).toEqual(w.failures.map((f) => f.taskId));
          for (const f of w.failures) if (f.orders === 'some') expect(witnessHolds(tasks, f.taskId, f.when ?? ''), `${f.taskId}: ${f.when}`).toBe(true);
        }
        seen.warnings += warnings.length;
        seen.some += warnings.flatMap((w) => w.failures).filter((f) => f.orders === 'some').length;
        for (const t of tasks) seen.rules.add(t.triggerRule);
        seen.teardowns += tasks.filter((t) => t.teardown).length;
      }),
      { numRuns: 600 },
    );
    // The generator really reaches the cases the lint is about.
    expect(seen.rules.size).toBe(TriggerRule.options.length);
    expect(seen.warnings).toBeGreaterThan(50);
    expect(seen.some).toBeGreaterThan(0);
    expect(seen.teardowns).toBeGreaterThan(50);
    console.log(seen);
  });
});
