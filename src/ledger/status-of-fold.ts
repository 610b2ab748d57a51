import { isDone, type DateStatus } from '../../projections/date-state.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { RunHistory } from '../../projections/run-history.js';
import type { Slot } from '../../projections/slot.js';
import { lastFailure, lastSuccess, noPending, pendingReason, pipelineStatus, statusRow, type PipelineStatus, type PipelineStatusInput } from '../../projections/views/pipeline-status.js';
import type { Timetable } from '../timetable/timetable.js';
import { slotsFrom } from './slots.js';

/** A row of the fold on a slot: the slot's tick, and the row's status and lease. */
type SlotRow = { at: number; status: DateStatus; lease: string };

/**
 * The tick of the slot a row is kept under, or undefined when its key is no slot's (an off-schedule run): its own
 * logical date's slot, or, for a key of an earlier keying of the same slot (after a zone change), the slot of its key.
 */
function slotTickOf(timetable: Timetable, date: string, logicalDate: string): number | undefined {
  const at = Date.parse(logicalDate);
  if (timetable.slotKeyAt(at) === date) return at;
  let keyed: number;
  try {
    keyed = timetable.parseDate(date);
  } catch {
    return undefined;
  }
  return timetable.slotKeyAt(keyed) === date ? keyed : undefined;
}

/**
 * A pipeline's `status` row from its fold (a page or an answer of the past), in what its rows cost, not its slots:
 * what `pipelineStatus` finds walking every slot from the first (57 years of minutes are 30 million), found from the
 * rows. Complete-through is walked from the first slot only while each has a done row; the due slots after it are
 * counted by the timetable's arithmetic; each row among them gives its reason, the slots between rows are `missing`
 * (for a pipeline that depends on its past, the first of a stretch after a slot not done, and every one of them,
 * wait for the previous). With `blocked` (upstreams), each pending slot is asked, so the slots are walked as before.
 *
 * @example
 * const { state, history, timetable } = await ledger.pipeline('etl_orders', { position: 120 });
 * statusOfFold({ timetable, state, history, nowMs }).pending.total // 29934721 for a minutely pipeline from 1970 with no runs
 */
export function statusOfFold(input: { timetable: Timetable; state: PipelineState; history?: RunHistory; nowMs: number; blocked?: PipelineStatusInput['blocked'] }): PipelineStatus {
  const { timetable, state, nowMs } = input;
  if (input.blocked !== undefined) return pipelineStatus({ state, ...(input.history === undefined ? {} : { history: input.history }), slots: slotsFrom(timetable), nowMs, blocked: input.blocked });
  const first = timetable.first();
  let through: Slot | undefined;
  for (let slot = first; slot !== undefined && isDone(state.dates.get(slot.date)?.status); slot = timetable.next(slot)) through = slot;
  const last = timetable.lastDue(nowMs);
  const throughMs = through === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(through.logicalDate);
  const lastMs = last === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(last.logicalDate);
  const rows: SlotRow[] = [];
  for (const date of state.dates.values()) {
    const at = slotTickOf(timetable, date.date, date.logicalDate);
    if (at !== undefined && at > throughMs && at <= lastMs) rows.push({ at, status: date.status, lease: date.leaseExpiresAt });
  }
  rows.sort((a, b) => a.at - b.at);
  const pending = noPending();
  const add = (reason: keyof typeof pending, n = 1) => {
    pending[reason] += n;
    pending.total += n;
  };
  const behind = lastMs > throughMs ? timetable.countSlots(throughMs, lastMs) : 0;
  const dependsOnPast = state.definition?.dependsOnPast === true;
  // Whether the slot before the next one is done: complete-through's is; the first slot waits for nothing (null).
  let previousDone: boolean | null = through === undefined ? null : true;
  let position = throughMs;
  // The slots without a row between two rows: missing, or, depending on the past, waiting for the one before them.
  const gap = (n: number) => {
    if (n <= 0) return;
    if (!dependsOnPast) return add('missing', n);
    if (previousDone === false) return add('waitingForPrevious', n);
    add('missing');
    if (n > 1) add('waitingForPrevious', n - 1);
    previousDone = false;
  };
  for (const row of rows) {
    gap(timetable.countSlots(position, row.at - 1));
    const waiting = dependsOnPast && previousDone === false && row.status === 'cleared';
    const reason = waiting ? 'waitingForPrevious' : pendingReason(row.status, row.lease, nowMs);
    if (reason !== null) add(reason);
    previousDone = isDone(row.status);
    position = row.at;
  }
  if (lastMs > position) gap(timetable.countSlots(position, lastMs));
  return statusRow({
    pipeline: state.pipeline,
    definition: state.definition,
    watermark: state.watermark?.date ?? null,
    completeThrough: through ?? null,
    firstSlotStart: first?.dataInterval.start ?? null,
    anyDue: last !== undefined,
    behind,
    pending,
    blocked: 0,
    firstBlocked: null,
    running: state.dates.values(),
    lastFailure: input.history === undefined ? null : lastFailure(input.history),
    lastSuccess: input.history === undefined ? null : lastSuccess(input.history),
    nowMs,
  });
}
