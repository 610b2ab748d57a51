// The library side of the runner: ledger.backfill, ledger.withRun, catchup, progress output.
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { catchup } from '../../src/runner/backfill.js';
import { fillPlaceholders } from '../../src/runner/command-task.js';
import { createProgressReporter } from '../../src/runner/progress-reporter.js';
import type { RunContext, RunReport } from '../../src/runner/run-types.js';
import { tempDir } from './cli-helpers.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');
const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

/** A ledger with etl_orders defined, on a clock the test can move. */
async function ledgerWithOrders(options: { catchup?: boolean; maxActiveRuns?: number } = {}) {
  const clock = { now: NOW };
  const ledger = await openLedger({ db: join(tempDir(), 'runledger.db'), clock: () => clock.now, actor: 'tester' });
  open.push(ledger);
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', catchup: options.catchup ?? true, maxActiveRuns: options.maxActiveRuns ?? 1 });
  return { ledger, clock };
}

const statuses = async (ledger: Ledger) => (await ledger.state({ pipeline: 'etl_orders' })).dates.map((d) => `${d.date} ${d.status}`);

describe('ledger.backfill', () => {
  test('when the function returns metrics then each date succeeds with them, oldest first', async () => {
    const { ledger } = await ledgerWithOrders();
    const seen: string[] = [];
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, async (run) => {
      seen.push(`${run.date} ${run.runType} ${run.reason} ${run.dataInterval.start}`);
      return { rows: run.date.length };
    });
    expect(seen).toEqual([
      '2026-11-02 backfill missing 2026-11-02T00:00:00+07:00',
      '2026-11-03 backfill missing 2026-11-03T00:00:00+07:00',
      '2026-11-04 backfill missing 2026-11-04T00:00:00+07:00',
    ]);
    expect([summary.succeeded, summary.failed, summary.skipped]).toEqual([3, 0, 0]);
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates[0]?.metrics).toEqual({ rows: 10 });
  });

  test('when the function throws then the run fails with its message and code and the backfill stops', async () => {
    const { ledger } = await ledgerWithOrders();
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, async (run) => {
      if (run.date === '2026-11-03') throw Object.assign(new Error('no partition'), { code: 'ENOENT' });
      return {};
    });
    expect(summary.runs.map((r) => `${r.date} ${r.status} ${r.code ?? ''}`.trim())).toEqual(['2026-11-02 success', '2026-11-03 failed ENOENT', '2026-11-04 skipped']);
    expect(summary.stoppedAfterFailure).toBe(true);
    expect(await statuses(ledger)).toEqual(['2026-11-02 success', '2026-11-03 failed', '2026-11-04 missing']);
  });

  test('when continueOnFailure and maxActiveRuns are given then every date runs, at most N at once', async () => {
    const { ledger } = await ledgerWithOrders({ maxActiveRuns: 2 });
    let alive = 0;
    let most = 0;
    const summary = await ledger.backfill(
      { pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', continueOnFailure: true, maxActiveRuns: 2, runBackwards: true },
      async (run) => {
        most = Math.max(most, ++alive);
        await new Promise((r) => setTimeout(r, 30));
        alive--;
        if (run.date === '2026-11-04') throw new Error('bad day');
      },
    );
    expect(most).toBe(2);
    expect(summary.runs.map((r) => `${r.date} ${r.status}`)).toEqual(['2026-11-04 failed', '2026-11-03 success', '2026-11-02 success']);
  });

  test('when the signal aborts then running dates are recorded as interrupted (not failed) and the rest are not started', async () => {
    const { ledger } = await ledgerWithOrders();
    const controller = new AbortController();
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', signal: controller.signal }, (_run, signal) =>
      new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(new Error('stopped')));
        controller.abort('SIGTERM');
      }),
    );
    expect(summary.interrupted).toBe('SIGTERM');
    expect(summary.runs.map((r) => `${r.date} ${r.status} ${r.code ?? r.skipReason}`)).toEqual(['2026-11-02 interrupted interrupted', '2026-11-03 skipped interrupted', '2026-11-04 skipped interrupted']);
    expect([summary.failed, summary.interruptedRuns]).toEqual([0, 1]);
    expect(await statuses(ledger)).toEqual(['2026-11-02 interrupted', '2026-11-03 missing', '2026-11-04 missing']);
  });

  test('when a date is cleared while it runs then its work is fenced out and its signal aborts', async () => {
    const { ledger } = await ledgerWithOrders();
    let aborted = false;
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', heartbeat: 10 }, async (_run, signal) => {
      await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-02'], reason: 'bad upstream data' });
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      aborted = true;
      return { rows: 1 };
    });
    expect(aborted).toBe(true);
    expect(summary.runs[0]).toMatchObject({ status: 'failed', code: 'fenced' });
    expect((await statuses(ledger))[0]).toBe('2026-11-02 cleared');
  });

  test('when the function takes longer than the lease then heartbeats keep it alive', async () => {
    const { ledger, clock } = await ledgerWithOrders();
    await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', lease: 1000, heartbeat: 5 }, async () => {
      for (let i = 0; i < 5; i++) {
        clock.now += 500;
        await new Promise((r) => setTimeout(r, 20));
      }
      const row = (await ledger.state({ pipeline: 'etl_orders' })).dates[0];
      expect(row).toMatchObject({ status: 'running', stalled: false });
    });
    expect((await statuses(ledger))[0]).toBe('2026-11-02 success');
  });
});

