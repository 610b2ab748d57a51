import type { ClearedBecause } from '../date-state.js';
import type { BlockedBy } from '../upstream-slots.js';
import { clearedBecause, waitsForText } from './cleared-because.js';

/**
 * The status of one calendar cell: a date's status (missing, running, success, skipped, failed, up for retry,
 * cleared, interrupted), a running key whose lease ran out (`stalled`), and slots that are not due yet.
 * `interrupted`: its runner was stopped; the same backfill resumes it. `skipped`: marked by hand as nothing to do.
 */
export type CellStatus = 'success' | 'skipped' | 'failed' | 'up_for_retry' | 'running' | 'stalled' | 'interrupted' | 'cleared' | 'missing' | 'not-due';

/** Every cell status, in the order legends list them. */
export const CELL_STATUSES: readonly CellStatus[] = ['success', 'skipped', 'failed', 'up_for_retry', 'running', 'stalled', 'interrupted', 'cleared', 'missing', 'not-due'];

/**
 * Why a key shares a cell with another: the second of a repeated DST hour
 * (`01:00-04:00` then `01:00-05:00`), an off-schedule manual run, or another
 * slot of the same hour (schedules finer than hourly).
 */
export type ExtraKind = 'repeated-hour' | 'off-schedule' | 'same-hour';

/** A key drawn as a mark on another key's cell, never as a column of its own. */
export type CalendarExtra = {
  date: string;
  status: CellStatus;
  kind: ExtraKind;
  watermark: boolean;
  completeThrough: boolean;
  attempts: number;
  error: string | null;
};

export type CalendarCell = {
  date: string;
  /** The key's status; with `same-hour` extras, the worst status of the hour. */
  status: CellStatus;
  /** Its wall-clock position: day of the month (0-based) for month rows; local hour for day rows. */
  column: number;
  watermark: boolean;
  completeThrough: boolean;
  attempts: number;
  /** The error of a failed key, for a tooltip. */
  error: string | null;
  /** True when the key itself is an off-schedule run (no slot at this position). */
  offSchedule: boolean;
  /** Other keys at the same position, oldest first. */
  extras: CalendarExtra[];
  /**
   * Why a date that is not done waits (`waits for orders_raw … (failed)`) or was cleared by a cascade
   * (`cleared because …`), for a blocked cell's mark and tooltip; absent otherwise.
   */
  blocked?: string;
  /** What else the tooltip says: who marked it and why, or the attempt a retry waits for (null for neither). */
  note: string | null;
};

export type CalendarRow = { label: string; cells: CalendarCell[] };

export type CalendarView = {
  /** `month`: a row per month, a column per day (daily-or-coarser keys); `day`: a row per local day, a column per hour. */
  layout: 'month' | 'day';
  columns: number;
  rows: CalendarRow[];
  /** Older rows left out (the most recent ones are kept). */
  hiddenRows: number;
  watermark: string | null;
  completeThrough: string | null;
  /** Cells per status over the whole range, hidden rows included. */
  counts: Record<CellStatus, number>;
};

/** What the calendar needs of a `state` row (the `dates[]` of `state --json` fits). */
export type CalendarInput = {
  date: string;
  status: 'missing' | 'not-due' | 'running' | 'success' | 'skipped' | 'failed' | 'up_for_retry' | 'interrupted' | 'cleared';
  stalled: boolean;
  attempts: number;
  error: string | null;
  /** An off-schedule manual run's key (`state` rows carry it). */
  offSchedule?: boolean;
  blockedBy?: BlockedBy;
  clearCause?: ClearedBecause;
  /** A date marked by hand: the reason, for the tooltip. */
  mark?: { status: string; actor: string; reason: string };
  /** A date under a retry policy: the attempt it is on or waits for, and when. */
  retry?: { attempt: number; of: number; nextAt: string | null };
};

export type CalendarOptions = {
  /** The rows of `state`, oldest first. */
  dates: readonly CalendarInput[];
  /** Keys of slots not due yet, to fill the last row (oldest first). */
  notDue?: readonly string[];
  /** True when keys are `YYYY-MM-DD` (a row per month); else a row per local day. */
  dailyKeys: boolean;
  watermark: string | null;
  completeThrough: string | null;
  /** Keep at most this many rows, the most recent (default: all). */
  maxRows?: number;
  /** How a tooltip shows an instant (a retry's time): the pipeline's zone with its offset, as tables do (default: as stored). */
  instant?: (iso: string) => string;
};

/**
 * Lays the dates of a pipeline out as a calendar: a month per row for
 * daily-or-coarser pipelines, a local day per row (24 hour columns) for the
 * rest. Keys carry their local wall time, so rows and columns are read from
 * the key itself: a cell's column is its wall-clock position. A key whose
 * position is taken (the repeated hour of a fall-back day, an off-schedule
 * run on a scheduled day, a second slot in one hour) is kept as an extra of
 * that cell, so nothing after it shifts.
 *
 * @example
 * buildCalendar({ dates: state.dates, dailyKeys: true, watermark: state.watermark, completeThrough: state.completeThrough }).rows[0]?.label // '2026-11'
 */
