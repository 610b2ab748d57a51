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
