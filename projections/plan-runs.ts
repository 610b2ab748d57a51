import { leaseExpired, type DateState } from './date-state.js';
import type { InFlightSlot } from './pending.js';
import type { PipelineState } from './pipeline-state.js';
import type { RunHistory } from './run-history.js';
import type { Slot } from './slot.js';

/**
 * Which slots a backfill reruns, with Airflow 3's names: `none` runs missing, cleared, stalled and interrupted slots;
 * `failed` adds failed ones; `completed` adds successful ones too (`--force`).
 */
export type Reprocess = 'none' | 'failed' | 'completed';

/**
 * Why a slot is in a plan: its state at planning time. `completed` means it succeeded (or was marked skipped)
 * and is reprocessed; `up_for_retry`: a retry is scheduled for it, and the runner waits for its time.
 */
export type PlanReason = 'missing' | 'cleared' | 'stalled' | 'interrupted' | 'failed' | 'up_for_retry' | 'completed';

export type PlannedSlot = Slot & { reason: PlanReason };

/** A slot left alone because the reprocess mode does not cover its status. */
export type ExcludedSlot = { date: string; status: 'success' | 'skipped' | 'failed'; runId: string };

export type RunPlan = {
  /** The slots to run, in the order they were given (ascending). */
  slots: PlannedSlot[];
  /** Running with a live lease: never touched. */
  inFlight: InFlightSlot[];
  /** Done or failed slots the reprocess mode leaves alone. */
  excluded: ExcludedSlot[];
  /** The first slot not due yet at `nowMs`; it and every later slot were skipped. */
  notDueFrom: Slot | null;
};

/** What to do with one slot given its current state: run it (with a reason), or why not. */
export type SlotSelection =
  | { run: true; reason: PlanReason }
  | { run: false; inFlight: InFlightSlot }
  | { run: false; excluded: ExcludedSlot };

/**
 * The backfill selection rule for one slot. The runner asks it again right before it
 * claims a slot, so a slot another runner took or finished since planning is
 * skipped instead of run twice.
 *
 * @example
 * selectSlot(state.dates.get('2026-11-03'), 'failed', nowMs) // { run: true, reason: 'failed' }
 */
export function selectSlot(date: DateState | undefined, reprocess: Reprocess, nowMs: number): SlotSelection {
  if (!date) return { run: true, reason: 'missing' };
  switch (date.status) {
    case 'cleared':
      return { run: true, reason: 'cleared' };
    case 'interrupted':
      // Its runner was stopped, the pipeline did not fail: the same command resumes it.
      return { run: true, reason: 'interrupted' };
    case 'up_for_retry':
      // Its retry policy is not spent: every mode carries it on (the runner waits for its time).
      return { run: true, reason: 'up_for_retry' };
    case 'running':
      // An expired lease means the runner died: the ledger's start takes the run over (S4).
      if (leaseExpired(date, nowMs)) return { run: true, reason: 'stalled' };
      return { run: false, inFlight: { date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt } };
    case 'failed':
      if (reprocess !== 'none') return { run: true, reason: 'failed' };
      return { run: false, excluded: { date: date.date, status: 'failed', runId: date.runId } };
    case 'success':
    case 'skipped':
      if (reprocess === 'completed') return { run: true, reason: 'completed' };
      return { run: false, excluded: { date: date.date, status: date.status, runId: date.runId } };
    default: {
      const unknown: never = date.status;
      throw new Error(`selectSlot: unhandled status ${String(unknown)}`);
    }
  }
}

/**
 * Which of the given slots a backfill runs, each with its reason.
 * In-flight slots are never touched; slots not due at `nowMs` are skipped.
 * `slots` must be ascending (as timetables give them): planning stops at the
 * first slot that is not due, so an open-ended range costs nothing.
 *
 * @example
 * const plan = planBackfill(state, timetable.slotsBetween(from, to), { reprocess: 'none', nowMs });
 * plan.slots.map((s) => `${s.date} ${s.reason}`) // ['2026-11-02 missing', '2026-11-04 cleared']
 */
export function planBackfill(state: PipelineState, slots: Iterable<Slot>, options: { reprocess: Reprocess; nowMs: number }): RunPlan {
  const plan: RunPlan = { slots: [], inFlight: [], excluded: [], notDueFrom: null };
  for (const slot of slots) {
    if (Date.parse(slot.runAfter) > options.nowMs) {
      plan.notDueFrom = slot;
      break;
    }
    const selection = selectSlot(state.dates.get(slot.date), options.reprocess, options.nowMs);
    if (selection.run) plan.slots.push({ ...slot, reason: selection.reason });
    else if ('inFlight' in selection) plan.inFlight.push(selection.inFlight);
    else plan.excluded.push(selection.excluded);
  }
  return plan;
}

