import { STATUS_SEVERITY, type CellStatus } from './calendar.js';

/** The calendar period a column of an aggregated strip stands for (a long pipeline's strip has one per period). */
export type StripPeriod = 'day' | 'month' | 'quarter' | 'year';

/**
 * One column of the history strip: a run of consecutive keys, coloured by the worst status inside. A column of a
 * period also names it (`label`: `2026-11`, `2026 Q4`) and the bare local dates that ask the calendar for it (`range`).
 */
export type StripBucket = { from: string; to: string; count: number; status: CellStatus; failed: number; period?: { unit: StripPeriod; label: string; range: { from: string; to: string } } };

/**
 * The whole history of a pipeline compressed to at most `maxColumns`
 * columns: one per key while they fit, else one per bucket of consecutive
 * keys, each with the worst status inside, so one failed hour among 90,000
 * still shows. Keys come oldest first, as two arrays of the same length (the
 * key at an index and its status): 90,000 objects of one each cost a report
 * more memory than the page it draws.
 *
 * @example
 * historyStrip({ dates: state.dates.map((d) => d.date), statuses: state.dates.map(cellStatus) }, 600).length // ≤ 600
 */
export function historyStrip(keys: { dates: readonly string[]; statuses: readonly CellStatus[] }, maxColumns: number): StripBucket[] {
  const { dates, statuses } = keys;
  const length = dates.length;
  if (length === 0 || maxColumns < 1) return [];
  const size = Math.ceil(length / maxColumns);
  const out: StripBucket[] = [];
  for (let i = 0; i < length; i += size) {
    const first = dates[i];
    let status = statuses[i];
    if (first === undefined || status === undefined) break;
    let failed = 0;
    let last = first;
    for (let j = i; j < Math.min(length, i + size); j++) {
      const date = dates[j];
      const keyStatus = statuses[j];
      if (date === undefined || keyStatus === undefined) continue;
      if (STATUS_SEVERITY[keyStatus] > STATUS_SEVERITY[status]) status = keyStatus;
      if (keyStatus === 'failed') failed += 1;
      last = date;
    }
    out.push({ from: first, to: last, count: Math.min(size, length - i), status, failed });
  }
  return out;
}
