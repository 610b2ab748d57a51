import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCheck } from '../../src/ops/run-check.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import { loadOverview, loadPipelinePage } from '../../src/views/load-pages.js';
import { loadServedPipelinePage } from '../../src/views/load-table-pipeline-page.js';
import type { PipelinePage } from '../../src/views/page-models.js';
import { foldOnly } from '../support/fold-only.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// A date recorded on a slot that a redefinition made not due yet (daily to @weekly: the 2026-01-04 a daily run started
// is the weekly slot due only on 2026-01-11) never leaves `state`: it shows with its recorded status after the last due
// slot, as off-schedule runs do, and pending lists it in flight while it runs. It is not due, so nothing counts it as
// missing or pending, complete-through does not pass it, and the overview's strip (whose columns are due slots) leaves
// it out. Found by the effective-definitions property test (seed -567138813). Every answer is asked of the tables and of
// the fold (the same store read without its read models), which must agree.

const dir = tempDir('runledger-recorded-not-due-');
const stores: Array<{ name: string; fresh: () => Promise<string> }> = [{ name: 'sqlite', fresh: async () => join(dir, `ledger-${stores.length}-${Date.now()}.db`) }];
const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
if (schemas !== null) stores.push({ name: 'postgres', fresh: () => schemas.fresh() });
else console.log(pgSkipMessage('recorded-not-due test'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});

/** The calendar cells of a page by key, with their statuses (extras included). */
function calendarCells(page: PipelinePage): Record<string, string> {
  const cells: Record<string, string> = {};
  for (const row of page.calendar.rows) {
    for (const cell of row.cells) {
      cells[cell.date] = cell.status;
      for (const extra of cell.extras) cells[extra.date] = extra.status;
    }
  }
  return cells;
}

/** A ledger at `now` over a fresh store, and a second one folding the same store's events for every answer. */
async function ledgers(fresh: () => Promise<string>, now: string): Promise<{ tables: Ledger; fold: Ledger }> {
  const clock = () => Date.parse(now);
  const tables = await openLedger({ db: await fresh(), clock, actor: 'test' });
  return { tables, fold: new Ledger(foldOnly(tables.store), clock, 'test', { checkpointAfter: 0 }) };
}

