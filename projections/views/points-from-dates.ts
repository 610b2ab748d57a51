import type { HistoryPoint } from './pipeline-history.js';

/** A date and its logical date (the watermark or complete-through as they stand). */
export type Mark = { date: string; logicalDate: string };

/** What `pointsFromDates` needs of a date as it stands now (a light state row fits). */
export type DatePointInput = { date: string; logicalDate: string; status: string; startedAt: string | null; finishedAt: string | null };

/**
 * The chart's points from the latest dates as they stand now, oldest logical date first: the
 * watermark reached a successful date when it finished, unless a later date had finished before
 * it (at the same instant, the earlier date first); complete-through reached a date up to `completeThrough` when the last of the dates up to
 * it finished. It reads only the dates it is given (the page's most recent ones), so a history
 * of clears and re-runs before them is not drawn: the fold over the events (`historyFold`, the
 * as-of page and the report) draws that. `position` numbers the moves in order.
 *
 * @example
 * pointsFromDates(lastDates, { watermark, completeThrough }).at(-1)?.watermark // the watermark now
 */
export function pointsFromDates(dates: readonly DatePointInput[], now: { watermark: Mark | null; completeThrough: Mark | null }): HistoryPoint[] {
  const completeThrough = now.completeThrough?.date ?? null;
  type Move = { ms: number; kind: 'watermark' | 'through'; date: string; logicalDate: string };
  const moves: Move[] = [];
  const finished = (d: DatePointInput) => Date.parse(d.finishedAt ?? d.startedAt ?? '');
  let earliestLater = Number.POSITIVE_INFINITY;
  for (let i = dates.length - 1; i >= 0; i--) {
    const d = dates[i] as DatePointInput;
    if (d.status !== 'success') continue;
    const ms = finished(d);
    if (!Number.isFinite(ms)) continue;
    // Ties (one clock for a whole backfill) count as in date order: the earlier date moved the watermark first.
    if (ms <= earliestLater) moves.push({ ms, kind: 'watermark', date: d.date, logicalDate: d.logicalDate });
    earliestLater = Math.min(earliestLater, ms);
  }
  const through = completeThrough === null ? -1 : dates.findIndex((d) => d.date === completeThrough);
  let reached = Number.NEGATIVE_INFINITY;
  for (let i = 0; i <= through; i++) {
    const d = dates[i] as DatePointInput;
    const ms = finished(d);
    if (Number.isFinite(ms)) reached = Math.max(reached, ms);
    if (Number.isFinite(reached)) moves.push({ ms: reached, kind: 'through', date: d.date, logicalDate: d.logicalDate });
  }
  moves.sort((a, b) => a.ms - b.ms || (a.kind === b.kind ? Date.parse(a.logicalDate) - Date.parse(b.logicalDate) : a.kind === 'watermark' ? -1 : 1));
  const points: HistoryPoint[] = [];
  let watermark: Move | null = null;
  let done: Move | null = null;
  moves.forEach((move, i) => {
    if (move.kind === 'watermark') watermark = move;
    else done = move;
    const w = watermark as Move | null;
    const c = done as Move | null;
    points.push({
      position: i + 1,
      at: new Date(move.ms).toISOString(),
      watermark: w?.date ?? null,
      watermarkAt: w?.logicalDate ?? null,
      completeThrough: c?.date ?? null,
      completeThroughAt: c?.logicalDate ?? null,
    });
  });
  // The watermark never goes down: a date cleared since keeps it where no row says so now; complete-through may
  // stand before the dates read. The last point says where both stand.
  const last = points.at(-1);
  if (last !== undefined && (last.watermark !== (now.watermark?.date ?? null) || last.completeThrough !== completeThrough)) {
    points.push({
      position: points.length + 1,
      at: last.at,
      watermark: now.watermark?.date ?? null,
      watermarkAt: now.watermark?.logicalDate ?? null,
      completeThrough,
      completeThroughAt: now.completeThrough?.logicalDate ?? null,
    });
  }
  return points;
}
