import type { TaskDefinition } from '../events/task-definition.js';
import type { TaskState } from '../events/task-state-changed.js';
import { deriveRunOutcome } from './derive-run-outcome.js';
import { evaluateTriggerRule, type TriggerDecision } from './evaluate-trigger-rule.js';
import { downstreamOf, topologicalOrder } from './task-graph.js';
import { triggerOutcome } from './trigger-outcome.js';

/** A task's place in the search: not decided yet, running, or finished in one of Airflow's finished states. */
type Status = 'waiting' | 'running' | 'success' | 'failed' | 'skipped' | 'upstream_failed';

/** One order in which the run masks the failure, kept for the warning: the final task states and, when other orders do not mask, what makes this one different. */
export type MaskingWitness = {
  final: ReadonlyMap<string, TaskState>;
  /** "when 'c' is still running after 'd' is skipped"; null when every order masks. */
  when: string | null;
};

export type MaskingSearch =
  | { checked: true; states: number; masks: 'never' }
  | { checked: true; states: number; masks: 'always' | 'sometimes'; witness: MaskingWitness }
  /** The search stopped after `maxStates` scheduler states without an answer. */
  | { checked: false; states: number };

/**
 * The exact answer to "with only `failing` failing when it runs (every other
 * task succeeding when it runs), can `failing` end `failed` while the run
 * ends `success`, and in every scheduling order or only in some?".
 *
 * It explores the scheduler's states the way Airflow's scheduler loop reaches
 * them: a pass evaluates every waiting task's trigger rule against the tasks
 * finished when the pass starts (`evaluateTriggerRule`), marks tasks
 * `skipped` or `upstream_failed` and queues the ones whose rule passed; between
 * two passes any of the running tasks may finish, or none (the scheduler loops
 * faster than tasks run, so a skip can travel several tasks down while a task
 * still runs). A run ends when nothing runs and a pass changes nothing; its
 * state then follows from its leaves (`deriveRunOutcome`). Every step moves a
 * task forward, so the states form a finite acyclic graph; each is visited once.
 *
 * @example
 * // a » b (one_failed) » c (all_done, after a and b) » d (after b and c): only c fails
 * searchMasking(tasks, 'c', 100_000)
 * // { checked: true, states: 6, masks: 'always', witness: { final: Map { a: success, b: skipped, c: failed, d: skipped }, when: null } }
 */
export function searchMasking(tasks: readonly TaskDefinition[], failing: string, maxStates: number): MaskingSearch {
  const model = modelOf(tasks, failing);
  // Bit 1: some order from a state ends with `failing` failed and the run a success; bit 2: some order ends otherwise.
  const memo = new Map<string, number>();
  const path: string[] = [];
  // The first path found to each kind of end, for the witness.
  const firstPath: { masking: string[] | null; other: string[] | null } = { masking: null, other: null };
  let exhausted = false;

  const explore = (state: string): number => {
    const key = symmetricKey(model, state);
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (memo.size >= maxStates) {
      exhausted = true;
      return 0;
    }
    memo.set(key, 0);
    path.push(state);
    const next = successors(model, state);
    let bits = 0;
    if (next.length === 0) {
      bits = masks(model, state) ? 1 : 2;
      if (bits === 1) firstPath.masking ??= [...path];
      else firstPath.other ??= [...path];
    }
    for (const successor of next) {
      bits |= explore(successor);
      // Once both kinds of end are known, the answer ("in some orders") cannot change.
      if (exhausted || (firstPath.masking && firstPath.other)) break;
    }
    path.pop();
    memo.set(key, bits);
    return bits;
  };

  explore(WAITING.repeat(model.tasks.length));
  if (exhausted) return { checked: false, states: memo.size };
  const found = firstPath.masking;
  const notFound = firstPath.other;
  if (!found) return { checked: true, states: memo.size, masks: 'never' };
  const witness: MaskingWitness = { final: finalStates(model, found.at(-1) ?? ''), when: null };
  if (!notFound) return { checked: true, states: memo.size, masks: 'always', witness };
  witness.when = describeDifference(model, found.map(decode), notFound.map(decode));
  return { checked: true, states: memo.size, masks: 'sometimes', witness };
}

/** A state is a string with one character per task (in topological order), so it is its own memo key. */
const WAITING = 'w';
const RUNNING = 'r';
const CODE: Record<Status, string> = { waiting: 'w', running: 'r', success: 's', failed: 'f', skipped: 'k', upstream_failed: 'u' };
const STATUS_OF: Record<string, Status> = { w: 'waiting', r: 'running', s: 'success', f: 'failed', k: 'skipped', u: 'upstream_failed' };

function decode(state: string): Status[] {
  return [...state].map((c) => STATUS_OF[c] ?? 'waiting');
}

