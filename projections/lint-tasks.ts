import type { TaskDefinition, TriggerRule } from '../events/task-definition.js';
import { downstreamOf, runLeaves, topologicalOrder } from './task-graph.js';
import { triggerOutcome, type UpstreamState } from './trigger-outcome.js';

/**
 * A leaf that can end in `success` or `skipped` after an upstream task
 * failed, so the run would be recorded as a success (S12's masking trap).
 */
export type MaskingWarning = {
  leaf: string;
  triggerRule: TriggerRule;
  /** The tasks whose failure this leaf can hide. */
  hides: string[];
  /** The tasks whose trigger rule runs (or skips) instead of passing the failure on; often the leaf itself. */
  absorbedBy: Array<{ taskId: string; triggerRule: TriggerRule }>;
  /** Where an `all_success` leaf would catch the failure instead. */
  addLeafAfter: string[];
  /** One line with the fix. */
  message: string;
};

const OK: ReadonlySet<UpstreamState> = new Set(['success', 'skipped']);

/**
 * S12's lint: the leaves whose trigger rules let a run succeed after a task
 * upstream of them failed. For each task it asks "if only this task fails and
 * every other task does well, can every leaf still end in success or
 * skipped?", following Airflow's trigger rules down the graph. It may warn
 * about graphs where the same task reaches a leaf along two paths (it treats
 * them as independent), but it never misses a masking leaf.
 *
 * Adding an `all_success` leaf after the masked tasks, or marking the masking
 * leaf a teardown (then it no longer decides the run), silences it.
 *
 * @example
 * lintTasks(tasks).map((w) => w.message)
 * // ["leaf 'cleanup' (all_done) can end in success after 'extract' or 'load' failed, …"]
 */
export function lintTasks(tasks: readonly TaskDefinition[]): MaskingWarning[] {
  const order = topologicalOrder(tasks);
  const downstream = downstreamOf(tasks);
  const leaves = runLeaves(tasks);
  const byLeaf = new Map<string, { hides: Set<string>; absorbers: Set<string>; after: Set<string> }>();

  for (const failing of order) {
    const below = descendants(failing.id, downstream);
    const possible = new Map<string, Set<UpstreamState>>();
    const absorbers = new Map<string, string[]>();
    for (const task of order) {
      if (task.id === failing.id) {
        possible.set(task.id, new Set(['failed']));
        continue;
      }
      if (!below.has(task.id)) {
        possible.set(task.id, new Set(OK));
        continue;
      }
      const states = new Set<UpstreamState>();
      const failingUpstream = task.upstream.filter((up) => [...(possible.get(up) ?? [])].some((s) => !OK.has(s)));
      let absorbs = false;
      for (const upstream of combinations(task.upstream.map((up) => possible.get(up) ?? OK))) {
        const outcome = triggerOutcome(task.triggerRule, upstream);
        if (outcome === 'runs') states.add('success').add('failed');
        else states.add(outcome);
        if (outcome !== 'upstream_failed' && (upstream.has('failed') || upstream.has('upstream_failed'))) absorbs = true;
      }
      possible.set(task.id, states);
      if (absorbs) absorbers.set(task.id, failingUpstream);
    }
    const masked = leaves.every((leaf) => [...(possible.get(leaf) ?? [])].some((s) => OK.has(s)));
    if (!masked) continue;
    for (const leaf of leaves) {
      if (!below.has(leaf)) continue;
      const entry = byLeaf.get(leaf) ?? { hides: new Set<string>(), absorbers: new Set<string>(), after: new Set<string>() };
      entry.hides.add(failing.id);
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
    const hides = order.filter((t) => entry.hides.has(t.id)).map((t) => t.id);
    const addLeafAfter = order.filter((t) => entry.after.has(t.id)).map((t) => t.id);
    return [{ leaf, triggerRule: task.triggerRule, hides, absorbedBy, addLeafAfter, message: describe(task, hides, absorbedBy, addLeafAfter) }];
  });
}

function describe(leaf: TaskDefinition, hides: string[], absorbedBy: MaskingWarning['absorbedBy'], after: string[]): string {
  const others = absorbedBy.filter((a) => a.taskId !== leaf.id);
  const because = others.length > 0 ? `, because ${others.map((a) => `'${a.taskId}' (${a.triggerRule})`).join(' and ')} ${others.length > 1 ? 'do' : 'does'} not pass the failure on` : '';
  const fixes = [`add a leaf with trigger rule all_success downstream of ${quoted(after, 'and')}`];
  if (absorbedBy.some((a) => a.taskId === leaf.id)) fixes.push(`mark '${leaf.id}' a teardown so it no longer decides the run`);
  return `leaf '${leaf.id}' (${leaf.triggerRule}) can end in success after ${quoted(hides, 'or')} failed${because}, so the run would be recorded as a success; ${fixes.join(', or ')}`;
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
 * upstream. Only presence matters to a trigger rule, so there are at most 15.
 */
function combinations(upstream: ReadonlyArray<ReadonlySet<UpstreamState>>): Array<Set<UpstreamState>> {
  let sets = new Map<string, Set<UpstreamState>>([['', new Set()]]);
  for (const options of upstream) {
    const next = new Map<string, Set<UpstreamState>>();
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