export function buildCalendar(options: CalendarOptions): CalendarView {
  const counts = Object.fromEntries(CELL_STATUSES.map((s) => [s, 0])) as Record<CellStatus, number>;
  const rows: CalendarRow[] = [];
  const layout = options.dailyKeys ? 'month' : 'day';
  const add = (date: string, status: CellStatus, attempts: number, error: string | null, offSchedule: boolean, note: string | null, blocked?: string) => {
    counts[status] += 1;
    const label = layout === 'month' ? date.slice(0, 7) : date.slice(0, 10);
    const parsed = layout === 'month' ? Number(date.slice(8, 10)) - 1 : Number(date.slice(11, 13));
    const column = Number.isInteger(parsed) && parsed >= 0 ? parsed : 0;
    let row = rows.at(-1);
    if (!row || row.label !== label) {
      row = { label, cells: [] };
      rows.push(row);
    }
    const watermark = date === options.watermark;
    const completeThrough = date === options.completeThrough;
    // Keys arrive in logical-date order, so a key sharing a position comes after the one that holds it.
    const lastCell = row.cells.at(-1);
    const holder = lastCell?.column === column ? lastCell : row.cells.find((c) => c.column === column);
    if (holder) {
      const kind: ExtraKind = offSchedule ? 'off-schedule' : sameSecond(date, holder.date) ? 'repeated-hour' : 'same-hour';
      holder.extras.push({ date, status, kind, watermark, completeThrough, attempts, error });
      if (kind === 'same-hour' && STATUS_SEVERITY[status] > STATUS_SEVERITY[holder.status]) holder.status = status;
      return;
    }
    const cell: CalendarCell = { date, status, column, watermark, completeThrough, attempts, error, note, offSchedule, extras: [] };
    if (blocked !== undefined) cell.blocked = blocked;
    row.cells.push(cell);
  };
  for (const d of options.dates) add(d.date, cellStatus(d), d.attempts, d.status === 'failed' || d.status === 'up_for_retry' ? d.error : null, d.offSchedule === true, cellNote(d, options.instant), blockedText(d));
  for (const date of options.notDue ?? []) add(date, 'not-due', 0, null, false, null);
  const keep = options.maxRows === undefined ? rows.length : Math.max(0, options.maxRows);
  const hiddenRows = Math.max(0, rows.length - keep);
  return {
    layout,
    columns: layout === 'month' ? 31 : 24,
    rows: rows.slice(hiddenRows),
    hiddenRows,
    watermark: options.watermark,
    completeThrough: options.completeThrough,
    counts,
  };
}

/**
 * The words a cell adds about a mark or a retry: `marked skipped by alice: holiday`, `attempt 2 of 4, next at …`.
 *
 * @example
 * cellNote({ status: 'up_for_retry', retry: { attempt: 2, of: 4, nextAt: '2026-11-03T00:05:00Z' } }) // 'attempt 2 of 4, next at 2026-11-03T00:05:00Z'
 */
export function cellNote(row: Pick<CalendarInput, 'status' | 'mark' | 'retry'>, instant: (iso: string) => string = (iso) => iso): string | null {
  if (row.mark && (row.status === 'success' || row.status === 'skipped')) return `marked ${row.mark.status} by ${row.mark.actor}${row.mark.reason ? `: ${row.mark.reason}` : ''}`;
  if (row.retry && row.status === 'up_for_retry' && row.retry.nextAt !== null) return `attempt ${row.retry.attempt} of ${row.retry.of}, next at ${instant(row.retry.nextAt)}`;
  if (row.retry && row.status !== 'missing' && row.status !== 'cleared') return `attempt ${row.retry.attempt} of ${row.retry.of}`;
  return null;
}

/**
 * How bad each status is, for a cell or a strip bucket that stands for
 * several keys: it takes the worst one inside.
 */
export const STATUS_SEVERITY: Readonly<Record<CellStatus, number>> = {
  'not-due': 0,
  success: 1,
  skipped: 2,
  running: 3,
  cleared: 4,
  interrupted: 5,
  missing: 6,
  stalled: 7,
  up_for_retry: 8,
  failed: 9,
};

/** True when two keys name the same wall time to the second (their first 19 characters), compared without slicing either. */
function sameSecond(a: string, b: string): boolean {
  const n = Math.min(19, Math.max(a.length, b.length));
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/** The words of a row's `blockedBy` and `clearCause`, or undefined when it has neither. */
function blockedText(row: CalendarInput): string | undefined {
  // Most rows have neither: no array is made for them (a day of minutes is 1,440 rows).
  if (!row.clearCause && !row.blockedBy) return undefined;
  const parts = [row.clearCause ? clearedBecause(row.clearCause) : '', row.blockedBy ? waitsForText(row.blockedBy) : ''].filter(Boolean);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** The cell status of a state row: a running key whose lease expired is stalled. */
export function cellStatus(row: Pick<CalendarInput, 'status' | 'stalled'>): CellStatus {
  return row.status === 'running' && row.stalled ? 'stalled' : row.status;
}
