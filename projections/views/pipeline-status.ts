import { tellingLine } from './telling-line.js';
import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { isDone, leaseExpired, type DateState } from '../date-state.js';
import type { PendingReason } from '../pending.js';
import type { PipelineState } from '../pipeline-state.js';
import type { PipelineControl } from '../pipeline-control.js';
import type { RunHistory } from '../run-history.js';
import type { Slot } from '../slot.js';
import type { BlockedBy } from '../upstream-slots.js';
import type { OverdueRetry } from '../overdue-retry.js';
import type { PoolWait } from './pool-wait.js';
import { compareNames } from './compare-names.js';
import { formatLag } from './format-lag.js';
import { runOutcome } from './run-outcome.js';

/** How many due slots are pending, by reason (stalled runs count as pending, as `pending` lists them). */
export type PendingCounts = Record<PendingReason, number> & { total: number };

/** The last run that succeeded, whether or not its date was cleared since. */
export type LastSuccess = { date: string; runId: string; at: string };

/** The last run that failed (or was abandoned), whether or not its date was retried since. */
export type LastFailure = { date: string; runId: string; at: string; error: string };

/** One row of `status`: a pipeline at a glance (the rows of `status --json`). */
export type PipelineStatus = {
  pipeline: string;
  schedule: string;
  timezone: string;
  /** The greatest date key that ever had a success (never lowered), or null. */
  watermark: string | null;
  /** The greatest date key up to which every slot succeeded, or null. */
  completeThrough: string | null;
  /** End of the complete-through slot's data interval: the data is complete up to this instant (null when nothing is). */
  completeUntil: string | null;
  /** now − completeUntil (or − the first slot's start when nothing is complete), in seconds; null while no slot is due. */
  lagSeconds: number | null;
  /** The lag in words (`2d 1h`), or `-` while no slot is due. */
  lag: string;
  /** Due slots after the complete-through key: how many dates downstream is waiting for. */
  behind: number;
  pending: PendingCounts;
  /**
   * Due dates that wait for an upstream slot that is not done (`upstream` ones, and failed ones whose
   * upstream is not done either), and the first of them with what it waits for; 0 and null without upstreams.
   */
  blocked: number;
  firstBlocked: { date: string; blockedBy: BlockedBy } | null;
  /** Runs whose lease is still live. */
  inFlight: Array<{ date: string; runId: string; leaseExpiresAt: string }>;
  /** Runs still `running` whose lease expired: nobody is working on them. */
  stalled: Array<{ date: string; runId: string; leaseExpiresAt: string }>;
  lastFailure: LastFailure | null;
  /** The run that succeeded last (by when its success was recorded), or null. */
  lastSuccess: LastSuccess | null;
  /** The freshness the pipeline was defined with (`define --freshness`), in seconds, or null. */
  freshnessSeconds: number | null;
  /**
   * Dates waiting for a retry that nobody started: past the retry's time plus the pipeline's lease. Present
   * only when there is one (`status` reads the retrying dates only when the counts say there are some).
   */
  overdueRetries?: OverdueRetry[];
  /** Present while the pipeline is paused: since when, by whom and why (fleet runs start none of its dates). */
  paused?: PipelineControl;
  /**
   * The pipeline's pool (`define --pool`) has no free place while it has dates that could start: they wait
   * for one. Present only then (`status` reads the pools only when the counts say a date could start).
   */
  poolWait?: PoolWait;
};

export type PipelineStatusInput = {
  state: PipelineState;
  /**
   * The run history the last failure is found in, or that failure itself (the read models keep it in
   * the pipeline's summary row, so `status` never reads every run).
   */
  history?: RunHistory;
  lastFailure?: LastFailure | null;
  /** The last success, when the caller has it (the summary row keeps it too). */
  lastSuccess?: LastSuccess | null;
  /**
   * The pipeline's slots from its first, ascending; may be endless (it is read
   * only until the slots stop being due and complete-through has stopped).
   */
  slots: Iterable<Slot>;
  nowMs: number;
  /** The first upstream slot a slot waits for that is not done, or null; leave out for a pipeline without upstreams. */
  blocked?: (slot: Slot) => BlockedBy | null;
};

