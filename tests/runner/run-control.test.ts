// Run control through the library, on a clock the test moves: retries (with their delays in ledger time), a timeout
// through the function's AbortSignal, marks, and depends on past.
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isLedgerError } from '../../src/errors.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { resolveRetryPolicy, retryDelayMs } from '../../src/runner/retry-policy.js';
import { tempDir } from './cli-helpers.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');
const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

/** A ledger with etl_orders defined, a clock the test moves, and a sleep that moves it instead of waiting. */
async function ledgerWith(definition: Record<string, unknown> = {}) {
  const clock = { now: NOW };
  const ledger = await openLedger({ db: join(tempDir(), 'runledger.db'), clock: () => clock.now, actor: 'tester' });
  open.push(ledger);
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', ...definition });
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
    clock.now += ms;
  };
  return { ledger, clock, slept, sleep };
}

const dates = async (ledger: Ledger) => (await ledger.state({ pipeline: 'etl_orders' })).dates;

describe('retries', () => {
  test('a function that fails twice then succeeds ends success at attempt 3, each retry after its delay in ledger time', async () => {
    const { ledger, clock, sleep } = await ledgerWith({ retries: 3, retryDelay: 300_000, retryExponential: true });
    const startedAt: number[] = [];
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', sleep }, async (run) => {
      startedAt.push(clock.now);
      if (startedAt.length < 3) throw new Error(`flaky source, try ${startedAt.length}`);
      return { rows: run.attempt };
    });
    expect(summary.runs.map((r) => [r.date, r.status, r.retry])).toEqual([['2026-11-02', 'success', { attempt: 3, of: 4 }]]);
    expect([summary.succeeded, summary.failed, summary.retried]).toEqual([1, 0, 2]);
    // 5 minutes, then 10 (exponential), measured on the ledger's clock: no real waiting.
    expect([(startedAt[1] ?? 0) - (startedAt[0] ?? 0), (startedAt[2] ?? 0) - (startedAt[1] ?? 0)]).toEqual([300_000, 600_000]);
    const [row] = await dates(ledger);
    expect(row).toMatchObject({ status: 'success', attempt: 3, attempts: 3, retry: { attempt: 3, of: 4, nextAt: null } });
    const log = await ledger.log({ pipeline: 'etl_orders', types: ['RunFailed', 'RetryScheduled'] });
    expect(log.events.map((e) => (e.type === 'RetryScheduled' ? `retry ${e.data.attempt}/${e.data.maxAttempts} +${e.data.delayMs}` : `failed ${e.type === 'RunFailed' ? e.data.error : ''}`))).toEqual([
      'failed flaky source, try 1',
      'retry 2/4 +300000',
      'failed flaky source, try 2',
      'retry 3/4 +600000',
    ]);
    // The retry goes in the same append as its failure: consecutive positions, nothing between them.
    expect(log.events[1]?.position).toBe((log.events[0]?.position ?? 0) + 1);
  });

  test('a date fails only when its retries are spent; while it waits it is up_for_retry with the attempt and the time', async () => {
    const { ledger, sleep } = await ledgerWith({ retries: 1, retryDelay: 60_000 });
    const seen: string[] = [];
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', sleep }, async (run) => {
      const [row] = await dates(ledger);
      seen.push(`${row?.status} ${run.attempt}`);
      throw new Error('always down');
    });
    expect(summary.runs.map((r) => [r.status, r.retry])).toEqual([['failed', { attempt: 2, of: 2 }]]);
    expect(seen).toEqual(['running 1', 'running 2']);
    const pending = await ledger.pending({ pipeline: 'etl_orders', to: '2026-11-02' });
    expect(pending.pending.map((p) => p.reason)).toEqual(['failed']);
  });

  test('a runner stopped while a retry waits leaves it up_for_retry in the ledger; the next runner resumes the wait, not the count', async () => {
    const { ledger, clock, sleep } = await ledgerWith({ retries: 2, retryDelay: 3_600_000 });
    const controller = new AbortController();
    const first = await ledger.backfill(
      { pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', signal: controller.signal, sleep: async () => controller.abort('SIGTERM') },
      async () => {
        throw new Error('down');
      },
    );
    expect(first.runs.map((r) => [r.status, r.skipReason])).toEqual([['skipped', 'waitingForRetry']]);
    const waiting = (await dates(ledger))[0];
    expect(waiting).toMatchObject({ status: 'up_for_retry', retry: { attempt: 2, of: 3, nextAt: new Date(NOW + 3_600_000).toISOString() } });
    const pending = await ledger.pending({ pipeline: 'etl_orders', to: '2026-11-02' });
    expect(pending.pending).toMatchObject([{ date: '2026-11-02', reason: 'up_for_retry', retry: { attempt: 2, of: 3 } }]);
    // Half the hour later a new runner starts: it waits the other half, then runs attempt 2 of 3.
    clock.now += 1_800_000;
    const slept: number[] = [];
    const startedAt: number[] = [];
    const second = await ledger.backfill(
      { pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', sleep: async (ms) => {
          slept.push(ms);
          await sleep(ms);
        },
      },
      async () => {
        startedAt.push(clock.now);
        return {};
      },
    );
    expect(second.runs.map((r) => [r.status, r.reason, r.retry])).toEqual([['success', 'up_for_retry', { attempt: 2, of: 3 }]]);
    expect(startedAt).toEqual([NOW + 3_600_000]);
    expect(slept.reduce((a, b) => a + b, 0)).toBe(1_800_000);
  });

  test('with max active runs 1, a date waiting for its retry does not hold the place: the next date runs meanwhile', async () => {
    const { ledger, sleep } = await ledgerWith({ retries: 1, retryDelay: 600_000, maxActiveRuns: 1 });
    const order: string[] = [];
    let failedOnce = false;
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-03', sleep, continueOnFailure: true }, async (run) => {
      order.push(`${run.date}#${run.attempt}`);
      if (run.date === '2026-11-02' && !failedOnce) {
        failedOnce = true;
        throw new Error('late file');
      }
      return {};
    });
    expect(order).toEqual(['2026-11-02#1', '2026-11-03#1', '2026-11-02#2']);
    expect(summary.runs.map((r) => `${r.date} ${r.status}`)).toEqual(['2026-11-02 success', '2026-11-03 success']);
  });

  test('backfill options override the definition; exponential delays stop at the maximum', () => {
    const definition = { retries: 1, retryDelayMs: 1000 } as Parameters<typeof resolveRetryPolicy>[0];
    const policy = resolveRetryPolicy(definition, { retries: 5, retryDelay: '1m', retryExponential: true, maxRetryDelay: '5m' });
    expect(policy).toEqual({ maxAttempts: 6, delayMs: 60_000, exponential: true, maxDelayMs: 300_000 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n))).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
    expect(resolveRetryPolicy(definition)).toEqual({ maxAttempts: 2, delayMs: 1000, exponential: false, maxDelayMs: 86_400_000 });
  });
});

