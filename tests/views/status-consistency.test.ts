import { describe, expect, test } from 'vitest';
import { pageBody, servedLinks } from '../../src/render/render-pages.js';
import { loadOverview, loadPipelinePage, loadRunPage } from '../../src/views/load-pages.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

/** One status everywhere: the calendar, pending, the runs table, the run page, the overview and `pending --json`. */
describe('one status everywhere', () => {
  async function setup() {
    let now = Date.parse('2026-11-05T01:00:00Z');
    const ledger = openMemoryLedger({ clock: () => now });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
    const stalled = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02', leaseMs: 60_000 });
    const manual = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03T12:00:00Z', runType: 'manual', leaseMs: 24 * 3600_000 });
    now += 10 * 60_000;
    return { ledger, stalled, manual };
  }

  test('a run whose lease expired is stalled in the runs table, on its run page, in the calendar and in pending', async () => {
    const { ledger, stalled } = await setup();
    const page = await loadPipelinePage(ledger, 'etl_orders', undefined);
    expect(page.runs.find((r) => r.runId === stalled.runId)?.shownStatus).toBe('stalled');
    expect(page.calendar.rows[0]?.cells.find((c) => c.date === '2026-11-02')?.status).toBe('stalled');
    expect(page.pending.pending.find((p) => p.date === '2026-11-02')?.reason).toBe('stalled');
    const html = pageBody(page, servedLinks(null, '/pipelines/etl_orders')).html;
    const row = html.split('<tr>').find((r) => r.includes(`>${stalled.runId}</a>`)) ?? '';
    expect(row).toContain('<span class="badge b-stalled">stalled</span>');
    const run = pageBody(await loadRunPage(ledger, 'etl_orders', stalled.runId, undefined), servedLinks(null, '/')).html;
    expect(run).toContain('<span class="badge b-stalled">stalled</span>');
  });

  test('an off-schedule running run is in flight on the pipeline page, in pending and on the overview alike', async () => {
    const { ledger, manual } = await setup();
    const pending = await ledger.pending({ pipeline: 'etl_orders' });
    expect(pending.inFlight).toEqual([{ date: '2026-11-03T12:00:00+00:00', runId: manual.runId, leaseExpiresAt: expect.any(String) }]);
    const page = await loadPipelinePage(ledger, 'etl_orders', undefined);
    const overview = await loadOverview(ledger, undefined);
    expect(page.pending.inFlight).toHaveLength(1);
    expect(overview.rows[0]?.status.inFlight).toHaveLength(1);
    expect(pageBody(page, servedLinks(null, '/')).html).toContain('<b>In flight</b> 1');
  });
});