/**
 * The per-pipeline summary behind `status`, `check`, the metrics and the web
 * overview. Pure: the caller passes the slots and "now".
 *
 * Lag is measured from the end of the complete-through slot's data interval,
 * because that is the instant up to which downstream can trust the data; when
 * no slot is complete it is measured from the first slot's start. A lag never
 * goes below zero (a slot completed before its interval ended).
 *
 * @example
 * pipelineStatus({ state, history, slots: slotsFrom(timetable), nowMs: Date.parse('2026-11-07T01:00:00+07:00') }).lag // '2d 1h'
 */
export function pipelineStatus(input: PipelineStatusInput): PipelineStatus {
  const { state, nowMs } = input;
  const definition = state.definition;
  const pending = noPending();
  let blocked = 0;
  let firstBlocked: PipelineStatus['firstBlocked'] = null;
  let completeThrough: Slot | null = null;
  let firstSlot: Slot | null = null;
  let walking = true;
  let behind = 0;
  let anyDue = false;
  /** Whether the slot before this one is done (null before the first slot: it waits for nothing). */
  let previousDone: boolean | null = null;
  for (const slot of input.slots) {
    firstSlot ??= slot;
    const date = state.dates.get(slot.date);
    const due = Date.parse(slot.runAfter) <= nowMs;
    if (walking && isDone(date?.status)) completeThrough = slot;
    else walking = false;
    if (!due) {
      // Past the last due slot only an early success can still extend complete-through.
      if (!walking) break;
      continue;
    }
    anyDue = true;
    if (!walking) behind += 1;
    // Depends on past: a slot that would run afresh waits while the one before it is not done.
    const waiting = definition?.dependsOnPast === true && previousDone === false && (date === undefined || date.status === 'cleared');
    previousDone = isDone(date?.status);
    let reason: PendingReason | null = waiting ? 'waitingForPrevious' : pendingReason(date?.status, date?.leaseExpiresAt ?? '', nowMs);
    const by = reason === null || reason === 'stalled' || input.blocked === undefined ? null : input.blocked(slot);
    if (by !== null) {
      blocked += 1;
      firstBlocked ??= { date: slot.date, blockedBy: by };
      if (reason !== 'failed' && reason !== 'up_for_retry') reason = 'upstream';
    }
    if (reason) {
      pending[reason] += 1;
      pending.total += 1;
    }
  }

  return statusRow({
    pipeline: state.pipeline,
    definition,
    watermark: state.watermark?.date ?? null,
    completeThrough,
    firstSlotStart: firstSlot?.dataInterval.start ?? null,
    anyDue,
    behind,
    pending,
    blocked,
    firstBlocked,
    running: state.dates.values(),
    lastFailure: input.lastFailure !== undefined ? input.lastFailure : lastFailure(input.history ?? { runs: new Map() }),
    lastSuccess: input.lastSuccess !== undefined ? input.lastSuccess : lastSuccess(input.history ?? { runs: new Map() }),
    nowMs,
  });
}

/** What a `status` row is made of, however it was found: a walk over the fold's slots, or a summary row's counts. */
export type StatusParts = Pick<PipelineStatus, 'pipeline' | 'watermark' | 'behind' | 'pending' | 'blocked' | 'firstBlocked' | 'lastFailure' | 'lastSuccess'> & {
  definition: PipelineDefinition | null;
  /** The complete-through slot (its key and data interval), or null. */
  completeThrough: Pick<Slot, 'date' | 'dataInterval'> | null;
  /** The first slot's start: lag counts from it while nothing is complete. */
  firstSlotStart: string | null;
  /** Whether any slot is due at `nowMs`. */
  anyDue: boolean;
  nowMs: number;
  /** `Date.parse` of the instant lag counts from (complete-through's end, else `firstSlotStart`), when the caller has it. */
  lagFromMs?: number;
} & (
  | {
      /** Dates of the pipeline that include every running one (others are passed over). */
      running: Iterable<Pick<DateState, 'date' | 'status' | 'runId' | 'leaseExpiresAt' | 'logicalDate'>>;
    }
  | {
      /** The runs in flight already split and ordered as `runsInFlight` does it. */
      runs: RunsInFlight;
    }
);

