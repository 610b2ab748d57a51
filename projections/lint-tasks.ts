import type { TaskDefinition, TriggerRule } from '../events/types/task-definition.js';
import type { TaskState } from '../events/types/task-state-changed.js';
import { evaluateTriggerRule } from './evaluate-trigger-rule.js';
import { searchMasking } from './search-masking.js';
import { downstreamOf, runLeaves, topologicalOrder } from './task-graph.js';
import { countsOf, type UpstreamState } from './trigger-outcome.js';

/** One task whose failure a leaf can hide, and in which scheduling orders. */
export type HiddenFailure = {
  taskId: string;
  /**
   * `every`: whenever only this task fails, the run succeeds. `some`: only in
   * some scheduling orders (`when` names one). `unchecked`: the graph has too
   * many scheduler states to check each order, so the warning comes from a
   * coarser reasoning that never misses a masking leaf but may be a false alarm.
   */
  orders: 'every' | 'some' | 'unchecked';
  /** For `some`: what happens in an order that hides the failure, like "when 'c' is still running after 'd' is skipped". */
  when: string | null;
};

/**
 * A leaf that can end in `success` or `skipped` after an upstream task
 * failed, so the run would be recorded as a success (the masking trap: a failure hidden by a leaf that still succeeds).
 */
export type MaskingWarning = {
  leaf: string;
  triggerRule: TriggerRule;
  /** The tasks whose failure this leaf can hide. */
  hides: string[];
  /** The same tasks, each with the scheduling orders in which it happens. */
  failures: HiddenFailure[];
  /** The tasks whose trigger rule runs (or skips) instead of passing the failure on; often the leaf itself. */
  absorbedBy: Array<{ taskId: string; triggerRule: TriggerRule }>;
  /** Where an `all_success` leaf would catch the failure instead. */
  addLeafAfter: string[];
  /** One line with the fix. */
  message: string;
};

export type LintOptions = {
  /** How many scheduler states the lint may explore in all; past it the remaining tasks get the coarser check. */
  maxStates?: number;
};

/** The default bound on explored scheduler states: a definition of a dozen tasks stays well under it. */
export const LINT_MAX_STATES = 100_000;

const OK: ReadonlySet<UpstreamState> = new Set(['success', 'skipped']);
const FAILURE: ReadonlySet<UpstreamState> = new Set(['failed', 'upstream_failed']);

type Entry = { failures: HiddenFailure[]; absorbers: Set<string>; after: Set<string>; leafStates: Set<UpstreamState> };

/**
 * The task lint: for each task T and each leaf L downstream of it, is there a
 * scheduling order in which, with only T failing when it runs (every other
 * task succeeding when it runs), T really ends `failed` and the run ends
 * `success`? It warns exactly for those pairs, saying whether it happens in
 * every order or only in some. The answer comes from `searchMasking`, which
 * walks Airflow's scheduler passes; a quick coarse check first drops the
 * tasks that cannot be hidden in any order. Past `maxStates` explored states
 * the remaining tasks keep the coarse answer, which never misses a masking
 * leaf but may warn about one that cannot happen; such warnings say so.
 *
 * Adding an `all_success` leaf after the masked tasks, or marking the masking
 * leaf a teardown (then it no longer decides the run), silences it.
 *
 * @example
 * lintTasks(tasks).map((w) => w.message)
 * // ["leaf 'cleanup' (all_done) can end in success after 'extract' or 'load' failed, …"]
 */
export function lintTasks(tasks: readonly TaskDefinition[], options: LintOptions = {}): MaskingWarning[] {
  const maxStates = options.maxStates ?? LINT_MAX_STATES;
  let budget = maxStates;
  const order = topologicalOrder(tasks);
  const downstream = downstreamOf(tasks);
  const leaves = runLeaves(tasks);
  const byLeaf = new Map<string, Entry>();

  for (const failing of order) {
    const coarse = coarseOutcomes(order, failing.id);
    if (!coarse.possible.get(failing.id)?.has('failed')) continue;
    if (!leaves.every((leaf) => [...(coarse.possible.get(leaf) ?? [])].some((s) => OK.has(s)))) continue;

    const search = budget > 0 ? searchMasking(tasks, failing.id, budget) : { checked: false as const, states: 0 };
    budget = search.checked ? budget - search.states : 0;
    if (search.checked && search.masks === 'never') continue;
    const below = descendants(failing.id, downstream);
    const failure: HiddenFailure = search.checked
      ? { taskId: failing.id, orders: search.masks === 'always' ? 'every' : 'some', when: search.witness.when }
      : { taskId: failing.id, orders: 'unchecked', when: null };
    const absorbers = search.checked ? absorbersIn(order, below, search.witness.final) : coarse.absorbers;

    for (const leaf of leaves) {
      if (!below.has(leaf)) continue;
      const entry = byLeaf.get(leaf) ?? { failures: [], absorbers: new Set<string>(), after: new Set<string>(), leafStates: new Set<UpstreamState>() };
      entry.failures.push(failure);
      if (search.checked) entry.leafStates.add(search.witness.final.get(leaf) === 'skipped' ? 'skipped' : 'success');
      else for (const s of coarse.possible.get(leaf) ?? []) if (OK.has(s)) entry.leafStates.add(s);
      for (const [absorber, after] of absorbers) {
        if (absorber !== leaf && !descendants(absorber, downstream).has(leaf)) continue;
        entry.absorbers.add(absorber);
        for (const up of after) entry.after.add(up);
      }
      byLeaf.set(leaf, entry);
    }
  }

  const byId = new Map(tasks.map((t) => [t.id, t]));
  return leaves.flatMap((leaf) => {
    const entry = byLeaf.get(leaf);
    const task = byId.get(leaf);
    if (!entry || !task) return [];
    const absorbedBy = order.filter((t) => entry.absorbers.has(t.id)).map((t) => ({ taskId: t.id, triggerRule: t.triggerRule }));
    const hides = entry.failures.map((f) => f.taskId);
    const addLeafAfter = order.filter((t) => entry.after.has(t.id)).map((t) => t.id);
    const message = describe(task, entry, absorbedBy, addLeafAfter, maxStates);
    return [{ leaf, triggerRule: task.triggerRule, hides, failures: entry.failures, absorbedBy, addLeafAfter, message }];
  });
}

