import { MAX_TASKS } from '../events/limits.js';
import { TASK_ID_PATTERN } from '../events/name-patterns.js';
import type { TaskDefinition, TriggerRule } from '../events/types/task-definition.js';
import { isTriggerRule, TRIGGER_RULES } from '../events/trigger-rules.js';

/** One problem with a declared task list, kept as data with its path until the edge, as zod keeps its issues. */
export type TaskGraphIssue = { path: string; message: string };

export type TaskGraphResult = { ok: true; tasks: TaskDefinition[] } | { ok: false; issues: TaskGraphIssue[] };

/** A task as a caller declares it; everything but `id` has a default. */
export type TaskSpec = {
  id: string;
  upstream?: readonly string[];
  triggerRule?: TriggerRule;
  teardown?: boolean;
  failRunOnFailure?: boolean;
};

const FIELDS = ['id', 'upstream', 'triggerRule', 'teardown', 'failRunOnFailure'] as const;

/**
 * Validates a declared task list and fills in the defaults: no
 * upstream, trigger rule `all_success` (`all_done_setup_success` for a
 * teardown, as Airflow's `as_teardown()` sets it), not a teardown. Refuses
 * duplicate ids, unknown upstream ids, cycles (named), unknown trigger rules
 * and fields, and `failRunOnFailure` on a task that is not a teardown.
 *
 * @example
 * const r = checkTaskGraph([{ id: 'extract' }, { id: 'load', upstream: ['extract'] }]);
 * if (!r.ok) console.error(r.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
 */
export function checkTaskGraph(input: unknown): TaskGraphResult {
  if (!Array.isArray(input)) return fail('tasks', 'must be an array of tasks like [{ "id": "extract" }, { "id": "load", "upstream": ["extract"] }]');
  if (input.length === 0) return fail('tasks', 'declares no tasks; leave tasks out for a pipeline without task-level state');
  // The graph walks below recurse along upstream chains; a bound on the tasks bounds their depth.
  if (input.length > MAX_TASKS) return fail('tasks', `declares ${input.length} tasks, over the limit of ${MAX_TASKS}; group steps into fewer tasks`);
  const issues: TaskGraphIssue[] = [];
  const tasks: TaskDefinition[] = [];
  input.forEach((raw, i) => {
    const task = checkTask(raw, `tasks[${i}]`, issues);
    if (task) tasks.push(task);
  });
  if (issues.length > 0) return { ok: false, issues };

  const firstIndex = new Map<string, number>();
  tasks.forEach((task, i) => {
    const seen = firstIndex.get(task.id);
    if (seen === undefined) firstIndex.set(task.id, i);
    else issues.push({ path: `tasks[${i}]`, message: `task id '${task.id}' is declared twice (also tasks[${seen}]); task ids must be unique` });
  });
  tasks.forEach((task, i) => {
    for (const up of task.upstream) {
      if (firstIndex.has(up)) continue;
      const near = closest(up, [...firstIndex.keys()]);
      issues.push({ path: `tasks[${i}].upstream`, message: `'${task.id}' lists upstream '${up}', which is not a task of this pipeline${near ? `; did you mean '${near}'?` : ''}` });
    }
  });
  if (issues.length > 0) return { ok: false, issues };

  for (const cycle of findCycles(tasks)) {
    issues.push({ path: 'tasks', message: `the tasks form a cycle: ${cycle.join(' -> ')}; a task cannot run after itself` });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, tasks };
}