describe('ledger.withRun', () => {
  test('when the function returns then the run succeeds with its metrics', async () => {
    const { ledger } = await ledgerWithOrders();
    const result = await ledger.withRun('etl_orders', '2026-11-03', async (run) => ({ date: run.date, rows: 5 }));
    expect(result.metrics).toEqual({ date: '2026-11-03', rows: 5 });
    expect(result.run).toMatchObject({ date: '2026-11-03', attempt: 1, runType: 'scheduled' });
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates.find((d) => d.date === '2026-11-03')?.status).toBe('success');
  });

  test('when the function throws then the run is failed and the same error is rethrown', async () => {
    const { ledger } = await ledgerWithOrders();
    const boom = new Error('warehouse unreachable');
    await expect(ledger.withRun('etl_orders', '2026-11-03', async () => Promise.reject(boom))).rejects.toBe(boom);
    const row = (await ledger.state({ pipeline: 'etl_orders' })).dates.find((d) => d.date === '2026-11-03');
    expect(row).toMatchObject({ status: 'failed', error: 'warehouse unreachable', errorCode: 'error' });
  });

  test('when the date already succeeded then the start is refused before the function runs', async () => {
    const { ledger } = await ledgerWithOrders();
    await ledger.withRun('etl_orders', '2026-11-03', () => undefined);
    let called = false;
    const refusal = await ledger.withRun('etl_orders', '2026-11-03', () => void (called = true)).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(LedgerError);
    expect((refusal as LedgerError).code).toBe('ledger.alreadySucceeded');
    expect(called).toBe(false);
  });
});

describe('catchup (S9) as a library call', () => {
  test('when catchup is off then only the latest due date runs, as a catchup run', async () => {
    const { ledger } = await ledgerWithOrders({ catchup: false });
    const summary = await catchup(ledger, { pipeline: 'etl_orders' }, () => ({}));
    expect(summary.runs.map((r) => `${r.date} ${r.status}`)).toEqual(['2026-11-04 success']);
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates.find((d) => d.date === '2026-11-04')?.runType).toBe('catchup');
  });
});

describe('placeholders', () => {
  const run: RunContext = {
    pipeline: 'etl_orders', date: '2026-11-02', runId: '01RUN', attempt: 1, runType: 'backfill', logicalDate: '2026-11-02T00:00:00+07:00',
    dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' }, runAfter: '2026-11-03T00:00:00+07:00', reason: 'missing',
    limits: { metricsBytes: 65536, errorBytes: 65536 },
  };
  test.each([
    { label: 'date', arg: '--date={date}', expected: '--date=2026-11-02' },
    { label: 'interval bounds', arg: '{start}..{end}', expected: '2026-11-02T00:00:00+07:00..2026-11-03T00:00:00+07:00' },
    { label: 'run id, twice', arg: '{runId}/{runId}', expected: '01RUN/01RUN' },
    { label: 'other braces are left alone', arg: "awk '{print $1}' {pipeline}", expected: "awk '{print $1}' {pipeline}" },
  ])('$label', ({ arg, expected }) => {
    expect(fillPlaceholders(arg, run)).toBe(expected);
  });
});

describe('progress', () => {
  const report = (date: string, status: RunReport['status']): RunReport => ({
    date, runId: 'R', attempt: 1, status, exitCode: status === 'success' ? 0 : 1, durationMs: 120, reason: 'missing', signal: null,
    error: status === 'failed' ? 'exited with code 1: boom' : null, code: null, skipReason: null, note: null,
  });

  test('without a terminal: one plain line per date, no carriage returns', () => {
    let text = '';
    const progress = createProgressReporter({ write: (t) => (text += t), isTTY: false, total: 2, label: 'backfill etl_orders', childStdout: () => undefined });
    progress.onProgress({ kind: 'finished', report: report('2026-11-02', 'success') });
    progress.onProgress({ kind: 'finished', report: report('2026-11-03', 'failed') });
    progress.close();
    expect(text).toBe('backfill etl_orders 2026-11-02 success (attempt 1, 0.12s) [1/2]\nbackfill etl_orders 2026-11-03 failed (attempt 1, 0.12s): exited with code 1: boom [2/2]\n');
  });

  test('on a terminal: a bar redrawn in place with the current date, counts and elapsed time', () => {
    let text = '';
    let t = 0;
    const progress = createProgressReporter({ write: (s) => (text += s), isTTY: true, total: 2, label: 'backfill etl_orders', childStdout: () => undefined, monotonic: () => t });
    progress.onProgress({ kind: 'started', run: { date: '2026-11-02' } as RunContext });
    t = 1500;
    progress.onProgress({ kind: 'finished', report: report('2026-11-02', 'success') });
    progress.close();
    expect(text).toContain('\r\x1b[2Kbackfill etl_orders [--------------------] 0/2 done · running 2026-11-02 · 0.00s');
    expect(text).toContain('\r\x1b[2Kbackfill etl_orders [##########----------] 1/2 done · 1.50s');
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });
});
