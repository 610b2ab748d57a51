import { leaseExpired } from '../../projections/date-state.js';
import { cellNote } from '../../projections/views/calendar.js';
import type { StripCell } from '../../projections/views/status-strip.js';
import { rangeOf } from '../ledger/resolve-keys.js';
import { byInstantSlotFirst } from '../ledger/page-rows.js';
import { boundedSlots } from '../ledger/slots.js';
import type { StripDate } from '../store/read-model-rows.js';
import type { ReadModels } from '../store/read-models.js';
import type { Timetable } from '../timetable/timetable.js';

/**
 * Where a strip of the last `length` due slots reads, for one timetable at one instant: the range of `state` from the
 * `length`-th due slot back (the whole state with fewer), the instants its off-schedule rows may sit between, and its
 * slots, each with the missing cell it draws when its key has no row. The pipelines of one schedule share it: an
 * overview walks their slots once, not once per pipeline.
 */
export type StripRange = {
  fromMs: number;
  toMs: number;
  offFrom: number;
  offTo: number;
  slots: ReadonlyArray<{ at: number; key: string; missing: StripCell }>;
};

/**
 * The range a strip of the last `length` due slots reads (see `StripRange`).
 *
 * @example
 * const range = stripRange(timetable, Date.now(), 30); // range.slots.length === 30 once 30 slots are due
 */
export function stripRange(timetable: Timetable, nowMs: number, length: number): StripRange {
  let slot = timetable.lastDue(nowMs);
  for (let n = 1; slot !== undefined && n < length; n++) {
    const before = timetable.slotAtOrBefore(Date.parse(slot.logicalDate) - 1);
    slot = before === undefined || before.date === slot.date ? undefined : before;
  }
  const [fromMs, toMs] = rangeOf(timetable, slot === undefined ? {} : { from: slot.date }, nowMs);
  const slots: Array<StripRange['slots'][number]> = [];
  for (const s of boundedSlots(timetable, fromMs, toMs)) slots.push({ at: Date.parse(s.logicalDate), key: s.date, missing: Object.freeze({ date: s.date, status: 'missing', error: null, note: null }) });
  // Off-schedule rows: after the last due slot up to now, and before the first slot when the range starts there.
  return { fromMs, toMs, offFrom: slot === undefined ? Number.NEGATIVE_INFINITY : fromMs, offTo: Math.max(toMs, nowMs), slots };
}

/**
 * The overview's strip of a pipeline from the read models: the cells `statusStrip` draws from `state` read
 * from the `length`-th due slot back (or the whole state, with fewer due slots), without building that
 * state. Only the dates of that range are read, once, and only the columns a cell shows; no summary row is read again (the
 * caller has its timetable), no upstream is read (a strip shows no blocked mark) and no `state` row is made.
 * `state` for the strip of each of 1,000 pipelines allocated 140 MB an overview.
 *
 * The rows are `state`'s, in its order: the slots of the range, each replaced by the date row of its key;
 * the date rows inside the range, and off-schedule ones up to now (and before the first slot when the
 * range is the whole state), by instant, a slot's key first, then by key.
 *
 * @example
 * const strip = await tableStrip(models, 'etl_orders', timetable, stripRange(timetable, Date.now(), 30), Date.now(), 30); // [{ date: '2026-10-07', status: 'success', … }, …]
 */
export async function tableStrip(models: ReadModels, pipeline: string, timetable: Timetable, range: StripRange, nowMs: number, length: number): Promise<StripCell[]> {
  const { fromMs, toMs, offFrom, offTo } = range;
  const recorded: Array<{ at: number; key: string; cell: StripCell }> = [];
  for (const date of await models.stripDates(pipeline, Math.max(offFrom, Number.MIN_SAFE_INTEGER), offTo)) {
    const at = date.logicalMs;
    if (date.offSchedule ? at < offFrom || at > offTo : at < fromMs || at > toMs) continue;
    recorded.push({ at, key: date.date, cell: cellOf(date, nowMs, timetable) });
  }
  recorded.sort(byInstantSlotFirst(timetable));
  // The slots in order, a slot whose key has a row left out for it, each row before the first slot after it (`pageOfRows` without a limit).
  const stated = new Set(recorded.map((r) => r.key));
  const cells: StripCell[] = [];
  let i = 0;
  for (const slot of range.slots) {
    if (stated.has(slot.key)) continue;
    for (; i < recorded.length && (recorded[i]?.at ?? 0) < slot.at; i++) cells.push((recorded[i] as (typeof recorded)[number]).cell);
    cells.push(slot.missing);
  }
  for (; i < recorded.length; i++) cells.push((recorded[i] as (typeof recorded)[number]).cell);
  return cells.slice(-length);
}

/** A date row's strip cell, as `statusStrip` draws its `state` row: a running key whose lease ran out is stalled. */
function cellOf(date: StripDate, nowMs: number, timetable: Timetable): StripCell {
  const stalled = date.leaseExpiresAt !== null && leaseExpired({ status: date.status, leaseExpiresAt: date.leaseExpiresAt }, nowMs);
  return { date: date.date, status: stalled ? 'stalled' : date.status, error: date.error, note: cellNote(date, (iso) => timetable.formatInstant(Date.parse(iso))) };
}
