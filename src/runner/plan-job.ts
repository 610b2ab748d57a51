import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { earliestLeftByRunner, latestScheduledRun, planBackfill, planCatchup, type Reprocess, type RunPlan } from '../../projections/plan-runs.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import { retiredText } from '../../projections/pipeline-control.js';
import type { Slot } from '../../projections/slot.js';
import { firstBlocking, type BlockedBy } from '../../projections/upstream-slots.js';
import { loadUpstreams } from '../ledger/load-upstreams.js';
import { LedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { createTimetableHistory } from '../timetable/timetable-history.js';
import { parseRangeEnd, parseRangeStart } from '../timetable/parse-range-end.js';
import type { Timetable } from '../timetable/timetable.js';

/** A backfill over `[from, to]` or a catchup. */
export type JobRequest = (
  | { kind: 'backfill'; pipeline: string; from: string; to: string; reprocess?: Reprocess; runBackwards?: boolean }
  | { kind: 'catchup'; pipeline: string; reprocess?: Reprocess; runBackwards?: boolean; allPending?: boolean }
) & {
  /**
   * Wait up to this long for the upstream slots a date waits for (`--wait-upstream`); without it, dates
   * whose upstream slots are not done are left alone.
   */
  waitUpstreamMs?: number;
};

/** A planned date that waits for an upstream slot that is not done, and the first such slot. */
export type BlockedSlot = { date: string; blockedBy: BlockedBy };

/** A plan with what it was made from; `plan.slots` are in the order they will start. */
export type PlannedJob = {
  pipeline: string;
  runType: 'backfill' | 'catchup';
  reprocess: Reprocess;
  /** The range's first and last slot (backfill), or null. */
  from: string | null;
  to: string | null;
  /**
   * For catchup: whether the pipeline catches up, and the logical date of its latest scheduled/catchup run.
   * `pastEnd`: with catchup off, the latest complete interval before now (its date) lies past the
   * pipeline's end, so nothing runs (as in Airflow, catchup off never reaches back to an end in the past).
   * `allPending`: every pending date since the start was planned (`catchup --all-pending`). `olderPending`: without
   * it, the pending dates before the window this catchup looked at (only `--all-pending` or a backfill runs them).
   */
  catchup?: { enabled: boolean; after: string | null; pastEnd?: { latest: string; end: string }; allPending?: boolean; olderPending?: string[] };
  plan: RunPlan;
  /**
   * For a pipeline with upstreams: the dates the plan picked that wait for an upstream slot that is not
   * done. Without `waitUpstreamMs` they were taken out of `plan.slots` (left alone); with it they stay.
   */
  blocked?: BlockedSlot[];
};

export const REPROCESS_MODES: readonly Reprocess[] = ['none', 'failed', 'completed'];

/**
 * Turns a request into a plan against the ledger's current state and clock,
 * with the pure rules of `projections/plan-runs.ts`. Throws `input.*` for a
 * bad range or mode and `notFound.pipeline` for an unknown pipeline.
 *
 * @example
 * const job = await planJob(ledger, { kind: 'backfill', pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' });
 * job.plan.slots.map((s) => s.date) // ['2026-11-02', '2026-11-03', '2026-11-04']
 */
export async function planJob(ledger: Ledger, request: JobRequest): Promise<PlannedJob> {
  const { definition, timetable, state, history } = await ledger.pipeline(request.pipeline);
  if (state.retired !== null) {
    throw new LedgerError('ledger.retired', `${request.pipeline} is ${retiredText(state.retired)}, so nothing of it runs; bring it back first with runledger unretire ${request.pipeline}`);
  }
  const nowMs = ledger.now();
  let job: PlannedJob;
  if (request.kind === 'backfill') {
    const reprocess = checkReprocess(request.reprocess ?? 'none');
    const fromMs = parseRangeStart(timetable, request.from);
    const toMs = parseRangeEnd(timetable, request.to);
    if (fromMs > toMs) {
      throw new LedgerError('input.invalidRange', `--from ${request.from} is after --to ${request.to}; give the earlier date first (use --run-backwards to run newest first)`);
    }
    const slots = timetable.slotsBetween(fromMs, toMs);
    const plan = planBackfill(state, slots, { reprocess, nowMs });
    // The resolved bounds: a bare --to on an hourly pipeline shows as the last instant of that local day.
    job = { pipeline: request.pipeline, runType: 'backfill', reprocess, from: timetable.keyOf(fromMs), to: timetable.keyOf(toMs), plan };
  } else if (request.allPending) {
    // Everything pending since the start, in date order, whatever the pipeline's catchup setting: what `pending` lists.
    const reprocess = checkReprocess(request.reprocess ?? 'failed');
    const first = timetable.first();
    const lastDue = timetable.lastDue(nowMs);
    const slots = first && lastDue ? timetable.slotsBetween(Date.parse(first.logicalDate), Date.parse(lastDue.logicalDate)) : [];
    const plan = planBackfill(state, slots, { reprocess, nowMs });
    const next = lastDue ? timetable.next(lastDue) : timetable.first();
    const catchup = { enabled: definition.catchup, after: latestScheduledRun(history), allPending: true };
    job = { pipeline: request.pipeline, runType: 'catchup', reprocess, from: null, to: null, catchup, plan: { ...plan, notDueFrom: next ?? null } };
  } else {
    const reprocess = checkReprocess(request.reprocess ?? 'failed');
    const after = latestScheduledRun(history);
    const lastDue = timetable.lastDue(nowMs);
    const pastEnd = definition.catchup ? undefined : latestPastEnd(definition, timetable, nowMs);
    let slots: Iterable<Slot> = [];
    // What a stopped or killed runner left (interrupted, a retry whose time came, a stalled run) is taken over wherever it lies.
    const resume = earliestLeftByRunner(state, nowMs);
    if (pastEnd) slots = [];
    else if (lastDue && !definition.catchup) slots = resume === null ? [lastDue] : timetable.slotsBetween(Math.min(Date.parse(resume), Date.parse(lastDue.logicalDate)), Date.parse(lastDue.logicalDate));
    else if (lastDue) {
      const first = timetable.first();
      let fromMs = after === null ? (first ? Date.parse(first.logicalDate) : Date.parse(lastDue.logicalDate)) : Date.parse(after) + 1;
      if (resume !== null) fromMs = Math.min(fromMs, Date.parse(resume));
      slots = timetable.slotsBetween(fromMs, Date.parse(lastDue.logicalDate));
    }
    const plan = planCatchup(state, slots, { nowMs, catchup: definition.catchup, after, reprocess });
    const next = lastDue ? timetable.next(lastDue) : timetable.first();
    // With catchup off, dates never run are left behind by design (as in Airflow); failed or cleared ones are still news.
    const olderPending = olderPendingDates(timetable, state, nowMs, plan, definition.catchup);
    const catchup = { enabled: definition.catchup, after, ...(pastEnd ? { pastEnd } : {}), ...(olderPending.length > 0 ? { olderPending } : {}) };
    job = { pipeline: request.pipeline, runType: 'catchup', reprocess, from: null, to: null, catchup, plan: { ...plan, notDueFrom: next ?? null } };
  }
  if (request.runBackwards) job.plan.slots.reverse();
  if (definition.upstreams) {
    const upstreams = await loadUpstreams(definition, (name) => ledger.pipeline(name));
    const blocked: BlockedSlot[] = [];
    const runnable = job.plan.slots.filter((slot) => {
      const by = firstBlocking(slot.dataInterval, upstreams);
      if (by !== null) blocked.push({ date: slot.date, blockedBy: by });
      return by === null || request.waitUpstreamMs !== undefined;
    });
    job = { ...job, plan: { ...job.plan, slots: runnable }, blocked };
  }
  return job;
}

/**
 * The pending dates (missing, failed, cleared, interrupted, stalled) due by now that a plain catchup leaves out:
 * before its window, or failed ones its reprocess mode left alone. `catchup --all-pending` runs them.
 */
function olderPendingDates(timetable: Timetable, state: PipelineState, nowMs: number, plan: RunPlan, withMissing: boolean): string[] {
  const first = timetable.first();
  const lastDue = timetable.lastDue(nowMs);
  if (!first || !lastDue) return [];
  const planned = new Set(plan.slots.map((s) => s.date));
  const all = planBackfill(state, timetable.slotsBetween(Date.parse(first.logicalDate), Date.parse(lastDue.logicalDate)), { reprocess: 'failed', nowMs });
  return all.slots.filter((s) => !planned.has(s.date) && (withMissing || s.reason !== 'missing')).map((s) => s.date);
}

/**
 * With catchup off, Airflow takes the latest complete interval before now and
 * schedules nothing when it starts past the end date. Returns that interval's
 * key and the end when so, else undefined.
 */
function latestPastEnd(definition: PipelineDefinition, timetable: Timetable, nowMs: number): { latest: string; end: string } | undefined {
  const { end } = timetable.spec;
  if (end === null) return undefined;
  // The pipeline's timetables over time, without the end.
  const latest = createTimetableHistory({ ...definition, end: null }).lastDue(nowMs);
  if (!latest || Date.parse(latest.logicalDate) <= Date.parse(end)) return undefined;
  return { latest: latest.date, end: timetable.formatInstant(Date.parse(end)) };
}

/** Throws `input.invalidReprocess` unless the mode is `none`, `failed` or `completed`. */
export function checkReprocess(mode: string): Reprocess {
  if (!(REPROCESS_MODES as readonly string[]).includes(mode)) {
    throw new LedgerError('input.invalidReprocess', `--reprocess '${mode}' is unknown; use none (missing, cleared, stalled), failed (adds failed) or completed (adds successful, same as --force)`);
  }
  return mode as Reprocess;
}

/**
 * `--force` is `--reprocess completed`; giving both with another mode is a contradiction.
 *
 * @example
 * resolveReprocess(undefined, true) // 'completed'
 */
export function resolveReprocess(reprocess: string | undefined, force: boolean | undefined): Reprocess | undefined {
  const mode = reprocess === undefined ? undefined : checkReprocess(reprocess);
  if (!force) return mode;
  if (mode !== undefined && mode !== 'completed') {
    throw new LedgerError('input.conflictingOptions', `--force means --reprocess completed, but --reprocess ${mode} was given too; pass one of them`);
  }
  return 'completed';
}
