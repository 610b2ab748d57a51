import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { isLedgerError } from '../../src/errors.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import { loadOverview, loadPipelinePage } from '../../src/views/load-pages.js';
import { loadServedPipelinePage } from '../../src/views/load-table-pipeline-page.js';
import { tempDir } from '../support/run-cli.js';
import { foldOnly } from '../support/fold-only.js';

// The served pipeline page of now reads the read models part by part; whatever the history, it shows what
// the page folded from the events shows: strip, calendar, pending (the oldest listed, all counted), in
// flight, task grid, runs, audit entries, watermark and complete-through, and a chart ending where they stand.

const START = Date.parse('2026-01-12T00:00:00Z');
const DATES = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-05', '2026-01-08', '2026-01-06T12:00:00Z'];
const dir = tempDir('runledger-table-page-');
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Step = { kind: 'start' | 'force' | 'succeed' | 'fail' | 'clear' | 'task' | 'wait'; date: number; other: boolean };
const step = fc.record({ kind: fc.constantFrom('start', 'force', 'succeed', 'succeed', 'fail', 'clear', 'task', 'wait'), date: fc.nat(DATES.length - 1), other: fc.boolean() }) as fc.Arbitrary<Step>;

async function scenario(steps: Step[], withTasks: boolean): Promise<void> {
  let now = START;
  const clock = () => now;
  const ledger = await openLedger({ db: join(dir, `ledger-${++n}.db`), clock, actor: 'prop', checkpointAfter: 0 });
  const pipeline = 'etl';
  await ledger.define({ pipeline, schedule: '@daily', start: '2026-01-01', ...(withTasks ? { tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] } : {}) });
  const runs: string[] = [];
  try {
    for (const s of steps) {
      try {
        const date = DATES[s.date] ?? '';
        const runId = runs.at(s.other ? -2 : -1);
        if (s.kind === 'start' || s.kind === 'force') {
          runs.push((await ledger.start({ pipeline, date, force: s.kind === 'force', lease: s.other ? 60_000 : 3_600_000, ...(date.includes('T') ? { runType: 'manual' as const } : {}) })).runId);
        } else if (s.kind === 'succeed' && runId) await ledger.succeed({ runId, metrics: { rows: s.date } });
        else if (s.kind === 'fail' && runId) await ledger.fail({ runId, error: s.other ? `line one\n${'x'.repeat(400)}` : 'boom' });
        else if (s.kind === 'clear') await ledger.clear({ pipeline, dates: [date], reason: 'prop' });
        else if (s.kind === 'task' && runId && withTasks) await ledger.task({ runId, taskId: s.other ? 'load' : 'extract', state: s.other ? 'failed' : 'success' });
        else if (s.kind === 'wait') now += (s.date + 1) * 3_600_000;
      } catch (error) {
        if (!isLedgerError(error)) throw error;
      }
    }
    const folding = new Ledger(foldOnly(ledger.store), clock, 'prop', { checkpointAfter: 0 });
    for (const input of [{}, { from: '2026-01-02', to: '2026-01-03' }]) {
      const tables = await loadServedPipelinePage(ledger, pipeline, undefined, {}, input);
      const folded = await loadPipelinePage(folding, pipeline, undefined, {}, input);
      expect(tables.strip).toEqual(folded.strip);
      expect(tables.calendar).toEqual(folded.calendar);
      expect(tables.pending.pending).toEqual(folded.pending.pending.slice(0, 200));
      expect(tables.pendingTotal).toBe(folded.pending.pending.length);
      expect(tables.pending.inFlight).toEqual(folded.pending.inFlight);
      expect(tables.taskGrid).toEqual(folded.taskGrid);
      expect(tables.runs).toEqual(folded.runs);
      expect(tables.audit).toEqual(folded.audit);
      expect(tables.auditScanned).toBeNull();
      expect([tables.watermark, tables.completeThrough]).toEqual([folded.watermark, folded.completeThrough]);
      const last = tables.points.at(-1);
      if (last !== undefined) expect([last.watermark, last.completeThrough]).toEqual([folded.watermark, folded.completeThrough]);
    }
    // The overview from the summary rows, too: the same rows, statuses and strips.
    expect((await loadOverview(ledger, undefined)).rows).toEqual((await loadOverview(folding, undefined)).rows);
  } finally {
    await ledger.close();
  }
}

describe('the served pipeline page from the read models', () => {
  test('any history shows what the page folded from the events shows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 30 }), fc.boolean(), (steps, withTasks) => scenario(steps, withTasks)),
      { numRuns: 40 },
    );
  }, 300_000);
});

test('an hourly pipeline behind by more than the page lists counts every pending date and lists the oldest, as the fold does', async () => {
  const now = Date.parse('2026-01-12T00:30:00Z');
  const ledger = await openLedger({ db: join(dir, 'hourly.db'), clock: () => now, actor: 'prop', checkpointAfter: 0 });
  try {
    await ledger.define({ pipeline: 'hourly', schedule: '@hourly', start: '2026-01-01T00:00:00Z' });
    for (const hour of [0, 1, 5, 30, 31]) {
      const run = await ledger.start({ pipeline: 'hourly', date: new Date(Date.parse('2026-01-01T00:00:00Z') + hour * 3_600_000).toISOString() });
      if (hour === 5) await ledger.fail({ runId: run.runId, error: 'boom' });
      else await ledger.succeed({ runId: run.runId });
    }
    const folding = new Ledger(foldOnly(ledger.store), () => now, 'prop', { checkpointAfter: 0 });
    const tables = await loadServedPipelinePage(ledger, 'hourly', undefined);
    const folded = await loadPipelinePage(folding, 'hourly', undefined);
    expect(folded.pending.pending.length).toBeGreaterThan(200);
    expect(tables.pendingTotal).toBe(folded.pending.pending.length);
    expect(tables.pending.pending).toEqual(folded.pending.pending.slice(0, 200));
    expect(tables.strip).toEqual(folded.strip);
    expect((await loadOverview(ledger, undefined)).rows).toEqual((await loadOverview(folding, undefined)).rows);
  } finally {
    await ledger.close();
  }
});

