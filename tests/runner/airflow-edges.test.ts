// Issue 10 through the library: catchup off past the end, resume after an interrupt,
// the pipeline's own max_active_runs, whole local days for a bare --to.
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { catchup } from '../../src/runner/backfill.js';
import { formatDryRun, formatSummary, summaryJson } from '../../src/runner/format-summary.js';
import { createProgressReporter } from '../../src/runner/progress-reporter.js';
import type { RunReport, RunSummary } from '../../src/runner/run-types.js';
import { planJob } from '../../src/runner/plan-job.js';
import { waitForPlace } from '../../src/runner/wait-for-place.js';
import { tempDir } from './cli-helpers.js';

const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

async function ledgerAt(now: string) {
  const clock = { now: Date.parse(now) };
  const ledger = await openLedger({ db: join(tempDir(), 'runledger.db'), clock: () => clock.now, actor: 'tester' });
  open.push(ledger);
  return { ledger, clock };
}

describe('catchup off never reaches back to an end date in the past (as Airflow)', () => {
  test('when the latest complete interval lies past the end then nothing is due, and the dry run says why', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: false });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots).toEqual([]);
    expect(job.catchup?.pastEnd).toEqual({ latest: '2026-11-09', end: '2026-11-03T00:00:00+00:00' });
    expect(formatDryRun(job)).toContain("only the latest complete interval before now would run (2026-11-09), and that lies past the pipeline's end");
    const summary = await catchup(ledger, { pipeline: 'p' }, () => ({}));
    expect(summary.runs).toEqual([]);
  });

  test.each([
    { label: 'the end slot is the latest complete interval', now: '2026-11-04T12:00:00Z', expected: ['2026-11-03'] },
    { label: 'an earlier slot is the latest complete interval', now: '2026-11-03T12:00:00Z', expected: ['2026-11-02'] },
  ])('when $label then it runs', async ({ now, expected }) => {
    const { ledger } = await ledgerAt(now);
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: false });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots.map((s) => s.date)).toEqual(expected);
    expect(job.catchup?.pastEnd).toBeUndefined();
  });

  test('when catchup is on then an end in the past still bounds a full catchup', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: true });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots.map((s) => s.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  });
});