/**
 * The due slots after the latest scheduled or catchup run (all due slots
 * when there is none) that are pending; with the pipeline's `catchup` off,
 * only the latest due slot, if it is pending. Gaps before the latest run are
 * left to `pending` and `backfill`, as in Airflow.
 *
 * `slots` are ascending and may start anywhere before `after`; `after` is the
 * logical date of the latest scheduled/catchup run (see `latestScheduledRun`).
 * "Pending" is missing, cleared, stalled and failed, so the default
 * `reprocess` here is `failed`; `none` leaves failed slots alone and
 * `completed` reruns successes as well.
 *
 * @example
 * planCatchup(state, timetable.slotsBetween(start, lastDue), { nowMs, catchup: false, after: null })
 */
export function planCatchup(
  state: PipelineState,
  slots: Iterable<Slot>,
  options: { nowMs: number; catchup: boolean; after: string | null; reprocess?: Reprocess },
): RunPlan {
  const afterMs = options.after === null ? Number.NEGATIVE_INFINITY : Date.parse(options.after);
  const window: Slot[] = [];
  /** What a stopped or killed runner left, wherever it lies: taken over whatever the window or the catchup setting. */
  const recovered: Slot[] = [];
  let notDueFrom: Slot | null = null;
  for (const slot of slots) {
    if (Date.parse(slot.runAfter) > options.nowMs) {
      notDueFrom = slot;
      break;
    }
    const date = state.dates.get(slot.date);
    if (leftByRunner(date, options.nowMs)) {
      recovered.push(slot);
      continue;
    }
    if (Date.parse(slot.logicalDate) <= afterMs) continue;
    // With catchup off only the latest due slot counts, so keep just one.
    if (options.catchup) window.push(slot);
    else window.splice(0, window.length, slot);
  }
  const ordered = [...recovered, ...window].sort((a, b) => Date.parse(a.logicalDate) - Date.parse(b.logicalDate));
  const plan = planBackfill(state, ordered, { reprocess: options.reprocess ?? 'failed', nowMs: options.nowMs });
  return { ...plan, notDueFrom };
}

/**
 * A key a runner left unfinished when it was stopped or died, whatever started it: `interrupted` (stopped by a
 * signal), `up_for_retry` whose retry's time has come (nobody is waiting for it, or it would have started),
 * or `running` with its lease run out (stalled). A plain catchup takes these over wherever they lie.
 *
 * @example
 * leftByRunner(state.dates.get('2026-11-03'), nowMs) // true for a stalled run
 */
export function leftByRunner(date: DateState | undefined, nowMs: number): boolean {
  if (!date) return false;
  if (date.status === 'interrupted') return true;
  if (date.status === 'up_for_retry') return date.retry?.nextAt == null || Date.parse(date.retry.nextAt) <= nowMs;
  return date.status === 'running' && leaseExpired(date, nowMs);
}

/**
 * The earliest key a runner left unfinished (`leftByRunner`), its logical date, or null: a catchup must
 * reach back to it even when a later run moved the catchup point past it.
 *
 * @example
 * earliestLeftByRunner(state, nowMs) // '2026-11-03T00:00:00+07:00'
 */
export function earliestLeftByRunner(state: PipelineState, nowMs: number): string | null {
  let earliest: string | null = null;
  for (const date of state.dates.values()) {
    if (!leftByRunner(date, nowMs)) continue;
    if (earliest === null || Date.parse(date.logicalDate) < Date.parse(earliest)) earliest = date.logicalDate;
  }
  return earliest;
}

/**
 * The logical date of the latest `scheduled` or `catchup` run, whatever its
 * outcome (a cleared or failed one still moves the catchup point, as an
 * Airflow DAG run does), or null when there was none. An interrupted run does
 * not move it: its runner was stopped, and the same catchup resumes it.
 *
 * @example
 * planCatchup(state, slots, { nowMs, catchup: true, after: latestScheduledRun(history) })
 */
export function latestScheduledRun(history: RunHistory): string | null {
  let latest: string | null = null;
  for (const run of history.runs.values()) {
    if (run.runType !== 'scheduled' && run.runType !== 'catchup') continue;
    if (run.status === 'interrupted') continue;
    if (latest === null || Date.parse(run.logicalDate) > Date.parse(latest)) latest = run.logicalDate;
  }
  return latest;
}
