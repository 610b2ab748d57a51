import { thinPoints, type HistoryPoint } from '../../projections/views/pipeline-history.js';
import { inZone } from '../format/zoned-instant.js';
import { html, type Html } from './escape-html.js';

const W = 720;
const H = 240;
/** 11px monospace is about 6.7px a character: the left pad holds a `YYYY-MM-DD HH:mm` label with room to spare. */
export const CHART_CHAR_PX = 6.7;
export const CHART_PAD = { left: 124, right: 16, top: 34, bottom: 44 };

/** What the chart draws, apart from its SVG: tests read the labels and points here. */
export type ChartModel = {
  /** Logical dates (ms) on x, recorded-at (ms, or event positions) on y. */
  watermark: Array<[number, number]>;
  completeThrough: Array<[number, number]>;
  xLabels: [string, string];
  yLabels: [string, string];
  /** True when every event was recorded within a minute: y is then the event position. */
  byPosition: boolean;
};

/**
 * The chart's model: each point where the watermark or complete-through
 * moved, x its logical date, y when that was recorded. A backfill of two
 * years that ran in minutes spreads over the whole width (its dates) instead
 * of a few pixels (its minutes); a clear shows complete-through stepping back.
 *
 * @example
 * chartModel(page.points, 'Asia/Jakarta')?.xLabels // ['2024-11-02', '2026-11-04']
 */
export function chartModel(points: readonly HistoryPoint[], timeZone: string): ChartModel | null {
  const shown = thinPoints(points, 400);
  const series = (pick: (p: HistoryPoint) => string | null): HistoryPoint[] => {
    const out: HistoryPoint[] = [];
    let last: string | null = null;
    for (const p of shown) {
      const value = pick(p);
      if (value !== null && value !== last) out.push(p);
      last = value;
    }
    return out;
  };
  const movedWatermark = series((p) => p.watermarkAt);
  const movedComplete = series((p) => p.completeThroughAt);
  // Moves recorded within a minute of each other (a scripted backfill, a fixed --now) would sit on one y: then y is the event position.
  const times = [...movedWatermark, ...movedComplete].map((p) => Date.parse(p.at));
  const byPosition = times.length > 0 && Math.max(...times) - Math.min(...times) < 60_000;
  const yOf = (p: HistoryPoint) => (byPosition ? p.position : Date.parse(p.at));
  const watermark = movedWatermark.map((p): [number, number] => [Date.parse(p.watermarkAt ?? ''), yOf(p)]);
  const completeThrough = movedComplete.map((p): [number, number] => [Date.parse(p.completeThroughAt ?? ''), yOf(p)]);
  const all = [...watermark, ...completeThrough];
  if (all.length === 0) return null;
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const keyAt = (ms: number) =>
    points.find((p) => p.watermarkAt !== null && Date.parse(p.watermarkAt) === ms)?.watermark ??
    points.find((p) => p.completeThroughAt !== null && Date.parse(p.completeThroughAt) === ms)?.completeThrough ??
    inZone(new Date(ms).toISOString(), timeZone);
  const yText = (value: number) => (byPosition ? `event ${value}` : inZone(new Date(value).toISOString(), timeZone).slice(0, 16).replace('T', ' '));
  return {
    watermark,
    completeThrough,
    xLabels: [keyAt(Math.min(...xs)), keyAt(Math.max(...xs))],
    yLabels: [yText(Math.min(...ys)), yText(Math.max(...ys))],
    byPosition,
  };
}

/**
 * The watermark and complete-through as an inline SVG: x is the logical date
 * they reached, y when it was recorded (in the pipeline's zone). Colours are
 * presentation attributes, so the strict CSP allows it.
 */
export function watermarkChart(points: readonly HistoryPoint[], timeZone: string): Html {
  const model = chartModel(points, timeZone);
  if (!model) return html`<p class="muted">Nothing has succeeded yet, so there is no watermark to chart.</p>`;
  const all = [...model.watermark, ...model.completeThrough];
  const x0 = Math.min(...all.map(([x]) => x));
  const x1 = Math.max(...all.map(([x]) => x));
  const y0 = Math.min(...all.map(([, y]) => y));
  const y1 = Math.max(...all.map(([, y]) => y));
  const sx = (v: number) => CHART_PAD.left + ((v - x0) / Math.max(1, x1 - x0)) * (W - CHART_PAD.left - CHART_PAD.right);
  const sy = (v: number) => H - CHART_PAD.bottom - ((v - y0) / Math.max(1, y1 - y0)) * (H - CHART_PAD.top - CHART_PAD.bottom);
  const line = (pts: Array<[number, number]>) => pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
  const dots = (pts: Array<[number, number]>, color: string) => (pts.length <= 60 ? pts.map(([x, y]) => html`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${color}"/>`) : []);
  const lastWatermark = points.at(-1)?.watermark ?? 'none';
  const lastComplete = points.at(-1)?.completeThrough ?? 'none';
  return html`<svg class="chart" role="img" aria-label="watermark and complete-through by logical date" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">
<line x1="${CHART_PAD.left}" y1="${H - CHART_PAD.bottom}" x2="${W - CHART_PAD.right}" y2="${H - CHART_PAD.bottom}" stroke="#d0d7de"/>
<line x1="${CHART_PAD.left}" y1="${CHART_PAD.top}" x2="${CHART_PAD.left}" y2="${H - CHART_PAD.bottom}" stroke="#d0d7de"/>
<text class="y-label" x="${CHART_PAD.left - 6}" y="${sy(y1) + 4}" text-anchor="end">${model.yLabels[1]}</text>
<text class="y-label" x="${CHART_PAD.left - 6}" y="${sy(y0) + 4}" text-anchor="end">${model.yLabels[0]}</text>
<text x="6" y="${CHART_PAD.top - 8}">${model.byPosition ? 'event position ↑ (all recorded within a minute)' : `recorded at (${timeZone}) ↑`}</text>
<text class="x-label" x="${CHART_PAD.left}" y="${H - CHART_PAD.bottom + 16}">${model.xLabels[0]}</text>
<text class="x-label" x="${W - CHART_PAD.right}" y="${H - CHART_PAD.bottom + 16}" text-anchor="end">${model.xLabels[1]}</text>
<text x="${CHART_PAD.left}" y="${H - 8}">logical date →</text>
<polyline fill="none" stroke="#8c959f" stroke-width="2" stroke-dasharray="5 3" points="${line(model.completeThrough)}"/>
<polyline fill="none" stroke="#0969da" stroke-width="2" points="${line(model.watermark)}"/>
${dots(model.watermark, '#0969da')}
<text class="wm-label" x="${W - CHART_PAD.right}" y="12" text-anchor="end">— watermark ${lastWatermark}</text>
<text x="${W - CHART_PAD.right}" y="26" text-anchor="end">- - complete through ${lastComplete}</text>
</svg>`;
}
