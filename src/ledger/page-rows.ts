import { parseRangeStart } from '../timetable/parse-range-end.js';
import type { Timetable } from '../timetable/timetable.js';

/** A listed row with the instant it sorts by (its logical date), parsed once. */
export type Timed<Row> = { at: number; key: string; row: Row };

/**
 * The order of recorded rows in `state`, the served pages and the overview's strip: by instant, the slot's own key
 * first among rows of one instant (an off-schedule key beside a slot's, or keys written in two zones), then by key.
 * The fold, the tables and every page list them alike.
 *
 * @example
 * recorded.sort(byInstantSlotFirst(timetable));
 */
export function byInstantSlotFirst(timetable: Timetable): (a: { at: number; key: string }, b: { at: number; key: string }) => number {
  const onSlot = (row: { at: number; key: string }) => (timetable.slotKeyAt(row.at) === row.key ? 0 : 1);
  return (a, b) => a.at - b.at || onSlot(a) - onSlot(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * One page of a range listed from two sorted sources: the timetable's slots
 * (lazily: the walk stops once the page is full, so a page of an endless range
 * costs its own length) and the rows that have a state, which replace the slot
 * of the same key (`stated`: the keys with a state anywhere in the range,
 * default those of `recorded`; a key kept from an earlier timetable may sit
 * at another instant than its slot, past the page). Oldest first; ties keep
 * slots first.
 *
 * A page never ends between two rows of the same instant (an off-schedule key
 * beside a slot of an earlier timetable): it ends before them, unless they
 * alone fill it, so the next page, which starts at that instant, lists every
 * row exactly once.
 *
 * @example
 * const { rows, next } = pageOfRows(slotRows, recordedRows, 1000); // next: the first row of the next page, or null
 */
export function pageOfRows<Row>(slots: Iterable<Timed<Row>>, recorded: readonly Timed<Row>[], limit: number | undefined, stated: ReadonlySet<string> = new Set(recorded.map((r) => r.key))): { rows: Row[]; next: Timed<Row> | null } {
  const page: Timed<Row>[] = [];
  for (const row of mergeByInstant(slots, recorded, stated)) {
    const last = page.at(-1);
    if (limit !== undefined && page.length >= limit && last) {
      if (row.at !== last.at) return { rows: page.map((t) => t.row), next: row };
      const start = page.findIndex((t) => t.at === row.at);
      if (start > 0) return { rows: page.slice(0, start).map((t) => t.row), next: page[start] ?? null };
      // One instant holds more rows than a page: that instant is the whole page.
    }
    page.push(row);
  }
  return { rows: page.map((t) => t.row), next: null };
}

function* mergeByInstant<Row>(slots: Iterable<Timed<Row>>, recorded: readonly Timed<Row>[], keys: ReadonlySet<string>): Generator<Timed<Row>> {
  let i = 0;
  for (const slot of slots) {
    if (keys.has(slot.key)) continue;
    for (; i < recorded.length && (recorded[i] as Timed<Row>).at < slot.at; i++) yield recorded[i] as Timed<Row>;
    yield slot;
  }
  for (; i < recorded.length; i++) yield recorded[i] as Timed<Row>;
}

/**
 * The `from` text that starts a range exactly at a row: its key when the key
 * reads back as its own instant (`2026-11-03`, `2026-11-03T05:00:00+07:00`),
 * else its logical date as an instant (a key kept from an earlier timetable).
 *
 * @example
 * cursorFrom(dailyTimetable, { at, key: '2026-11-03', row }, '2026-11-03T00:00:00+07:00') // '2026-11-03'
 */
export function cursorFrom(timetable: Timetable, key: string, at: number, logicalDate: string): string {
  try {
    if (parseRangeStart(timetable, key) === at) return key;
  } catch {
    // A key the current timetable cannot read: the instant says it.
  }
  return logicalDate;
}

/**
 * The last instant a page of `limit` rows starting at `fromMs` can reach: the
 * logical date of the range's (limit+1)-th slot, leaving out the slots of
 * `moved` keys (a day key kept from an earlier zone, whose state sits at
 * another instant), or `toMs` when the range holds fewer. Every other slot
 * is a row at its own instant, with or without a state, and the other dates
 * with a state only add rows, so the page ends by then: its dates with a
 * state are read up to it, and a page of a long range reads its own rows,
 * not the range's.
 *
 * @example
 * pageEnd(hourly, Date.parse('2026-11-02T00:00:00Z'), Date.parse('2040-01-01T00:00:00Z'), 24, new Set()) // Date.parse('2026-11-03T00:00:00Z')
 */
export function pageEnd(timetable: Timetable, fromMs: number, toMs: number, limit: number | undefined, moved: ReadonlySet<string>): number {
  if (limit === undefined) return toMs;
  // A range that holds no more slots than the page is read whole: counted, not walked (a day of minutes was 1,440 slots built).
  if (moved.size === 0 && toMs >= fromMs && timetable.countSlots(fromMs - 1, toMs) <= limit) return toMs;
  let count = 0;
  for (const slot of timetable.slotsBetween(fromMs, toMs)) {
    if (moved.has(slot.date)) continue;
    if (++count > limit) return Date.parse(slot.logicalDate);
  }
  return toMs;
}