type Model = {
  /** The tasks the search follows: the failing task, the tasks below it, and every task upstream of those. */
  tasks: TaskDefinition[];
  upstream: number[][];
  downstream: number[][];
  /** Groups of interchangeable tasks (same upstream and downstream tasks, rule and flags, not the failing one), by index. */
  twins: number[][];
  failing: number;
  /** The tasks downstream of the failing one, by index. */
  below: Set<number>;
  /** The final state of every other task: no failure reaches them and none feeds a task the search follows, so neither their states nor their timing depend on the order. */
  settled: Map<string, TaskState>;
  definition: readonly TaskDefinition[];
};

/** Tasks in topological order, so the first task whose final state differs between two orders is found by a scan. */
function modelOf(definition: readonly TaskDefinition[], failing: string): Model {
  const all = topologicalOrder(definition);
  const below = new Set<string>();
  for (const task of all) if (task.upstream.some((up) => up === failing || below.has(up))) below.add(task.id);
  const followed = new Set<string>([failing, ...below]);
  for (const task of [...all].reverse()) if (followed.has(task.id)) for (const up of task.upstream) followed.add(up);
  const settled = new Map<string, TaskState>();
  for (const task of all) {
    if (followed.has(task.id)) continue;
    // Only success and skipped reach these tasks, and with those no rule decides early otherwise than it would late.
    const ups = task.upstream.map((up) => (settled.get(up) === 'skipped' ? 'skipped' : 'success') as 'success' | 'skipped');
    settled.set(task.id, triggerOutcome(task.triggerRule, ups) === 'skipped' ? 'skipped' : 'success');
  }
  const tasks = all.filter((t) => followed.has(t.id));
  const index = new Map(tasks.map((t, i) => [t.id, i]));
  const upstream = tasks.map((t) => t.upstream.map((up) => index.get(up) ?? -1).filter((i) => i >= 0));
  const downstream = tasks.map((): number[] => []);
  upstream.forEach((ups, i) => ups.forEach((up) => downstream[up]?.push(i)));
  const byShape = new Map<string, number[]>();
  const downOf = downstreamOf(definition);
  tasks.forEach((t, i) => {
    if (t.id === failing) return;
    const shape = JSON.stringify([[...t.upstream].sort(), [...(downOf.get(t.id) ?? [])].sort(), t.triggerRule, t.teardown, t.failRunOnFailure]);
    byShape.set(shape, [...(byShape.get(shape) ?? []), i]);
  });
  return {
    tasks,
    upstream,
    downstream,
    twins: [...byShape.values()].filter((group) => group.length > 1),
    failing: index.get(failing) ?? -1,
    below: new Set(tasks.flatMap((t, i) => (below.has(t.id) ? [i] : []))),
    settled,
    definition,
  };
}

/**
 * The memo key of a state: interchangeable tasks can swap states without
 * changing what can happen next, so their statuses are sorted. A fan-out of
 * k identical tasks then has about k² states instead of 2^k. The search still
 * walks real states, so a witness names tasks as they really went.
 */
function symmetricKey(model: Model, state: string): string {
  if (model.twins.length === 0) return state;
  const chars = [...state];
  for (const group of model.twins) {
    const sorted = group.map((i) => chars[i] ?? '').sort();
    group.forEach((i, k) => (chars[i] = sorted[k] ?? ''));
  }
  return chars.join('');
}

/** One scheduler pass: every waiting task's rule against the statuses at the start of the pass. Null when it changes nothing. */
function schedulerPass(model: Model, state: string): string | null {
  let after: string[] | null = null;
  for (let i = 0; i < state.length; i++) {
    if (state[i] !== WAITING) continue;
    const decision = decide(model, state, i);
    if (decision === 'waits') continue;
    after ??= [...state];
    after[i] = decision === 'runs' ? RUNNING : CODE[decision];
  }
  return after === null ? null : after.join('');
}

function decide(model: Model, state: string, i: number): TriggerDecision {
  const task = model.tasks[i];
  if (!task) throw new Error(`searchMasking: no task at ${i}`);
  const counts = { upstream: 0, success: 0, skipped: 0, failed: 0, upstreamFailed: 0, done: 0, upstreamSetup: 0, successSetup: 0, skippedSetup: 0 };
  for (const up of model.upstream[i] ?? []) {
    counts.upstream++;
    const status = state[up];
    if (status === 's') counts.success++;
    else if (status === 'k') counts.skipped++;
    else if (status === 'f') counts.failed++;
    else if (status === 'u') counts.upstreamFailed++;
    else continue;
    counts.done++;
  }
  // runledger's definitions declare no setup tasks, so no task has indirect setups.
  return evaluateTriggerRule({ triggerRule: task.triggerRule, teardown: task.teardown, indirectSetups: null }, counts);
}

