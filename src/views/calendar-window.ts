import { LedgerError } from '../errors.js';
import { parseRangeEnd, parseRangeStart } from '../timetable/parse-range-end.js';
import type { Timetable } from '../timetable/timetable.js';

/**
 * What a pipeline page was asked to show of its calendar: `to` (a date; default now), `from`, and `rows` (months or
 * days); `until`, the end of the range being paged (a history-strip bucket's `to`), which no page goes past.
 */
export type CalendarWindowInput = { from?: string; to?: string; rows?: number; until?: string };

/**
 * The rows of a calendar page as a range of the pipeline's dates, and where
 * the pages beside it start. `from`/`to` are instants to read `state` with
 * (null when nothing is due yet); `older.to` and `newer.to` are the `to` of
 * the pages before and after (`newer.to` null: the latest page).
 */
export type CalendarWindow = {
  layout: 'month' | 'day';
  from: string | null;
  to: string | null;
  /** True when the window reaches the last due slot, so the rest of its row is shown as not due. */
  latest: boolean;
  rows: number;
  older: { rows: number; to: string } | null;
  newer: { to: string | null } | null;
};

const DAY_MS = 86_400_000;

/** Cells a calendar page shows by default: a minutely pipeline gets its last day (its hours, each the worst of its minutes), not 31 days of minutes; older days page. */
const CALENDAR_CELL_BUDGET = 1_500;

/** How many day rows the calendar shows by default: 31, or as many days as `CALENDAR_CELL_BUDGET` cells hold. */
export function defaultDayRows(timetable: Timetable, nowMs: number): number {
  const last = timetable.lastDue(nowMs);
  if (last === undefined) return 31;
  const at = Date.parse(last.logicalDate);
  const perDay = timetable.countSlots(at - DAY_MS, at);
  return Math.max(1, Math.min(31, Math.floor(CALENDAR_CELL_BUDGET / Math.max(1, perDay))));
}



/**
 * Which calendar rows a page shows: the `rows` rows that end with the row of
 * `to` (default: the row of the last due slot), never before the pipeline's
 * first slot or `from` (and not past `to` itself, when a history-strip range
 * ends inside its row). A month row per month for daily keys, a day row per
 * local day otherwise. Only row arithmetic: nothing is read, so a page of an
 * old window costs its own rows, and each older link starts where the last
 * page's first row ends, so walking them lists every row once.
 *
 * @example
 * calendarWindow(daily, Date.parse('2026-11-05T00:00:00Z'), { rows: 12 }).older // { rows: 3, to: '2025-11-30' } for a start in 2025-09
 */
export function calendarWindow(timetable: Timetable, nowMs: number, input: CalendarWindowInput, defaultRows: number): CalendarWindow {
  const monthly = timetable.dailyKeys;
  const rows = input.rows ?? defaultRows;
  const layout = monthly ? 'month' : 'day';
  const first = timetable.first();
  const empty: CalendarWindow = { layout, from: null, to: null, latest: true, rows, older: null, newer: null };
  if (!first) return empty;
  const localDay = (ms: number) => timetable.formatInstant(ms).slice(0, 10);
  const rowOf = (day: string) => (monthly ? Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 : Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS);
  const firstDayOf = (row: number) => (monthly ? `${pad(Math.floor(row / 12), 4)}-${pad((row % 12) + 1, 2)}-01` : new Date(row * DAY_MS).toISOString().slice(0, 10));
  const lastDayOf = (row: number) => (monthly ? new Date(Date.UTC(Math.floor(row / 12), (row % 12) + 1, 0)).toISOString().slice(0, 10) : firstDayOf(row));
  const startOf = (row: number) => parseRangeStart(timetable, firstDayOf(row));

  const lastDue = timetable.lastDue(nowMs);
  const firstRow = rowOf(first.date.slice(0, 10));
  const latestRow = rowOf((lastDue ?? first).date.slice(0, 10));
  const fromMs = input.from === undefined ? null : parseRangeStart(timetable, input.from);
  const floorRow = Math.max(firstRow, fromMs === null ? firstRow : rowOf(localDay(fromMs)));
  const untilMs = input.until === undefined ? Number.POSITIVE_INFINITY : parseRangeEnd(timetable, input.until);
  const ceilingRow = input.until === undefined ? latestRow : Math.max(floorRow, Math.min(latestRow, rowOf(localDay(untilMs))));
  const asked = input.to === undefined ? ceilingRow : rowOf(localDay(Math.min(parseRangeEnd(timetable, input.to), untilMs)));
  if (input.from !== undefined && input.to !== undefined && fromMs !== null && fromMs > parseRangeEnd(timetable, input.to)) {
    throw new LedgerError('input.invalidRange', `from ${input.from} is after to ${input.to}; give the earlier date first`);
  }
  // Never a page of the future, nor one before the first slot.
  const anchor = Math.max(floorRow, Math.min(asked, ceilingRow));
  const start = Math.max(floorRow, anchor - rows + 1);
  const latest = anchor === latestRow;
  if (latest && !lastDue) return { ...empty, rows };
  const windowFrom = Math.max(startOf(start), fromMs ?? Number.NEGATIVE_INFINITY);
  // A `to` inside its row (a history-strip bucket ends mid-day or mid-month) ends the window there; paging links name whole rows.
  const toMs = Math.min(input.to === undefined ? Number.POSITIVE_INFINITY : parseRangeEnd(timetable, input.to), untilMs);
  const windowTo = Math.min(latest && lastDue ? Date.parse(lastDue.logicalDate) : startOf(anchor + 1) - 1, toMs);
  return {
    layout,
    from: new Date(windowFrom).toISOString(),
    to: new Date(windowTo).toISOString(),
    latest,
    rows,
    older: start > floorRow ? { rows: start - floorRow, to: lastDayOf(start - 1) } : null,
    // Inside a range, the newest page ends at the range's end, not at the latest row.
    newer: anchor >= ceilingRow ? null : { to: anchor + rows >= ceilingRow ? (input.until ?? null) : lastDayOf(anchor + rows) },
  };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