/** A row's runs whose lease is live and those whose lease expired, each by logical date. */
export type RunsInFlight = Pick<PipelineStatus, 'inFlight' | 'stalled'>;

/**
 * The running dates among `dates`, split by their lease at `nowMs` (expired: stalled) and each part ordered by logical
 * date, as a `status` row lists them.
 *
 * @example
 * const { inFlight, stalled } = runsInFlight(state.dates.values(), nowMs);
 */
export function runsInFlight(dates: Iterable<Pick<DateState, 'date' | 'status' | 'runId' | 'leaseExpiresAt' | 'logicalDate'>>, nowMs: number): RunsInFlight {
  const inFlight: Array<PipelineStatus['inFlight'][number] & { at: number }> = [];
  const stalled: Array<PipelineStatus['stalled'][number] & { at: number }> = [];
  for (const date of dates) {
    if (date.status !== 'running') continue;
    const row = { date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt, at: Date.parse(date.logicalDate) };
    (leaseExpired(date, nowMs) ? stalled : inFlight).push(row);
  }
  return { inFlight: inFlight.sort(byLogicalDate).map(plainRun), stalled: stalled.sort(byLogicalDate).map(plainRun) };
}

function byLogicalDate(a: { at: number }, b: { at: number }): number {
  return a.at - b.at;
}

function plainRun({ date, runId, leaseExpiresAt }: { date: string; runId: string; leaseExpiresAt: string }): PipelineStatus['inFlight'][number] {
  return { date, runId, leaseExpiresAt };
}

/**
 * A `status` row from its parts: lag, the runs in flight and stalled (by logical date), the
 * definition's fields. The one place a row is put together, for the fold and for the read models.
 *
 * @example
 * const row = statusRow({ pipeline, definition, watermark: null, completeThrough: null, firstSlotStart, anyDue: true, behind: 3, pending, blocked: 0, firstBlocked: null, running: [], lastFailure: null, lastSuccess: null, nowMs });
 */
export function statusRow(parts: StatusParts): PipelineStatus {
  const { inFlight, stalled } = 'runs' in parts ? parts.runs : runsInFlight(parts.running, parts.nowMs);
  return statusRowOf(
    parts.pipeline,
    parts.definition,
    parts.watermark,
    parts.completeThrough,
    parts.firstSlotStart,
    parts.anyDue,
    parts.behind,
    parts.pending,
    parts.blocked,
    parts.firstBlocked,
    inFlight,
    stalled,
    parts.lastFailure,
    parts.lastSuccess,
    parts.nowMs,
    parts.lagFromMs,
  );
}

/**
 * `statusRow` with its parts one by one, in `StatusParts`' order (the runs already split and ordered, as
 * `runsInFlight` gives them). For a caller that makes a row per pipeline (`status` over 1,000 pipelines from the
 * summary rows): an object of the parts built for each row, then read back field by field, cost more than the row.
 */
