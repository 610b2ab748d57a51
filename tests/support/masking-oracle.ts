/**
 * An independent answer to the masking lint's question, for property tests:
 * written from Airflow's sources (`TriggerRuleDep._evaluate_direct_relatives`
 * with `flag_upstream_failed`, `DagRun._tis_for_dagrun_state`,
 * `DagRun.update_state`) without any of runledger's projections, and searching
 * the scheduler the way the issue words it: each pass evaluates every waiting
 * task against the tasks finished when the pass starts, then any set of the
 * running tasks finishes (none only if the pass changed something; with
 * `idlePasses` false, as the issue words it, at least one when any runs). It keeps
 * the set of end states reachable, where the lint keeps two bits per state.
 */
import type { TaskDefinition } from '../../events/task-definition.js';

type St = 'none' | 'running' | 'success' | 'failed' | 'skipped' | 'upstream_failed';
type Verdict = 'run' | 'wait' | 'skipped' | 'upstream_failed';

export type OracleAnswer = { leaf: string; task: string; orders: 'every' | 'some' };

/** Airflow's rule switch for a task with upstream states `ups` (`none`/`running` = not finished). */
export function airflowVerdict(rule: TaskDefinition['triggerRule'], ups: readonly St[]): Verdict {
  const upstream = ups.length;
  if (upstream === 0 || rule === 'always') return 'run';
  const n = (s: St) => ups.filter((u) => u === s).length;
  const success = n('success');
  const skipped = n('skipped');
  const failed = n('failed');
  const upstreamFailed = n('upstream_failed');
  const done = success + skipped + failed + upstreamFailed;
  const upstreamDone = done >= upstream;
  let flag: Verdict | null = null;
  let met = false;
  if (rule === 'all_success') {
    if (upstreamFailed || failed) flag = 'upstream_failed';
    else if (skipped) flag = 'skipped';
    met = upstream - success <= 0;
  } else if (rule === 'all_failed') {
    if (success || skipped) flag = 'skipped';
    met = upstream - failed - upstreamFailed <= 0;
  } else if (rule === 'one_success') {
    if (upstreamDone && done === skipped) flag = 'skipped';
    else if (upstreamDone && success <= 0) flag = 'upstream_failed';
    met = success > 0;
  } else if (rule === 'one_failed') {
    if (upstreamDone && !(failed || upstreamFailed)) flag = 'skipped';
    met = failed > 0 || upstreamFailed > 0;
  } else if (rule === 'one_done') {
    if (upstreamDone && !(failed || success)) flag = 'skipped';
    met = success + failed > 0;
  } else if (rule === 'none_failed') {
    if (upstreamFailed || failed) flag = 'upstream_failed';
    met = upstream - success - skipped <= 0;
  } else if (rule === 'none_failed_min_one_success') {
    if (upstreamFailed || failed) flag = 'upstream_failed';
    else if (skipped === upstream) flag = 'skipped';
    met = upstream - success - skipped <= 0;
  } else if (rule === 'none_skipped') {
    if (skipped) flag = 'skipped';
    met = upstreamDone && skipped === 0;
  } else if (rule === 'all_skipped') {
    if (success || failed || upstreamFailed) flag = 'skipped';
    met = upstream - skipped <= 0;
  } else if (rule === 'all_done_min_one_success') {
    const nonSkippedDone = success + failed + upstreamFailed;
    const nonSkippedUpstream = upstream - skipped;
    if (skipped > 0) flag = 'skipped';
    else if (nonSkippedDone >= nonSkippedUpstream && success === 0) flag = 'upstream_failed';
    met = skipped === 0 && nonSkippedDone >= nonSkippedUpstream && success > 0;
  } else {
    // all_done, and all_done_setup_success without setup tasks.
    met = upstreamDone;
  }
  return flag ?? (met ? 'run' : 'wait');
}

/** Airflow's effective leaves: teardowns are ignored unless they fail the run; a DAG of only teardowns falls back to its plain leaves. */
export function airflowLeaves(tasks: readonly TaskDefinition[]): string[] {
  const ignorable = (t: TaskDefinition) => t.teardown && !t.failRunOnFailure;
  const downs = (t: TaskDefinition) => tasks.filter((d) => d.upstream.includes(t.id));
  const effective = tasks.filter((t) => !ignorable(t) && downs(t).every(ignorable)).map((t) => t.id);
  return effective.length > 0 ? effective : tasks.filter((t) => downs(t).length === 0).map((t) => t.id);
}

/** Every end state of the run when only `failing` fails, as arrays of task states in declaration order. */
export function endStates(tasks: readonly TaskDefinition[], failing: string, idlePasses = true): St[][] {
  return walk(tasks, failing, idlePasses, () => false).map((e) => e.end);
}

/**
 * Every end state, each with whether `event` held at some pass on the way
 * there (`event` sees the states before and after the pass). The search state
 * carries that bit, so each end is reported once per bit value.
 */
