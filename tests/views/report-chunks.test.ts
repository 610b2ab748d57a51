import { describe, expect, test } from 'vitest';
import { reportChunks } from '../../src/render/render-report.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

/**
 * `report --html` is written as it is rendered: the document comes a section
 * at a time (page start, overview a few rows at a time, each pipeline a part
 * at a time, audit,
 * verify, page end), so the command never holds the whole report.
 */
describe('reportChunks', () => {
  test('yields the page start, the overview, each pipeline a part at a time, the audit, verify and the page end, none of them empty', async () => {
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
    expect(chunks[0]).toMatch(/^<!doctype html>/);
    // The overview: its section's opening, the text before the rows, the rows (two pipelines: one piece), the text after them, its closing.
    expect(chunks.slice(1, 6).map((chunk) => chunk.slice(0, 18))).toEqual(['<section id="overv', '<h1>Pipelines</h1>', '<tr data-pipeline=', '</tbody></table>', '</section>']);
    expect(chunks[3]).toContain('<tr data-pipeline="etl_orders"');
    expect(chunks[3]).toContain('<tr data-pipeline="etl_users"');
    // Each pipeline's page a part at a time (its head, strip, calendar, chart, pending, runs, audit), never one string of the page.
    const pages = chunks.slice(6, 20);
    expect(pages.map((chunk) => chunk.slice(0, 24))).toEqual(
      Array.from({ length: 2 }, () => ['<section class="pipeline', '<div data-part="strip"><', '<div data-part="calendar', '\n<h2>Watermark and compl', '<h2>Pending</h2><div dat', '<h2>Runs</h2><div data-p', '<h2>Audit timeline</h2><']).flat(),
    );
    expect(pages.slice(0, 7).join('')).toContain('id="pipeline-etl_orders"');
    expect(pages.slice(0, 7).join('')).not.toContain('id="pipeline-etl_users"');
    expect(pages.slice(7).join('')).toContain('id="pipeline-etl_users"');
    expect(pages[6]).toMatch(/<\/section>$/);
    const rest = chunks.slice(20);
    expect(rest).toHaveLength(3);
    // The audit section lists both pipelines' clears, newest first.
    const audit = rest[0] ?? '';
    expect(audit).toMatch(/^<section id="audit">/);
    expect(audit.indexOf('re-run etl_users')).toBeGreaterThan(-1);
    expect(audit.indexOf('re-run etl_users')).toBeLessThan(audit.indexOf('re-run etl_orders'));
    expect(rest[1]).toContain('chain intact');
    expect(rest[2]).toMatch(/<\/html>\n$/);
    // No empty piece is written (renderReport is these pieces joined, so comparing with it would prove nothing).
    expect(chunks.filter((chunk) => chunk.length === 0)).toEqual([]);
  });
});