export function statusRowOf(
  pipeline: string,
  definition: PipelineDefinition | null,
  watermark: string | null,
  completeThrough: StatusParts['completeThrough'],
  firstSlotStart: string | null,
  anyDue: boolean,
  behind: number,
  pending: PendingCounts,
  blocked: number,
  firstBlocked: PipelineStatus['firstBlocked'],
  inFlight: PipelineStatus['inFlight'],
  stalled: PipelineStatus['stalled'],
  lastFailure: LastFailure | null,
  lastSuccess: LastSuccess | null,
  nowMs: number,
  lagFromMs: number | undefined,
): PipelineStatus {
  const completeUntil = completeThrough?.dataInterval.end ?? null;
  const lagMs = anyDue || completeThrough ? Math.max(0, nowMs - (lagFromMs ?? Date.parse(completeUntil ?? firstSlotStart ?? ''))) : null;
  return {
    pipeline,
    schedule: definition?.schedule ?? '',
    timezone: definition?.timezone ?? 'UTC',
    watermark,
    completeThrough: completeThrough?.date ?? null,
    completeUntil,
    lagSeconds: lagMs !== null && Number.isFinite(lagMs) ? lagMs / 1000 : null,
    lag: lagMs !== null && Number.isFinite(lagMs) ? formatLag(lagMs) : '-',
    behind,
    pending,
    blocked,
    firstBlocked,
    inFlight,
    stalled,
    lastFailure,
    lastSuccess,
    freshnessSeconds: definition?.freshnessMs === undefined ? null : definition.freshnessMs / 1000,
  };
}

/** Pending counts, all zero. */
export function noPending(): PendingCounts {
  return { total: 0, missing: 0, failed: 0, up_for_retry: 0, interrupted: 0, cleared: 0, stalled: 0, waitingForPrevious: 0, upstream: 0 };
}

/**
 * Why a due slot whose date has `status` (undefined: no row) is pending at `nowMs`, or null when it is
 * not (done, or running on a live lease); before upstreams and depends-on-past are asked.
 */
export function pendingReason(status: DateState['status'] | undefined, leaseExpiresAt: string, nowMs: number): PendingReason | null {
  if (status === undefined) return 'missing';
  switch (status) {
    case 'running':
      return Date.parse(leaseExpiresAt) <= nowMs ? 'stalled' : null;
    case 'success':
    case 'skipped':
      return null;
    case 'failed':
    case 'up_for_retry':
    case 'interrupted':
    case 'cleared':
      return status;
    default: {
      const unknown: never = status;
      throw new Error(`pendingReason: unhandled status ${String(unknown)}`);
    }
  }
}

/** The run that failed last (by when its failure was recorded); a later clear or retry does not hide it. */
export function lastFailure(history: RunHistory): LastFailure | null {
  let last: LastFailure | null = null;
  for (const run of history.runs.values()) {
    if (run.error === null || run.finishedAt === null) continue;
    if (last && Date.parse(run.finishedAt) < Date.parse(last.at)) continue;
    last = { date: run.date, runId: run.runId, at: run.finishedAt, error: tellingLine(run.error) };
  }
  return last;
}

/** The run that succeeded last (by when its success was recorded); a later clear does not hide it. */
export function lastSuccess(history: RunHistory): LastSuccess | null {
  let last: LastSuccess | null = null;
  for (const run of history.runs.values()) {
    if (run.finishedAt === null || runOutcome(run) !== 'success') continue;
    if (last && Date.parse(run.finishedAt) < Date.parse(last.at)) continue;
    last = { date: run.date, runId: run.runId, at: run.finishedAt };
  }
  return last;
}

/**
 * Orders rows worst first: pipelines with stalled runs or failed dates, then
 * by lag (largest first, no lag last), then by how many dates are pending,
 * then by name.
 *
 * @example
 * rows.sort(compareWorstFirst)
 */
export function compareWorstFirst(a: PipelineStatus, b: PipelineStatus): number {
  return (
    broken(b) - broken(a) ||
    (b.lagSeconds ?? -1) - (a.lagSeconds ?? -1) ||
    b.pending.total - a.pending.total ||
    compareNames(a.pipeline, b.pipeline)
  );
}

/**
 * `rows` sorted worst first, as `compareWorstFirst` orders them, in place. Each row's keys are taken once (not twice per
 * comparison), and rows that tie on every key but the name keep their order when it is already by name (what a listing
 * of every pipeline gives), so names are compared only when they are not: over 1,000 pipelines the comparisons were a
 * sixteenth of a cold `status`. `knownByName`: the caller knows the rows are by name (a listing of every pipeline), so
 * that is not checked (a thousand name comparisons more).
 *
 * @example
 * sortWorstFirst(rows)[0] // the worst pipeline
 */