describe('timeout', () => {
  test('withRun aborts the function through its signal, records "timed out after", and throws ledger.timedOut', async () => {
    const { ledger } = await ledgerWith();
    let reason: unknown;
    const error = await ledger
      // The one library shape: the timeout rides in withRun's options object with the pipeline and date.
      .withRun({ pipeline: 'etl_orders', date: '2026-11-02', timeout: 50 }, (_run, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            reject(new Error('aborted'));
          });
        }),
      )
      .catch((e: unknown) => e);
    expect(isLedgerError(error) && error.code).toBe('ledger.timedOut');
    expect(reason).toBe('timeout');
    expect((await dates(ledger))[0]).toMatchObject({ status: 'failed', error: 'timed out after 50ms', errorCode: 'timeout' });
  });

  test('a timed-out attempt counts against the retries', async () => {
    const { ledger, sleep } = await ledgerWith({ retries: 1, retryDelay: 0 });
    let calls = 0;
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', sleep, timeout: 30 }, (_run, signal) => {
      calls += 1;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))));
    });
    expect(calls).toBe(2);
    expect(summary.runs.map((r) => [r.status, r.error, r.code])).toEqual([['failed', 'timed out after 30ms', 'timeout']]);
  });
});

describe('mark', () => {
  test('a date marked skipped is done for complete-through and pending, never the watermark; a clear undoes it', async () => {
    const { ledger } = await ledgerWith();
    await ledger.withRun('etl_orders', '2026-11-02', () => ({}));
    const marked = await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: 'holiday' });
    expect(marked.marked.map((m) => [m.date, m.previousStatus])).toEqual([['2026-11-03', 'missing']]);
    await ledger.withRun('etl_orders', '2026-11-04', () => ({}));
    expect(await ledger.watermark({ pipeline: 'etl_orders' })).toEqual({ pipeline: 'etl_orders', watermark: '2026-11-04', completeThrough: '2026-11-04' });
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending).toEqual([]);
    expect((await dates(ledger))[1]).toMatchObject({ status: 'skipped', mark: { status: 'skipped', actor: 'tester', reason: 'holiday' } });
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: 'the file came after all' });
    expect((await ledger.watermark({ pipeline: 'etl_orders' })).completeThrough).toBe('2026-11-02');
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending.map((p) => `${p.date} ${p.reason}`)).toEqual(['2026-11-03 cleared']);
  });

  test('mark success records that no command ran and moves the watermark; a running date refuses the whole mark', async () => {
    const { ledger } = await ledgerWith();
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-02'], success: true, reason: 'loaded by hand' });
    expect((await ledger.watermark({ pipeline: 'etl_orders' })).watermark).toBe('2026-11-02');
    expect((await ledger.runs({ pipeline: 'etl_orders' })).runs).toEqual([]);
    await ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' });
    const refused = await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03', '2026-11-04'], skipped: true, reason: 'x' }).catch((e: unknown) => e);
    expect(isLedgerError(refused) && [refused.code, refused.exitCode]).toEqual(['ledger.alreadyRunning', 3]);
    expect((await dates(ledger)).map((d) => d.status)).toEqual(['success', 'missing', 'running']);
    const noReason = await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: ' ' }).catch((e: unknown) => e);
    expect(isLedgerError(noReason) && noReason.code).toBe('input.missingReason');
  });

  test('a skipped date is left alone by backfill unless reprocessed, and starting it needs force', async () => {
    const { ledger } = await ledgerWith();
    await ledger.mark({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-03', skipped: true, reason: 'no source data' });
    const ran: string[] = [];
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, (run) => void ran.push(run.date));
    expect(ran).toEqual(['2026-11-04']);
    expect(summary.succeeded).toBe(1);
    const refused = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' }).catch((e: unknown) => e);
    expect(isLedgerError(refused) && refused.code).toBe('ledger.alreadySucceeded');
  });
});