describe.each(stores)('a date recorded on a slot not due yet ($name)', (store) => {
  test('given a daily pipeline whose 2026-01-04 is running, when it is redefined @weekly without --effective, then state and pending show 2026-01-04 running and nothing counts it as due', async () => {
    const { tables, fold } = await ledgers(store.fresh, '2026-01-05T09:00:00Z');
    try {
      // Given
      await tables.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01', timezone: 'UTC' });
      const { runId } = await tables.start({ pipeline: 'alpha', date: '2026-01-04' });
      // When
      await tables.define({ pipeline: 'alpha', schedule: '@weekly', start: '2026-01-01', timezone: 'UTC' });
      // Then
      const nowMs = tables.now();
      for (const ledger of [tables, fold]) {
        const state = await ledger.state({ pipeline: 'alpha' });
        expect(state.dates.map((d) => [d.date, d.status, d.runId])).toEqual([['2026-01-04', 'running', runId]]);
        expect(state.completeThrough).toBeNull();
        expect(state.watermark).toBeNull();
        const pending = await ledger.pending({ pipeline: 'alpha' });
        expect(pending.pending).toEqual([]);
        expect(pending.inFlight.map((r) => [r.date, r.runId])).toEqual([['2026-01-04', runId]]);
        const { status } = await ledger.pipelineStatus({ pipeline: 'alpha', nowMs });
        expect(status.pending.total).toBe(0);
        expect(status.behind).toBe(0);
        expect(status.inFlight.map((r) => r.date)).toEqual(['2026-01-04']);
        expect((await runCheck(ledger, { maxPending: 0 }, { nowMs })).ok).toBe(true);
        // The overview's strip draws due slots: none is due yet.
        const overview = await loadOverview(ledger, undefined);
        expect(overview.rows.find((r) => r.status.pipeline === 'alpha')?.strip).toEqual([]);
      }
      // The pipeline page, from the tables and folded: the calendar and the whole-history strip show the run, in flight.
      for (const page of [await loadServedPipelinePage(tables, 'alpha', undefined), await loadPipelinePage(fold, 'alpha', undefined)]) {
        expect(calendarCells(page)['2026-01-04']).toBe('running');
        expect(page.strip.map((b) => [b.from, b.status])).toEqual([['2026-01-04', 'running']]);
        expect(page.pending.inFlight.map((r) => r.date)).toEqual(['2026-01-04']);
        expect(page.pendingTotal).toBe(0);
      }
    } finally {
      await tables.close();
    }
  });

  test('given weekly slots due, when a running date sits on the next weekly slot, then it shows after the last due slot with its status, the calendar draws it, and the strip and counts leave it out', async () => {
    const { tables, fold } = await ledgers(store.fresh, '2026-01-12T09:00:00Z');
    try {
      await tables.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01', timezone: 'UTC' });
      await tables.succeed({ runId: (await tables.start({ pipeline: 'alpha', date: '2026-01-04' })).runId });
      const { runId } = await tables.start({ pipeline: 'alpha', date: '2026-01-11' });
      await tables.define({ pipeline: 'alpha', schedule: '@weekly', start: '2026-01-01', timezone: 'UTC' });
      const nowMs = tables.now();
      for (const ledger of [tables, fold]) {
        const state = await ledger.state({ pipeline: 'alpha' });
        expect(state.dates.map((d) => [d.date, d.status])).toEqual([['2026-01-04', 'success'], ['2026-01-11', 'running']]);
        // Complete-through stays on the last due slot; the watermark is the success.
        expect(state.completeThrough).toBe('2026-01-04');
        expect(state.watermark).toBe('2026-01-04');
        // An explicit end at the last due slot bounds it out, as it bounds off-schedule runs.
        expect((await ledger.state({ pipeline: 'alpha', to: '2026-01-04' })).dates.map((d) => d.date)).toEqual(['2026-01-04']);
        const pending = await ledger.pending({ pipeline: 'alpha' });
        expect(pending.pending).toEqual([]);
        expect(pending.inFlight.map((r) => [r.date, r.runId])).toEqual([['2026-01-11', runId]]);
        const { status } = await ledger.pipelineStatus({ pipeline: 'alpha', nowMs });
        expect(status.pending.total).toBe(0);
        expect(status.completeThrough).toBe('2026-01-04');
        expect(status.inFlight.map((r) => r.date)).toEqual(['2026-01-11']);
        expect((await runCheck(ledger, { maxPending: 0 }, { nowMs })).ok).toBe(true);
        const overview = await loadOverview(ledger, undefined);
        expect(overview.rows.find((r) => r.status.pipeline === 'alpha')?.strip.map((c) => [c.date, c.status])).toEqual([['2026-01-04', 'success']]);
      }
      for (const page of [await loadServedPipelinePage(tables, 'alpha', undefined), await loadPipelinePage(fold, 'alpha', undefined)]) {
        // The month's row: the due success, the running date in its column, the rest not due.
        expect(page.calendar.rows.map((r) => r.cells.map((c) => [c.date, c.status]))).toEqual([
          [
            ['2026-01-04', 'success'],
            ['2026-01-11', 'running'],
            ['2026-01-18', 'not-due'],
            ['2026-01-25', 'not-due'],
          ],
        ]);
        expect(page.completeThrough).toBe('2026-01-04');
        expect(page.strip.map((b) => [b.from, b.status])).toEqual([
          ['2026-01-04', 'success'],
          ['2026-01-11', 'running'],
        ]);
        expect(page.pending.inFlight.map((r) => r.date)).toEqual(['2026-01-11']);
        expect(page.pendingTotal).toBe(0);
      }
    } finally {
      await tables.close();
    }
  });
});
