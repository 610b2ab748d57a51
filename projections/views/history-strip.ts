import { STATUS_SEVERITY, type CellStatus } from './calendar.js';

/** One column of the history strip: a run of consecutive keys, coloured by the worst status inside. */
export type StripBucket = { from: string; to: string; count: number; status: CellStatus; failed: number };

/**
 * The whole history of a pipeline compressed to at most `maxColumns`
 * columns: one per key while they fit, else one per bucket of consecutive
 * keys, each with the worst status inside, so one failed hour among 90,000
 * still shows. Keys come oldest first.
 *
 * @example
 * historyStrip(state.dates.map((d) => ({ date: d.date, status: cellStatus(d) })), 600).length // ≤ 600
 */
export function historyStrip(keys: ReadonlyArray<{ date: string; status: CellStatus }>, maxColumns: number): StripBucket[] {
  if (keys.length === 0 || maxColumns < 1) return [];
  const size = Math.ceil(keys.length / maxColumns);
  const out: StripBucket[] = [];
  for (let i = 0; i < keys.length; i += size) {
    const first = keys[i];
    if (!first) break;
    let status = first.status;
    let failed = 0;
    let last = first;
    for (let j = i; j < Math.min(keys.length, i + size); j++) {
      const key = keys[j];
      if (!key) continue;
      if (STATUS_SEVERITY[key.status] > STATUS_SEVERITY[status]) status = key.status;
      if (key.status === 'failed') failed += 1;
      last = key;
    }
    out.push({ from: first.date, to: last.date, count: Math.min(size, keys.length - i), status, failed });
  }
  return out;
}
