import type { TaskDefinition } from '../events/task-definition.js';
import type { TaskState } from '../events/task-state-changed.js';
import { deriveRunOutcome } from './derive-run-outcome.js';
import { evaluateTriggerRule, type TriggerDecision } from './evaluate-trigger-rule.js';
import { topologicalOrder } from './task-graph.js';

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
 * searchMasking(tasks, 'c', 100_000)
 * // { checked: true, states: 14, masks: 'always', witness: { final: Map {…}, when: null } }
 */
export function searchMasking(tasks: readonly TaskDefinition[], failing: string, maxStates: number): MaskingSearch {
  const model = modelOf(tasks, failing);
  const memo = new Map<string, number>();
  let exhausted = false;

  // Bit 1: some order from here ends with `failing` failed and the run a success; bit 2: some order ends otherwise.
  const explore = (state: Status[]): number => {
    const key = state.join(',');
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (exhausted || memo.size >= maxStates) {
      exhausted = true;
      return 0;
    }
    memo.set(key, 0);
    const next = successors(model, state);
    let bits = 0;
    if (next.length === 0) bits = masks(model, state) ? 1 : 2;
    for (const successor of next) {
      bits |= explore(successor);
      if (exhausted) return 0;
    }
    memo.set(key, bits);
    return bits;
  };

  const start: Status[] = model.tasks.map(() => 'waiting');
  const bits = explore(start);
  if (exhausted) return { checked: false, states: memo.size };
  if ((bits & 1) === 0) return { checked: true, states: memo.size, masks: 'never' };
  const masking = pathWith(model, memo, start, 1);
  const final = masking.at(-1) ?? start;
  const witness: MaskingWitness = { final: finalStates(model, final), when: null };
  if ((bits & 2) === 0) return { checked: true, states: memo.size, masks: 'always', witness };
  witness.when = describeDifference(model, masking, pathWith(model, memo, start, 2));
  return { checked: true, states: memo.size, masks: 'sometimes', witness };
}

type Model = {
  tasks: TaskDefinition[];
  upstream: number[][];
  failing: number;
  /** The tasks downstream of the failing one, by index. */
  below: Set<number>;
  definition: readonly TaskDefinition[];
};

/** Tasks in topological order, so the first task whose final state differs between two orders is found by a scan. */
function modelOf(definition: readonly TaskDefinition[], failing: string): Model {
  const tasks = topologicalOrder(definition);
  const index = new Map(tasks.map((t, i) => [t.id, i]));
  const upstream = tasks.map((t) => t.upstream.map((up) => index.get(up) ?? -1).filter((i) => i >= 0));
  const failingIndex = index.get(failing) ?? -1;
  const below = new Set<number>();
  // Topological order: a task is below the failing one when one of its upstream tasks is it or below it.
  upstream.forEach((ups, i) => {
    if (ups.some((up) => up === failingIndex || below.has(up))) below.add(i);
  });
  return { tasks, upstream, failing: failingIndex, below, definition };
}

/** One scheduler pass: every waiting task's rule against the statuses at the start of the pass. Null when it changes nothing. */
function schedulerPass(model: Model, state: readonly Status[]): Status[] | null {
  let after: Status[] | null = null;
  state.forEach((status, i) => {
    if (status !== 'waiting') return;
    const decision = decide(model, state, i);
    if (decision === 'waits') return;
    after ??= [...state];
    after[i] = decision === 'runs' ? 'running' : decision;
  });
  return after;
}

function decide(model: Model, state: readonly Status[], i: number): TriggerDecision {
  const task = model.tasks[i];
  if (!task) throw new Error(`searchMasking: no task at ${i}`);
  const counts = { upstream: 0, success: 0, skipped: 0, failed: 0, upstreamFailed: 0, done: 0, upstreamSetup: 0, successSetup: 0, skippedSetup: 0 };
  for (const up of model.upstream[i] ?? []) {
    counts.upstream++;
    const status = state[up];
    if (status === 'success') counts.success++;
    else if (status === 'skipped') counts.skipped++;
    else if (status === 'failed') counts.failed++;
    else if (status === 'upstream_failed') counts.upstreamFailed++;
    else continue;
    counts.done++;
  }
  // runledger's definitions declare no setup tasks, so no task has indirect setups.
  return evaluateTriggerRule({ triggerRule: task.triggerRule, teardown: task.teardown, indirectSetups: null }, counts);
}

/** The next states: the pass, when it changes something, and each running task finishing on its own. */
function successors(model: Model, state: readonly Status[]): Status[][] {
  const next: Status[][] = [];
  const passed = schedulerPass(model, state);
  if (passed) next.push(passed);
  state.forEach((status, i) => {
    if (status !== 'running') return;
    const finished = [...state];
    finished[i] = i === model.failing ? 'failed' : 'success';
    next.push(finished);
  });
  return next;
}

function finalStates(model: Model, state: readonly Status[]): Map<string, TaskState> {
  const states = new Map<string, TaskState>();
  model.tasks.forEach((task, i) => {
    const status = state[i];
    // A task still waiting at the end is deadlocked; Airflow fails such a run. Reporting it as running keeps the run unfinished, never a success.
    states.set(task.id, status === 'waiting' || status === undefined ? 'running' : status);
  });
  return states;
}

function masks(model: Model, state: readonly Status[]): boolean {
  if (state[model.failing] !== 'failed') return false;
  const outcome = deriveRunOutcome(model.definition, new Map([...finalStates(model, state)].map(([id, s]) => [id, { state: s }])));
  return outcome.status === 'success';
}

/** A path from `start` to an end state whose memo has `bit`, following successors that keep it. */
function pathWith(model: Model, memo: ReadonlyMap<string, number>, start: Status[], bit: number): Status[][] {
  const path = [start];
  for (let state = start; ; ) {
    const next = successors(model, state).find((s) => ((memo.get(s.join(',')) ?? 0) & bit) !== 0);
    if (!next) return path;
    path.push(next);
    state = next;
  }
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