/** The next states: the pass, when it changes something, and each running task finishing on its own. */
function successors(model: Model, state: string): string[] {
  const next: string[] = [];
  const passed = schedulerPass(model, state);
  if (passed !== null) next.push(finishUnwatched(model, passed));
  for (let i = 0; i < state.length; i++) {
    if (state[i] !== RUNNING || !watched(model, state, i)) continue;
    next.push(state.slice(0, i) + endOf(model, i) + state.slice(i + 1));
  }
  return next;
}

function endOf(model: Model, i: number): string {
  return i === model.failing ? CODE.failed : CODE.success;
}

/** True while some task downstream of `i` still waits, so when `i` finishes can change what a pass decides. */
function watched(model: Model, state: string, i: number): boolean {
  return (model.downstream[i] ?? []).some((d) => state[d] === WAITING);
}

/**
 * Finishes every running task that no waiting task depends on: when it
 * finishes changes nothing any more, only how it ends, which is fixed. This
 * keeps the states of many parallel tasks from multiplying once their
 * downstream task has been decided.
 */
function finishUnwatched(model: Model, state: string): string {
  let after: string[] | null = null;
  for (let i = 0; i < state.length; i++) {
    if (state[i] !== RUNNING || watched(model, state, i)) continue;
    after ??= [...state];
    after[i] = endOf(model, i);
  }
  return after === null ? state : after.join('');
}

function finalStates(model: Model, state: string): Map<string, TaskState> {
  const states = new Map<string, TaskState>(model.settled);
  model.tasks.forEach((task, i) => {
    const status = STATUS_OF[state[i] ?? WAITING] ?? 'waiting';
    // A task still waiting at the end is deadlocked; Airflow fails such a run. Reporting it as running keeps the run unfinished, never a success.
    states.set(task.id, status === 'waiting' ? 'running' : status);
  });
  return states;
}

function masks(model: Model, state: string): boolean {
  if (state[model.failing] !== CODE.failed) return false;
  const outcome = deriveRunOutcome(model.definition, new Map([...finalStates(model, state)].map(([id, s]) => [id, { state: s }])));
  return outcome.status === 'success';
}

/**
 * Why one order masks and another does not, in one phrase: the first task (in
 * run order) that ends differently was decided by a pass that saw one of its
 * upstream tasks unfinished in one order but finished in the other.
 */
function describeDifference(model: Model, masking: Status[][], other: Status[][]): string | null {
  const endM = masking.at(-1);
  const endO = other.at(-1);
  if (!endM || !endO) return null;
  const x = model.tasks.findIndex((_, i) => endM[i] !== endO[i]);
  const task = model.tasks[x];
  if (!task) return null;
  const seenM = seenAtDecision(masking, x);
  const decided = decisionPhrase(endM[x]);
  const unfinishedM = unfinishedUpstream(model, seenM, x);
  if (unfinishedM !== undefined && seenM) {
    const u = model.tasks[unfinishedM]?.id;
    const where = seenM[unfinishedM] === 'running' ? 'still running' : 'still waiting';
    return `when '${u}' is ${where} after '${task.id}' ${decided}`;
  }
  const unfinishedO = unfinishedUpstream(model, seenAtDecision(other, x), x);
  if (unfinishedO === undefined) return null;
  const u = model.tasks[unfinishedO]?.id;
  return `when '${u}' ${finishPhrase(endM[unfinishedO])} before '${task.id}' ${decided}`;
}

/** The statuses the pass that decided task `x` started from. */
function seenAtDecision(path: Status[][], x: number): Status[] | undefined {
  for (let k = 1; k < path.length; k++) {
    if (path[k - 1]?.[x] === 'waiting' && path[k]?.[x] !== 'waiting') return path[k - 1];
  }
  return undefined;
}

/** An upstream task of `x` not finished in `seen`: the failing task first, then one the failure can travel through. */
function unfinishedUpstream(model: Model, seen: readonly Status[] | undefined, x: number): number | undefined {
  if (!seen) return undefined;
  const open = (model.upstream[x] ?? []).filter((up) => seen[up] === 'waiting' || seen[up] === 'running');
  if (open.includes(model.failing)) return model.failing;
  return open.find((up) => model.below.has(up)) ?? open[0];
}

function decisionPhrase(status: Status | undefined): string {
  if (status === 'skipped') return 'is skipped';
  if (status === 'upstream_failed') return 'is marked upstream_failed';
  return 'starts';
}

function finishPhrase(status: Status | undefined): string {
  if (status === 'failed') return 'fails';
  if (status === 'skipped') return 'is skipped';
  if (status === 'upstream_failed') return 'is marked upstream_failed';
  return 'succeeds';
}
