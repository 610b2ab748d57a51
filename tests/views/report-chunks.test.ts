import { describe, expect, test } from 'vitest';
import { renderReport, reportChunks } from '../../src/render/render-report.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

/**
 * `report --html` is written as it is rendered: the document comes a section
 * at a time (page start, overview a few rows at a time, each pipeline, audit,
 * verify, page end), so the command never holds the whole report.
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
    expect(chunks[0]).toMatch(/^<!doctype html>/);
    // The overview: its section's opening, the text before the rows, the rows (two pipelines: one piece), the text after them, its closing.
    expect(chunks.slice(1, 6).map((chunk) => chunk.slice(0, 18))).toEqual(['<section id="overv', '<h1>Pipelines</h1>', '<tr data-pipeline=', '</tbody></table>', '</section>']);
    expect(chunks[3]).toContain('<tr data-pipeline="etl_orders"');
    expect(chunks[3]).toContain('<tr data-pipeline="etl_users"');
    const rest = chunks.slice(6);
    expect(rest).toHaveLength(5);
    expect(rest[0]).toContain('id="pipeline-etl_orders"');
    expect(rest[0]).not.toContain('id="pipeline-etl_users"');
    expect(rest[1]).toContain('id="pipeline-etl_users"');
    // The audit section lists both pipelines' clears, newest first.
    const audit = rest[2] ?? '';
    expect(audit).toMatch(/^<section id="audit">/);
    expect(audit.indexOf('re-run etl_users')).toBeGreaterThan(-1);
    expect(audit.indexOf('re-run etl_users')).toBeLessThan(audit.indexOf('re-run etl_orders'));
    expect(rest[3]).toContain('chain intact');
    expect(rest[4]).toMatch(/<\/html>\n$/);
    expect(chunks.join('')).toBe(await renderReport(ledger));
  });
});
