import { describe, expect, test } from 'vitest';
import { renderReport, reportChunks } from '../../src/render/render-report.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

/**
 * `report --html` is written as it is rendered: the document comes a section
 * at a time (page start, overview, each pipeline, audit, verify, page end),
 * so the command never holds the whole report.
 */
describe('reportChunks', () => {
  test('yields the page start, the overview, one chunk per pipeline, the audit, verify and the page end; together they are the report', async () => {
    const ledger = openMemoryLedger({ clock: () => Date.parse('2026-11-06T01:00:00+07:00') });
    for (const pipeline of ['etl_orders', 'etl_users']) {
      await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
      for (const date of ['2026-11-02', '2026-11-03']) {
        const run = await ledger.start({ pipeline, date });
        await ledger.succeed({ runId: run.runId });
      }
      await ledger.clear({ pipeline, dates: ['2026-11-03'], reason: `re-run ${pipeline}` });
    }
    const chunks: string[] = [];
    for await (const chunk of reportChunks(ledger)) chunks.push(chunk);
    expect(chunks).toHaveLength(7);
    expect(chunks[0]).toMatch(/^<!doctype html>/);
    expect(chunks[1]).toMatch(/^<section id="overview">/);
    expect(chunks[2]).toContain('id="pipeline-etl_orders"');
    expect(chunks[2]).not.toContain('id="pipeline-etl_users"');
    expect(chunks[3]).toContain('id="pipeline-etl_users"');
    // The audit section lists both pipelines' clears, newest first.
    const audit = chunks[4] ?? '';
    expect(audit).toMatch(/^<section id="audit">/);
    expect(audit.indexOf('re-run etl_users')).toBeGreaterThan(-1);
    expect(audit.indexOf('re-run etl_users')).toBeLessThan(audit.indexOf('re-run etl_orders'));
    expect(chunks[5]).toContain('chain intact');
    expect(chunks[6]).toMatch(/<\/html>\n$/);
    expect(chunks.join('')).toBe(await renderReport(ledger));
  });
});
