import { describe, expect, test } from 'vitest';
import { thinPoints } from '../../projections/views/pipeline-history.js';
import { runRows, formatDuration } from '../../projections/views/run-rows.js';
import { loadHistory, loadPipelinePage } from '../../src/views/load-pages.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { fixtureLedger } from './fixture-ledger.js';

describe('watermark and complete-through over time', () => {
  test.each(['s2-generations', 's3-stale-completions', 's5-watermark-monotonic', 's6-complete-through', 's7-pending-reasons', 's8-clear-fences-running'])(
    '%s: every point equals what `watermark --as-of` answers at its position, and the last equals now',
    async (name) => {
      const { ledger, expected } = fixtureLedger(name);
      const pipeline = (await ledger.pipelines())[0]?.pipeline ?? '';
      const head = (await ledger.store.head()).position;
      const history = await loadHistory(ledger, pipeline, head);
      expect(history.points.length).toBeGreaterThan(0);
      for (const point of history.points) {
        const then = await ledger.watermark({ pipeline, asOf: { position: point.position } });
        expect({ position: point.position, watermark: point.watermark, completeThrough: point.completeThrough }).toEqual({ position: point.position, ...then, pipeline: undefined });
      }
      // Between points nothing changes: the position after each point still answers the same.
      for (let position = 1; position <= head; position++) {
        const last = history.points.filter((p) => p.position <= position).at(-1);
        const then = await ledger.watermark({ pipeline, asOf: { position } });
        expect([position, last?.watermark ?? null, last?.completeThrough ?? null]).toEqual([position, then.watermark, then.completeThrough]);
      }
      expect(history.points.at(-1)?.watermark).toBe(expected.watermark);
      expect(history.points.at(-1)?.completeThrough).toBe(expected.completeThrough);
    },
  );

  test('the audit timeline lists definitions, clears and forced re-runs with actor and reason, newest first on the page', async () => {
    let now = Date.parse('2026-11-05T01:00:00+07:00');
    const ledger = openMemoryLedger({ clock: () => now, actor: 'alice' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', reason: 'new pipeline' });
    for (const date of ['2026-11-02', '2026-11-03']) {
      const run = await ledger.start({ pipeline: 'etl_orders', date });
      await ledger.succeed({ runId: run.runId, metrics: { rows: 3 } });
    }
    now += 60_000;
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-02'], reason: 'bad upstream file' });
    const forced = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03', force: true, reason: 'reprocess after fix' });
    await ledger.fail({ runId: forced.runId, error: 'still broken' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', catchup: false, reason: 'no catchup' });
    const page = await loadPipelinePage(ledger, 'etl_orders', undefined);
    expect(page.audit.map((e) => [e.kind, e.actor, e.date, e.reason])).toEqual([
      ['redefined', 'alice', null, 'no catchup'],
      ['forced', 'alice', '2026-11-03', 'reprocess after fix'],
      ['cleared', 'alice', '2026-11-02', 'bad upstream file'],
      ['defined', 'alice', null, 'new pipeline'],
    ]);
    expect(page.audit[0]?.detail).toContain('catchup true → false');
    // The watermark stays at 11-03 through the clear and the failed re-run; complete-through falls to none.
    expect(page.points.map((p) => [p.watermark, p.completeThrough])).toEqual([
      [null, null],
      ['2026-11-02', '2026-11-02'],
      ['2026-11-03', '2026-11-03'],
      ['2026-11-03', null],
    ]);
    expect(page.runs.map((r) => [r.date, r.attempt, r.status])).toEqual([
      ['2026-11-03', 2, 'failed'],
      ['2026-11-03', 1, 'success'],
      ['2026-11-02', 1, 'cleared'],
    ]);
    expect(page.pending.pending.map((p) => [p.date, p.reason])).toEqual([
      ['2026-11-02', 'cleared'],
      ['2026-11-03', 'failed'],
      ['2026-11-04', 'missing'],
    ]);
  });

  test('thinning keeps the first and last points and at most the limit', () => {
    const points = Array.from({ length: 1000 }, (_, i) => i);
    const thin = thinPoints(points, 50);
    expect(thin.length).toBe(50);
    expect([thin[0], thin.at(-1)]).toEqual([0, 999]);
    expect(thinPoints([1, 2], 50)).toEqual([1, 2]);
  });

  test('runs are listed newest first with their durations; durations read as people say them', () => {
    const base = { date: 'd', attempt: 1, runType: 'scheduled' as const, logicalDate: '', dataInterval: { start: '', end: '' }, leaseExpiresAt: '', actor: 'a', forced: false, offSchedule: false, metrics: null, error: null };
    const { rows, total } = runRows(
      [
        { ...base, runId: 'A', status: 'success', startedAt: '2026-11-04T10:00:00Z', finishedAt: '2026-11-04T10:04:05Z' },
        { ...base, runId: 'B', status: 'running', startedAt: '2026-11-04T11:00:00Z', finishedAt: null, leaseExpiresAt: '2026-11-04T12:00:00Z' },
        { ...base, runId: 'C', status: 'running', startedAt: '2026-11-04T11:30:00Z', finishedAt: null, leaseExpiresAt: '2026-11-04T13:00:00Z' },
      ],
      10,
      Date.parse('2026-11-04T12:00:00Z'),
    );
    expect(total).toBe(3);
    expect(rows.map((r) => [r.runId, r.durationMs, r.shownStatus])).toEqual([
      ['C', null, 'running'],
      ['B', null, 'stalled'],
      ['A', 245_000, 'success'],
    ]);
    expect([formatDuration(850), formatDuration(12_000), formatDuration(245_000), formatDuration(12_000_000), formatDuration(200 * 3600_000)]).toEqual(['850 ms', '12 s', '4 min 05 s', '3 h 20 min', '8 d 8 h']);
  });
});