function checkTask(raw: unknown, path: string, issues: TaskGraphIssue[]): TaskDefinition | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push({ path, message: 'must be an object like { "id": "load", "upstream": ["extract"] }' });
    return null;
  }
  const before = issues.length;
  const task = raw as Record<string, unknown>;
  for (const key of Object.keys(task)) {
    if ((FIELDS as readonly string[]).includes(key)) continue;
    const near = FIELDS.find((f) => squash(f) === squash(key)) ?? closest(key, FIELDS);
    issues.push({ path: `${path}.${key}`, message: `unknown field '${key}'${near ? `; did you mean '${near}'?` : `; a task has ${FIELDS.join(', ')}`}` });
  }
  const id = task['id'];
  if (typeof id !== 'string' || !TASK_ID_PATTERN.test(id)) {
    issues.push({ path: `${path}.id`, message: `${id === undefined ? 'is missing' : `${JSON.stringify(id)} is not a task id`}; use letters, digits, '_', '.' or '-' (at most 250 characters)` });
  }
  const name = typeof id === 'string' ? `'${id}'` : path;
  const upstream = task['upstream'] ?? [];
  if (!Array.isArray(upstream) || upstream.some((u) => typeof u !== 'string')) {
    issues.push({ path: `${path}.upstream`, message: `${name}: upstream must be an array of task ids like ["extract"]` });
  }
  const rule = task['triggerRule'];
  if (rule !== undefined && !isTriggerRule(rule)) {
    const near = typeof rule === 'string' ? closest(rule.toLowerCase(), TRIGGER_RULES) : undefined;
    issues.push({
      path: `${path}.triggerRule`,
      message: `${name}: ${JSON.stringify(rule)} is not a trigger rule${near ? `; did you mean ${near}?` : `; use one of ${TRIGGER_RULES.join(', ')}`}`,
    });
  }
  for (const flag of ['teardown', 'failRunOnFailure'] as const) {
    if (task[flag] !== undefined && typeof task[flag] !== 'boolean') issues.push({ path: `${path}.${flag}`, message: `${name}: ${flag} must be true or false` });
  }
  const teardown = task['teardown'] === true;
  if (task['failRunOnFailure'] === true && !teardown) {
    issues.push({ path: `${path}.failRunOnFailure`, message: `${name}: failRunOnFailure only applies to a teardown task (Airflow's on_failure_fail_dagrun); add "teardown": true or drop it` });
  }
  if (issues.length > before) return null;
  return {
    id: id as string,
    // A repeated upstream id says nothing more; keep each once.
    upstream: [...new Set(upstream as string[])],
    triggerRule: (rule as TriggerRule | undefined) ?? (teardown ? 'all_done_setup_success' : 'all_success'),
    teardown,
    failRunOnFailure: task['failRunOnFailure'] === true,
  };
}

/**
 * The direct downstream tasks of every task, in declaration order.
 *
 * @example
 * downstreamOf(tasks).get('extract') // ['load']
 */
export function downstreamOf(tasks: readonly TaskDefinition[]): Map<string, string[]> {
  const downstream = new Map<string, string[]>(tasks.map((t) => [t.id, []]));
  for (const task of tasks) for (const up of task.upstream) downstream.get(up)?.push(task.id);
  return downstream;
}

/**
 * The tasks whose state decides the run (as Airflow's `DagRun.update_state`):
 * tasks with no downstream other than ignorable teardowns, not being an
 * ignorable teardown themselves. A teardown is ignorable unless it sets
 * `failRunOnFailure`. When every leaf is an ignorable teardown, the plain
 * leaves count, as in Airflow.
 *
 * @example
 * runLeaves([{ id: 'load', … }, { id: 'cleanup', upstream: ['load'], teardown: true, … }]) // ['load']
 */
export function runLeaves(tasks: readonly TaskDefinition[]): string[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const downstream = downstreamOf(tasks);
  const ignorable = (id: string) => {
    const task = byId.get(id);
    return task !== undefined && task.teardown && !task.failRunOnFailure;
  };
  const effective = tasks.filter((t) => !ignorable(t.id) && (downstream.get(t.id) ?? []).every(ignorable));
  if (effective.length > 0) return effective.map((t) => t.id);
  return tasks.filter((t) => (downstream.get(t.id) ?? []).length === 0).map((t) => t.id);
}

/**
 * Every task in an order where each comes after all its upstream tasks
 * (declaration order among equals). Assumes the graph passed `checkTaskGraph`.
 */
export function topologicalOrder(tasks: readonly TaskDefinition[]): TaskDefinition[] {
  const done = new Set<string>();
  const order: TaskDefinition[] = [];
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const visit = (task: TaskDefinition) => {
    if (done.has(task.id)) return;
    done.add(task.id);
    for (const up of task.upstream) {
      const upstream = byId.get(up);
      if (upstream) visit(upstream);
    }
    order.push(task);
  };
  tasks.forEach(visit);
  return order;
}

/** Each cycle once, in run order and closed (`a -> b -> a`), found by a depth-first walk downstream. */
function findCycles(tasks: readonly TaskDefinition[]): string[][] {
  const downstream = downstreamOf(tasks);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const walk = (id: string) => {
    state.set(id, 'open');
    path.push(id);
    for (const next of downstream.get(id) ?? []) {
      const s = state.get(next);
      if (s === 'open') {
        const cycle = [...path.slice(path.indexOf(next)), next];
        const key = [...new Set(cycle)].sort().join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (s === undefined) {
        walk(next);
      }
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const task of tasks) if (!state.has(task.id)) walk(task.id);
  return cycles;
}

function fail(path: string, message: string): TaskGraphResult {
  return { ok: false, issues: [{ path, message }] };
}

function squash(text: string): string {
  return text.toLowerCase().replace(/[_\-\s]/g, '');
}

/** The candidate within edit distance 2 (or a third of the word), for "did you mean …?". */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance <= Math.max(2, Math.floor(candidate.length / 3)) && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