describe('depends on past', () => {
  test('a failed day holds back every later date: backfill stops at the first that cannot run, and pending says why', async () => {
    const { ledger } = await ledgerWith({ dependsOnPast: true });
    const ran: string[] = [];
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', continueOnFailure: true }, (run) => {
      ran.push(run.date);
      if (run.date === '2026-11-02') throw new Error('bad input');
    });
    expect(ran).toEqual(['2026-11-02']);
    expect(summary.runs.map((r) => `${r.date} ${r.status} ${r.skipReason ?? ''}`.trim())).toEqual([
      '2026-11-02 failed',
      '2026-11-03 skipped waitingForPrevious',
      '2026-11-04 skipped waitingForPrevious',
    ]);
    expect(summary.waitingForPrevious).toEqual({ date: '2026-11-03', previous: '2026-11-02', status: 'failed' });
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending.map((p) => `${p.date} ${p.reason} ${p.previous ?? ''}`.trim())).toEqual([
      '2026-11-02 failed',
      '2026-11-03 waitingForPrevious 2026-11-02',
      '2026-11-04 waitingForPrevious 2026-11-03',
    ]);
    const refused = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' }).catch((e: unknown) => e);
    expect(isLedgerError(refused) && refused.code).toBe('ledger.waitingForPrevious');
    // A manual run is the explicit override; marking the failed day skipped lets the rest run.
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-02'], skipped: true, reason: 'source was empty that day' });
    const after = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, (run) => void ran.push(run.date));
    expect(after.succeeded).toBe(2);
    expect(ran.slice(1)).toEqual(['2026-11-03', '2026-11-04']);
  });
});