export function sortWorstFirst(rows: PipelineStatus[], knownByName = false): PipelineStatus[] {
  let byName = true;
  if (!knownByName) for (let i = 1; i < rows.length && byName; i++) byName = compareNames((rows[i - 1] as PipelineStatus).pipeline, (rows[i] as PipelineStatus).pipeline) <= 0;
  if (byName && rows.length > 1 && sortedByPackedKeys(rows)) return rows;
  const keyed = new Array<{ row: PipelineStatus; broken: number; lag: number; total: number }>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as PipelineStatus;
    keyed[i] = { row, broken: broken(row), lag: row.lagSeconds ?? -1, total: row.pending.total };
  }
  // Array.prototype.sort is stable: rows already by name stay by name where the other keys tie.
  keyed.sort((a, b) => b.broken - a.broken || b.lag - a.lag || b.total - a.total || (byName ? 0 : compareNames(a.row.pipeline, b.row.pipeline)));
  for (let i = 0; i < keyed.length; i++) rows[i] = (keyed[i] as { row: PipelineStatus }).row;
  return rows;
}

/**
 * Rows by name sorted worst first in place by one native sort of numbers, not a comparison function called n log n
 * times (over 1,000 pipelines that was a sixtieth of a cold `status`): each row's lag and pending total are ranked
 * (largest first) and packed with its broken flag and its index into one number, whose ascending order is
 * `compareWorstFirst`'s with the index breaking ties. False (rows untouched) when a key is NaN or the packed numbers
 * would not be exact integers.
 */
function sortedByPackedKeys(rows: PipelineStatus[]): boolean {
  const n = rows.length;
  const lags = new Float64Array(n);
  const totals = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = rows[i] as PipelineStatus;
    lags[i] = row.lagSeconds ?? -1;
    totals[i] = row.pending.total;
  }
  const lagRank = descendingRanks(lags);
  const totalRank = descendingRanks(totals);
  if (lagRank === undefined || totalRank === undefined || 2 * lagRank.size * totalRank.size * n > Number.MAX_SAFE_INTEGER) return false;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const worse = 1 - broken(rows[i] as PipelineStatus);
    keys[i] = ((worse * lagRank.size + (lagRank.of.get(lags[i] as number) as number)) * totalRank.size + (totalRank.of.get(totals[i] as number) as number)) * n + i;
  }
  keys.sort();
  const before = rows.slice();
  for (let j = 0; j < n; j++) rows[j] = before[(keys[j] as number) % n] as PipelineStatus;
  return true;
}

/**
 * Each distinct value's rank, the largest 0 (0 and -0 one value, as a subtraction compares them); undefined when one is
 * NaN. Sorted, equal values are neighbours: a value is new when it differs from the one before it (no lookup for each of
 * the many equal lags of a fleet).
 */
function descendingRanks(values: Float64Array): { of: Map<number, number>; size: number } | undefined {
  const sorted = values.slice().sort();
  const of = new Map<number, number>();
  let previous = Number.NaN;
  for (let i = sorted.length - 1; i >= 0; i--) {
    const value = sorted[i] as number;
    if (Number.isNaN(value)) return undefined;
    if (value !== previous) of.set(value, of.size);
    previous = value;
  }
  return { of, size: of.size };
}

/** 1 for a pipeline with a failed or stalled date, else 0. */
function broken(status: PipelineStatus): number {
  return status.stalled.length > 0 || status.pending.failed > 0 ? 1 : 0;
}

/**
 * The row with its pipeline's pause, when it has one (a row of a pipeline that is not paused is returned as it is).
 *
 * @example
 * withPause(row, state.paused).paused?.reason // 'vendor outage'
 */
export function withPause(row: PipelineStatus, paused: PipelineControl | null): PipelineStatus {
  return paused === null ? row : { ...row, paused };
}