describe("the pipeline's max_active_runs counts live runs across runners", () => {
  test('a claimed run beyond the limit (by start order) waits until an older live run finishes', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', maxActiveRuns: 2 });
    const runs = [];
    for (const date of ['2026-11-01', '2026-11-02', '2026-11-03']) runs.push(await ledger.start({ pipeline: 'p', date, runType: 'backfill' }));
    const [first, second, third] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
    expect(await waitForPlace(ledger, 'p', 2, { runId: second.runId, pollMs: 5 })).toBe(true);
    let placed = false;
    const waiting = waitForPlace(ledger, 'p', 2, { runId: third.runId, pollMs: 5 }).then((ok) => (placed = ok));
    const before = waitForPlace(ledger, 'p', 2, { pollMs: 5 }).then(() => 'free');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(placed).toBe(false);
    await ledger.succeed({ runId: first.runId });
    await waiting;
    expect(placed).toBe(true);
    // Two live runs remain (second and third): no free place for a new claim until one ends.
    expect(await Promise.race([before, new Promise((resolve) => setTimeout(() => resolve('waiting'), 60))])).toBe('waiting');
    await ledger.succeed({ runId: second.runId });
    expect(await before).toBe('free');
  });

  test('an aborted wait resolves false', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', maxActiveRuns: 1 });
    await ledger.start({ pipeline: 'p', date: '2026-11-01', runType: 'manual' });
    const controller = new AbortController();
    const waiting = waitForPlace(ledger, 'p', 1, { pollMs: 5, signal: controller.signal });
    controller.abort('SIGINT');
    expect(await waiting).toBe(false);
  });

  test('two backfills on two ledger handles of one file never run more than the limit at once, each date once', async () => {
    const dir = tempDir();
    const clock = () => Date.parse('2026-11-20T12:00:00Z');
    const a = await openLedger({ db: join(dir, 'runledger.db'), clock, actor: 'a' });
    open.push(a);
    await a.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', maxActiveRuns: 2 });
    const b = await openLedger({ db: join(dir, 'runledger.db'), clock, actor: 'b' });
    open.push(b);
    let alive = 0;
    let most = 0;
    const ran: string[] = [];
    const work = async (run: { date: string }) => {
      alive += 1;
      most = Math.max(most, alive);
      ran.push(run.date);
      await new Promise((resolve) => setTimeout(resolve, 30));
      alive -= 1;
      return {};
    };
    const range = { pipeline: 'p', from: '2026-11-01', to: '2026-11-12', placePoll: 5 };
    const [sa, sb] = await Promise.all([a.backfill({ ...range, maxActiveRuns: 2 }, work), b.backfill({ ...range, maxActiveRuns: 2 }, work)]);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
    expect(ran.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`));
    expect(sa.succeeded + sb.succeeded).toBe(12);
  });

  test('when the flag asks for more than the pipeline allows then the runner says so once and keeps to it', async () => {
    const { ledger } = await ledgerAt('2026-11-20T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', maxActiveRuns: 1 });
    const notes: string[] = [];
    let alive = 0;
    let most = 0;
    await ledger.backfill(
      { pipeline: 'p', from: '2026-11-01', to: '2026-11-04', maxActiveRuns: 3, onProgress: (p) => void (p.kind === 'note' && notes.push(p.text)) },
      async () => {
        most = Math.max(most, ++alive);
        await new Promise((resolve) => setTimeout(resolve, 10));
        alive -= 1;
        return {};
      },
    );
    expect(most).toBe(1);
    expect(notes).toEqual(["p allows at most 1 live run at once across every runner (its --max-active-runs); running up to 1, not 3. Redefine it with a larger --max-active-runs to allow more"]);
  });
});

describe('quiet stops: the slots a stopped runner never started are one line, --json keeps each', () => {
  const report = (date: string, status: RunReport['status'], skipReason: RunReport['skipReason'] = null): RunReport => ({
    date, runId: status === 'skipped' ? null : `run-${date}`, attempt: status === 'skipped' ? null : 1, status, exitCode: status === 'failed' ? 1 : 0,
    durationMs: 5, reason: 'missing', signal: null, error: status === 'failed' ? 'exited with code 1' : null, code: status === 'failed' ? 'exit:1' : null,
    skipReason, note: skipReason === null ? null : 'not started: an earlier run failed (use --continue-on-failure to carry on)',
  });
  const hours = (from: number, count: number) => Array.from({ length: count }, (_, i) => `2026-11-21T${String(from + i).padStart(2, '0')}:00:00+00:00`);
  const runs = [report('2026-11-21T00:00:00+00:00', 'success'), report('2026-11-21T01:00:00+00:00', 'failed'), ...hours(2, 20).map((d) => report(d, 'skipped', 'stopped'))];
  const summary: RunSummary = { pipeline: 'h', runType: 'backfill', runs, succeeded: 1, failed: 1, unrecorded: 0, skipped: 20, interruptedRuns: 0, interrupted: null, stoppedAfterFailure: true, durationMs: 10, retried: 0, waitingForPrevious: null };

  test('when a failure stops the runner then the summary table has one line for the 20 never-started slots', () => {
    const text = formatSummary(summary);
    expect(text.split('\n').filter((line) => line.includes('not started'))).toEqual([
      '20 slots not started after the failure of 2026-11-21T01:00:00+00:00 (2026-11-21T02:00:00+00:00 .. 2026-11-21T21:00:00+00:00); rerun to continue, or add --continue-on-failure',
    ]);
    expect(text).toContain('2026-11-21T01:00:00+00:00  missing  failed');
    expect(summaryJson(summary).runs).toHaveLength(22);
  });

  test('when the progress goes to a log then the never-started slots are one line too', () => {
    const lines: string[] = [];
    const progress = createProgressReporter({ write: (t) => lines.push(t), isTTY: false, total: 22, label: 'backfill h', childStdout: () => {} });
    for (const r of runs) progress.onProgress({ kind: 'finished', report: r });
    progress.close();
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('backfill h 20 slots not started after the failure of 2026-11-21T01:00:00+00:00 (2026-11-21T02:00:00+00:00 .. 2026-11-21T21:00:00+00:00); rerun to continue, or add --continue-on-failure [22/22]\n');
  });

  test('when the runner was interrupted then the line says to run the same command again', () => {
    const stopped = [report('2026-11-21T00:00:00+00:00', 'interrupted'), ...hours(1, 3).map((d) => report(d, 'skipped', 'interrupted'))];
    const text = formatSummary({ ...summary, runs: stopped, succeeded: 0, failed: 0, skipped: 3, interruptedRuns: 1, interrupted: 'SIGINT' });
    expect(text).toContain('3 slots not started (2026-11-21T01:00:00+00:00 .. 2026-11-21T03:00:00+00:00): the runner was stopped; run the same command again to resume');
    expect(text).toContain('0 succeeded, 0 failed, 1 interrupted, 3 skipped');
  });
});

describe('an interrupted run is pending, and the same command resumes it', () => {
  test('when a catchup is interrupted then the next catchup resumes the interrupted date and the rest', async () => {
    const { ledger } = await ledgerAt('2026-11-05T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01' });
    const controller = new AbortController();
    const first = await catchup(ledger, { pipeline: 'p', signal: controller.signal }, (run, signal) =>
      run.date === '2026-11-02'
        ? new Promise((_, reject) => {
            signal.addEventListener('abort', () => reject(new Error('killed by SIGINT')));
            controller.abort('SIGINT');
          })
        : {},
    );
    expect(first.runs.map((r) => `${r.date} ${r.status}`)).toEqual(['2026-11-01 success', '2026-11-02 interrupted', '2026-11-03 skipped', '2026-11-04 skipped']);
    const pendingNow = await ledger.pending({ pipeline: 'p' });
    expect(pendingNow.pending.map((s) => `${s.date} ${s.reason}`)).toEqual(['2026-11-02 interrupted', '2026-11-03 missing', '2026-11-04 missing']);
    const second = await catchup(ledger, { pipeline: 'p' }, () => ({}));
    expect(second.runs.map((r) => `${r.date} ${r.status} ${r.reason}`)).toEqual(['2026-11-02 success interrupted', '2026-11-03 success missing', '2026-11-04 success missing']);
    const history = await ledger.runs({ pipeline: 'p', date: '2026-11-02' });
    expect(history.runs.map((r) => r.status)).toEqual(['interrupted', 'success']);
  });

  test('when a parallel catchup run after it succeeded then the catchup still reaches back to the interrupted date', async () => {
    const { ledger } = await ledgerAt('2026-11-05T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', maxActiveRuns: 2 });
    const a = await ledger.start({ pipeline: 'p', date: '2026-11-02', runType: 'catchup' });
    const b = await ledger.start({ pipeline: 'p', date: '2026-11-03', runType: 'catchup' });
    await ledger.interrupt({ runId: a.runId, by: 'SIGTERM', message: 'stopped' });
    await ledger.succeed({ runId: b.runId });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots.map((s) => `${s.date} ${s.reason}`)).toEqual(['2026-11-02 interrupted', '2026-11-04 missing']);
  });

  test('an interruption is fenced like a failure: recorded once, and no completion after it', async () => {
    const { ledger } = await ledgerAt('2026-11-05T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01' });
    const run = await ledger.start({ pipeline: 'p', date: '2026-11-01', runType: 'backfill' });
    expect((await ledger.interrupt({ runId: run.runId, by: 'SIGINT' })).status).toBe('interrupted');
    expect((await ledger.interrupt({ runId: run.runId, by: 'SIGINT' })).repeated).toBe(true);
    await expect(ledger.succeed({ runId: run.runId })).rejects.toThrow(`run ${run.runId} of p 2026-11-01 was interrupted; its success is not recorded. Start a new attempt to run it again`);
    const state = await ledger.state({ pipeline: 'p', to: '2026-11-01' });
    expect(state.dates[0]).toMatchObject({ status: 'interrupted', errorCode: 'interrupted' });
    const log = await ledger.log({ pipeline: 'p', types: ['RunInterrupted'] });
    expect(log.events).toHaveLength(1);
  });
});
