import { thinPoints, type HistoryPoint } from '../../projections/views/pipeline-history.js';
import { html, type Html } from './escape-html.js';

const W = 720;
const H = 220;
const PAD = { left: 92, right: 16, top: 14, bottom: 40 };

/**
 * The watermark and complete-through over time as an inline SVG step chart:
 * x is when the event was recorded, y the logical date it set. Colours are
 * presentation attributes, so the strict CSP allows it.
 */
export function watermarkChart(points: readonly HistoryPoint[], nowMs: number): Html {
  const shown = thinPoints(points, 400);
  const ys = shown.flatMap((p) => [p.watermarkAt, p.completeThroughAt]).filter((v): v is string => v !== null).map(Date.parse);
  if (shown.length === 0 || ys.length === 0) return html`<p class="muted">Nothing has succeeded yet, so there is no watermark to chart.</p>`;
  // Events recorded within a minute of each other (a scripted backfill, a fixed --now) would stack on one x:
  // then x is the event position instead of the time.
  const times = shown.map((p) => Date.parse(p.at));
  const byPosition = Math.max(...times) - Math.min(...times) < 60_000;
  const xOf = (p: HistoryPoint) => (byPosition ? p.position : Date.parse(p.at));
  const xs = shown.map(xOf);
  const x0 = Math.min(...xs);
  const x1 = byPosition ? Math.max(...xs) : Math.max(nowMs, ...xs);
  const y0 = Math.min(...ys);
  const y1 = Math.max(...ys);
  const sx = (ms: number) => PAD.left + ((ms - x0) / Math.max(1, x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (ms: number) => H - PAD.bottom - ((ms - y0) / Math.max(1, y1 - y0)) * (H - PAD.top - PAD.bottom);
  const line = (pick: (p: HistoryPoint) => string | null): string => {
    const out: string[] = [];
    let last: number | null = null;
    for (const p of shown) {
      const at = sx(xOf(p));
      const value = pick(p);
      const y = value === null ? null : sy(Date.parse(value));
      if (last !== null) out.push(`${at.toFixed(1)},${last.toFixed(1)}`);
      if (y !== null) out.push(`${at.toFixed(1)},${y.toFixed(1)}`);
      last = y;
    }
    if (last !== null) out.push(`${sx(x1).toFixed(1)},${last.toFixed(1)}`);
    return out.join(' ');
  };
  const first = shown[0];
  const lastPoint = shown.at(-1);
  const yLabel = (ms: number) => points.find((p) => p.watermarkAt !== null && Date.parse(p.watermarkAt) === ms)?.watermark ?? points.find((p) => p.completeThroughAt !== null && Date.parse(p.completeThroughAt) === ms)?.completeThrough ?? new Date(ms).toISOString().slice(0, 10);
  return html`<svg class="chart" role="img" aria-label="watermark and complete-through over time" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">
<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" stroke="#d0d7de"/>
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}" stroke="#d0d7de"/>
<text x="${PAD.left - 6}" y="${sy(y1) + 4}" text-anchor="end">${yLabel(y1)}</text>
<text x="${PAD.left - 6}" y="${sy(y0) + 4}" text-anchor="end">${yLabel(y0)}</text>
<text x="${PAD.left}" y="${H - PAD.bottom + 16}">${byPosition ? `event ${x0}` : first ? first.at.slice(0, 16).replace('T', ' ') : ''}</text>
<text x="${W - PAD.right}" y="${H - PAD.bottom + 16}" text-anchor="end">${byPosition ? `event ${x1}` : new Date(x1).toISOString().slice(0, 16).replace('T', ' ')}</text>
<text x="${PAD.left}" y="${H - 6}">${byPosition ? 'event position (all recorded within a minute) →' : 'recorded at (UTC) →'}</text>
<polyline fill="none" stroke="#8c959f" stroke-width="2" stroke-dasharray="5 3" points="${line((p) => p.completeThroughAt)}"/>
<polyline fill="none" stroke="#0969da" stroke-width="2" points="${line((p) => p.watermarkAt)}"/>
<text class="wm-label" x="${W - PAD.right}" y="${PAD.top + 10}" text-anchor="end">— watermark ${lastPoint?.watermark ?? 'none'}</text>
<text x="${W - PAD.right}" y="${PAD.top + 24}" text-anchor="end">- - complete through ${lastPoint?.completeThrough ?? 'none'}</text>
</svg>`;
}