function walk(tasks: readonly TaskDefinition[], failing: string, idlePasses: boolean, event: (before: St[], after: St[]) => boolean): Array<{ end: St[]; marked: boolean }> {
  const index = new Map(tasks.map((t, i) => [t.id, i]));
  const ups = tasks.map((t) => t.upstream.map((u) => index.get(u) ?? -1));
  const seen = new Set<string>();
  const ends = new Map<string, { end: St[]; marked: boolean }>();
  const stack: Array<{ state: St[]; marked: boolean }> = [{ state: tasks.map(() => 'none'), marked: false }];
  while (stack.length > 0) {
    const { state, marked: markedBefore } = stack.pop() as { state: St[]; marked: boolean };
    const key = `${state.join('|')}#${markedBefore}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const after = [...state];
    let changed = false;
    tasks.forEach((t, i) => {
      if (state[i] !== 'none') return;
      const verdict = airflowVerdict(t.triggerRule, (ups[i] ?? []).map((u) => state[u] as St));
      if (verdict === 'wait') return;
      after[i] = verdict === 'run' ? 'running' : verdict;
      changed = true;
    });
    const marked = markedBefore || (changed && event(state, after));
    const running = after.flatMap((s, i) => (s === 'running' ? [i] : []));
    if (running.length === 0 && !changed) {
      ends.set(key, { end: state, marked });
      continue;
    }
    for (let mask = changed && (idlePasses || running.length === 0) ? 0 : 1; mask < 1 << running.length; mask++) {
      const next = [...after];
      running.forEach((i, bit) => {
        if (mask & (1 << bit)) next[i] = tasks[i]?.id === failing ? 'failed' : 'success';
      });
      stack.push({ state: next, marked });
    }
  }
  return [...ends.values()];
}

/**
 * True when the lint's witness for a failure hidden in only some orders really
 * describes one: some order in which a pass decides X as the phrase says while
 * U is still running (or waiting), and which ends with `failing` failed and
 * the run a success. Phrases of the form "when 'U' fails before 'X' …" are
 * checked the same way with U finished when X is decided.
 */
export function witnessHolds(tasks: readonly TaskDefinition[], failing: string, when: string): boolean {
  const early = /^when '([^']+)' is still (running|waiting) after '([^']+)' (starts|is skipped|is marked upstream_failed)$/.exec(when);
  const late = /^when '([^']+)' (succeeds|fails|is skipped|is marked upstream_failed) before '([^']+)' (starts|is skipped|is marked upstream_failed)$/.exec(when);
  const match = early ?? late;
  if (!match) return false;
  const [, u, uPhrase, x, xPhrase] = match;
  const ui = tasks.findIndex((t) => t.id === u);
  const xi = tasks.findIndex((t) => t.id === x);
  const decided: St = xPhrase === 'starts' ? 'running' : xPhrase === 'is skipped' ? 'skipped' : 'upstream_failed';
  const uSeen = (s: St | undefined): boolean =>
    early ? (uPhrase === 'running' ? s === 'running' : s === 'none') : s === ({ succeeds: 'success', fails: 'failed', 'is skipped': 'skipped' } as Record<string, St>)[uPhrase ?? ''] || (uPhrase === 'is marked upstream_failed' && s === 'upstream_failed');
  const leaves = airflowLeaves(tasks);
  const fi = tasks.findIndex((t) => t.id === failing);
  return walk(tasks, failing, true, (before, after) => before[xi] === 'none' && after[xi] === decided && uSeen(before[ui])).some(
    (e) => e.marked && e.end[fi] === 'failed' && runSucceeds(tasks, leaves, e.end),
  );
}

/** `DagRun.update_state` once nothing is left to run: a task never decided (deadlock) or any failed leaf fails the run. */
function runSucceeds(tasks: readonly TaskDefinition[], leaves: readonly string[], end: readonly St[]): boolean {
  if (end.some((s) => s === 'none' || s === 'running')) return false;
  return tasks.every((t, i) => !leaves.includes(t.id) || end[i] === 'success' || end[i] === 'skipped');
}

/** For every task T and every leaf L downstream of it: can only T failing end with T failed and the run a success, and in every order or some? */
export function oracleMasking(tasks: readonly TaskDefinition[], idlePasses = true): OracleAnswer[] {
  const leaves = airflowLeaves(tasks);
  const answers: OracleAnswer[] = [];
  tasks.forEach((t, ti) => {
    const ends = endStates(tasks, t.id, idlePasses);
    const masking = ends.filter((end) => end[ti] === 'failed' && runSucceeds(tasks, leaves, end));
    if (masking.length === 0) return;
    const orders = masking.length === ends.length ? 'every' : 'some';
    for (const leaf of leaves) if (isBelow(tasks, t.id, leaf)) answers.push({ leaf, task: t.id, orders });
  });
  return answers;
}

function isBelow(tasks: readonly TaskDefinition[], from: string, to: string): boolean {
  const below = tasks.filter((d) => d.upstream.includes(from));
  return below.some((d) => d.id === to || isBelow(tasks, d.id, to));
}