/**
 * The tasks that end `success` or `skipped` in a masking order although an
 * upstream task of theirs failed, each with those upstream tasks.
 */
function absorbersIn(order: readonly TaskDefinition[], below: ReadonlySet<string>, final: ReadonlyMap<string, TaskState>): Map<string, string[]> {
  const absorbers = new Map<string, string[]>();
  const failed = (id: string) => {
    const state = final.get(id);
    return state === 'failed' || state === 'upstream_failed';
  };
  for (const task of order) {
    const state = final.get(task.id);
    if (!below.has(task.id) || (state !== 'success' && state !== 'skipped')) continue;
    const failingUpstream = task.upstream.filter(failed);
    if (failingUpstream.length > 0) absorbers.set(task.id, failingUpstream);
  }
  return absorbers;
}

/**
 * The coarse check: the states each task can end in when only `failing`
 * fails, following the trigger rules down the graph with each upstream task
 * in any of its possible states or not finished yet (a rule may decide before
 * every upstream task finished). It treats upstream tasks as independent, so
 * it finds every state a task can really end in, and maybe more.
 */
function coarseOutcomes(order: readonly TaskDefinition[], failing: string): { possible: Map<string, Set<UpstreamState>>; absorbers: Map<string, string[]> } {
  const possible = new Map<string, Set<UpstreamState>>();
  const absorbers = new Map<string, string[]>();
  for (const task of order) {
    const states = new Set<UpstreamState>();
    let absorbs = false;
    for (const upstream of combinations(task.upstream.map((up) => [...(possible.get(up) ?? OK), 'unfinished' as const]))) {
      const finished = [...upstream].filter((s): s is UpstreamState => s !== 'unfinished');
      const decision = evaluateTriggerRule({ triggerRule: task.triggerRule, teardown: task.teardown, indirectSetups: null }, countsOf(finished, upstream.has('unfinished')));
      if (decision === 'waits') continue;
      states.add(decision === 'runs' ? (task.id === failing ? 'failed' : 'success') : decision);
      if (decision !== 'upstream_failed' && finished.some((s) => FAILURE.has(s))) absorbs = true;
    }
    possible.set(task.id, states);
    if (absorbs) absorbers.set(task.id, task.upstream.filter((up) => [...(possible.get(up) ?? [])].some((s) => FAILURE.has(s))));
  }
  return { possible, absorbers };
}

function describe(leaf: TaskDefinition, entry: Entry, absorbedBy: MaskingWarning['absorbedBy'], after: string[], maxStates: number): string {
  const ids = (orders: HiddenFailure['orders']) => entry.failures.filter((f) => f.orders === orders).map((f) => f.taskId);
  const clauses: string[] = [];
  if (ids('every').length > 0) clauses.push(`after ${quoted(ids('every'), 'or')} failed`);
  for (const f of entry.failures.filter((x) => x.orders === 'some')) clauses.push(`in some orders after '${f.taskId}' failed (${f.when ?? 'depending on which task finishes first'})`);
  if (ids('unchecked').length > 0) {
    clauses.push(`possibly after ${quoted(ids('unchecked'), 'or')} failed (not checked order by order: more than ${thousands(maxStates)} scheduler states, so this may be a false alarm)`);
  }
  const ends = entry.leafStates.has('success') ? (entry.leafStates.has('skipped') ? 'end in success or be skipped' : 'end in success') : 'be skipped';
  const others = absorbedBy.filter((a) => a.taskId !== leaf.id);
  const because = others.length > 0 ? `, because ${others.map((a) => `'${a.taskId}' (${a.triggerRule})`).join(' and ')} ${others.length > 1 ? 'do' : 'does'} not pass the failure on` : '';
  const fixes = [`add a leaf with trigger rule all_success downstream of ${quoted(after, 'and')}`];
  if (absorbedBy.some((a) => a.taskId === leaf.id)) fixes.push(`mark '${leaf.id}' a teardown so it no longer decides the run`);
  return `leaf '${leaf.id}' (${leaf.triggerRule}) can ${ends} ${clauses.join(', or ')}${because}, so the run would be recorded as a success; ${fixes.join(', or ')}`;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function quoted(ids: string[], joiner: 'and' | 'or'): string {
  const q = ids.map((id) => `'${id}'`);
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} ${joiner} ${q.at(-1)}`;
}

function descendants(id: string, downstream: ReadonlyMap<string, string[]>): Set<string> {
  const found = new Set<string>();
  const stack = [...(downstream.get(id) ?? [])];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (found.has(next)) continue;
    found.add(next);
    stack.push(...(downstream.get(next) ?? []));
  }
  return found;
}

/**
 * Every set of states the upstream tasks can show together, one state per
 * upstream. Only presence matters to a trigger rule, so there are at most 31.
 */
function combinations<S extends string>(upstream: ReadonlyArray<readonly S[]>): Array<Set<S>> {
  let sets = new Map<string, Set<S>>([['', new Set()]]);
  for (const options of upstream) {
    const next = new Map<string, Set<S>>();
    for (const set of sets.values()) {
      for (const state of options) {
        const grown = new Set(set).add(state);
        next.set([...grown].sort().join(','), grown);
      }
    }
    sets = next;
  }
  return [...sets.values()];
}
