import { cellNote, cellStatus, type CalendarInput, type CellStatus } from './calendar.js';

export type StripCell = { date: string; status: CellStatus; error: string | null; note: string | null };

/**
 * The overview's status strip: the last `length` slots of a pipeline, oldest
 * first, each with its cell status (a running key whose lease expired is
 * stalled) and, for a failed one, its error.
 *
 * @example
 * statusStrip(state.dates, 30).map((c) => c.status) // ['success', 'success', 'failed', …]
 */
export function statusStrip(dates: readonly CalendarInput[], length: number, instant?: (iso: string) => string): StripCell[] {
  return dates.slice(-length).map((d) => ({ date: d.date, status: cellStatus(d), error: d.status === 'failed' || d.status === 'up_for_retry' ? d.error : null, note: cellNote(d, instant) }));
}

/**
 * Whether a row of `state` is drawn in a strip of due slots: every row but one recorded on a slot after the last due
 * one (`lastDueMs`, -Infinity when none is due), which `state` shows (a redefinition from daily to @weekly can make a
 * recorded date's slot one not due yet) but no column of the strip is. Off-schedule rows after the last due slot are
 * drawn, as `state` lists them.
 *
 * @example
 * state.dates.filter((row) => inDueStrip(row, Date.parse('2026-11-04T00:00:00Z'))) // drops a running '2026-11-08' of a weekly slot
 */
export function inDueStrip(row: { offSchedule?: boolean; logicalDate: string }, lastDueMs: number): boolean {
  return row.offSchedule === true || !(Date.parse(row.logicalDate) > lastDueMs);
}