test('a minutely pipeline since 1970 (30 million slots) gets a page of its window: an aggregated strip, the oldest pending, a calendar of the last days', async () => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  const ledger = await openLedger({ db: join(dir, 'minutely.db'), clock: () => now, actor: 'prop', checkpointAfter: 0 });
  try {
    await ledger.define({ pipeline: 'pm', schedule: '* * * * *', start: '1970-01-01' });
    for (const [at, outcome] of [['1970-01-01T00:00:00Z', 'succeed'], ['1970-01-01T00:01:00Z', 'succeed'], ['2025-06-01T12:00:00Z', 'fail'], ['2026-11-30T23:58:00Z', 'succeed']] as const) {
      const run = await ledger.start({ pipeline: 'pm', date: at });
      if (outcome === 'fail') await ledger.fail({ runId: run.runId, error: 'boom' });
      else await ledger.succeed({ runId: run.runId });
    }
    const page = await loadServedPipelinePage(ledger, 'pm', undefined);
    // A column per quarter of UTC: 1970 Q1 … 2026 Q4.
    expect(page.strip.length).toBe(57 * 4);
    expect(page.strip[0]?.period).toEqual({ unit: 'quarter', label: '1970 Q1', range: { from: '1970-01-01', to: '1970-03-31' } });
    expect(page.strip.at(-1)?.period?.label).toBe('2026 Q4');
    // Exact counts: 1970 Q3 holds 92 days of minutes.
    expect(page.strip[2]?.count).toBe(92 * 1440);
    // Every column holds missing minutes; the one holding the failure says so and counts it.
    const failedColumn = page.strip.find((b) => b.failed > 0);
    expect(failedColumn).toMatchObject({ status: 'failed', failed: 1 });
    expect(failedColumn && failedColumn.from <= '2025-06-01T12:00:00+00:00' && failedColumn.to >= '2025-06-01T12:00:00+00:00').toBe(true);
    expect(page.strip.filter((b) => b !== failedColumn).every((b) => b.status === 'missing')).toBe(true);
    expect(page.strip[0]?.from).toBe('1970-01-01T00:00:00+00:00');
    expect(page.strip.at(-1)?.to).toBe('2026-11-30T23:59:00+00:00');
    const minutes = (Date.parse('2026-11-30T23:59:00Z') - Date.parse('1970-01-01T00:00:00Z')) / 60_000 + 1;
    expect(page.strip.reduce((n, b) => n + b.count, 0)).toBe(minutes);
    // The oldest pending minutes come after the two that succeeded; all of them are counted.
    expect(page.pending.pending.length).toBe(200);
    expect(page.pending.pending[0]?.date).toBe('1970-01-01T00:02:00+00:00');
    expect(page.pendingTotal).toBe(minutes - 3);
    // The calendar shows the last days that fit 1,500 cells (one day of minutes), not 31 days.
    expect(page.calendar.rows.length).toBe(1);
    expect(page.calendar.hiddenRows).toBe(20_787);
  } finally {
    await ledger.close();
  }
});

describe('the served pipeline page after the schedule changes', () => {
  // The page keeps a strip's periods and column edges per timetable: the same open ledger, redefined from an instant
  // on, draws the new schedule's strip, as a ledger opened afresh and the fold do.
  test('a redefined pipeline is drawn with its new schedule by the ledger that drew the old one', async () => {
    let now = Date.parse('2026-01-02T12:00:00Z');
    const clock = () => now;
    const db = join(dir, `ledger-${++n}.db`);
    const ledger = await openLedger({ db, clock, actor: 'prop' });
    try {
      await ledger.define({ pipeline: 'etl', schedule: '*/5 * * * *', start: '2026-01-01' });
      const run = await ledger.start({ pipeline: 'etl', date: '2026-01-02T11:00:00Z' });
      await ledger.succeed({ runId: run.runId });
      const before = await loadServedPipelinePage(ledger, 'etl', undefined, {}, {});
      now += 3_600_000;
      await ledger.define({ pipeline: 'etl', schedule: '@hourly', start: '2026-01-01', effective: '2026-01-02T13:00:00Z' });
      now += 6 * 3_600_000;
      const after = await loadServedPipelinePage(ledger, 'etl', undefined, {}, {});
      const fresh = await openLedger({ db, clock, actor: 'prop' });
      try {
        const again = await loadServedPipelinePage(fresh, 'etl', undefined, {}, {});
        const folded = await loadPipelinePage(new Ledger(foldOnly(fresh.store), clock, 'prop', { checkpointAfter: 0 }), 'etl', undefined, {}, {});
        expect(after.strip).toEqual(again.strip);
        expect(after.calendar).toEqual(again.calendar);
        expect(after.strip).toEqual(folded.strip);
        expect(after.strip).not.toEqual(before.strip);
      } finally {
        await fresh.close();
      }
    } finally {
      await ledger.close();
    }
  });
});
