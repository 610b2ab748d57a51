import { describe, expect, test } from 'vitest';
import type { HistoryPoint } from '../../projections/views/pipeline-history.js';
import { CHART_CHAR_PX, CHART_PAD, chartModel, watermarkChart } from '../../src/render/watermark-chart.js';

/** A backfill of `days` daily dates, one success every `everyMs` from `startAt`. */
function backfill(days: number, startAt: string, everyMs: number): HistoryPoint[] {
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(Date.parse('2024-11-02T00:00:00Z') + i * 86_400_000).toISOString();
    return { position: i + 2, at: new Date(Date.parse(startAt) + i * everyMs).toISOString(), watermark: date.slice(0, 10), watermarkAt: date, completeThrough: date.slice(0, 10), completeThroughAt: date };
  });
}

describe('the watermark chart plots against the logical date', () => {
  test('a two-year backfill run in minutes spreads over the logical dates, with labels that fit', () => {
    const model = chartModel(backfill(730, '2026-11-05T01:00:00Z', 300), 'Asia/Jakarta');
    expect(model?.xLabels).toEqual(['2024-11-02', '2026-11-01']);
    expect(model?.yLabels).toEqual(['2026-11-05 08:00', '2026-11-05 08:03']);
    const xs = model?.watermark.map(([x]) => x) ?? [];
    expect(xs[0]).toBe(Date.parse('2024-11-02T00:00:00Z'));
    expect(xs.at(-1)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    for (const label of model?.yLabels ?? []) expect(label.length * CHART_CHAR_PX).toBeLessThanOrEqual(CHART_PAD.left - 6);
  });

  test('hourly keys label the axis whole, each within half the width', () => {
    const points: HistoryPoint[] = ['2026-11-01T00:00:00-04:00', '2026-11-01T01:00:00-05:00'].map((key, i) => ({ position: i + 2, at: `2026-11-02T0${i}:00:00Z`, watermark: key, watermarkAt: new Date(Date.parse(key)).toISOString(), completeThrough: key, completeThroughAt: new Date(Date.parse(key)).toISOString() }));
    const model = chartModel(points, 'America/New_York');
    expect(model?.xLabels).toEqual(['2026-11-01T00:00:00-04:00', '2026-11-01T01:00:00-05:00']);
    for (const label of model?.xLabels ?? []) expect(label.length * CHART_CHAR_PX).toBeLessThan((720 - CHART_PAD.left - CHART_PAD.right) / 2);
    const svg = watermarkChart(points, 'America/New_York').html;
    expect(svg).toContain('recorded at (America/New_York)');
    expect(svg).toContain('logical date →');
  });

  test('events recorded within a minute use the event position for y', () => {
    expect(chartModel(backfill(3, '2026-11-05T01:00:00Z', 1), 'UTC')).toMatchObject({ byPosition: true, yLabels: ['event 2', 'event 4'] });
  });
});
