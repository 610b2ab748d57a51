// `runledger scheduler` (issue 39, items 1 and 2) with the real binary: one pass leaves the ledger as
// `catchup --all` does on the Jakarta outage fleet; the long-running loop drains on SIGTERM, and after a
// kill -9 a restarted scheduler finishes every date with no process of the killed run left behind.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { cli, cliAsync, tempDir, waitForFile } from './cli-helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** Three UTC days after the outage began (the dependencies guide's fleet). */
const NOW = '2026-11-04T01:00:00Z';
const FAILING_HOUR = '2026-11-02T10:00:00+07:00';

type DateRow = { date: string; status: string; attempt: number | null; attempts: number; dataInterval: unknown; metrics: unknown; error: unknown };

function defineFleet(dir: string): void {
  const env = { RUNLEDGER_NOW: NOW };
  expect(cli(dir, ['define', 'orders_raw', '--schedule', '@hourly', '--start', '2026-11-01', '--tz', 'Asia/Jakarta', '--command', '--', 'sh', '-c', 'test ! -e "fail-$RUNLEDGER_DATE"'], env).code).toBe(0);
  expect(cli(dir, ['define', 'sales_report', '--schedule', '@daily', '--start', '2026-11-01', '--upstream', 'orders_raw', '--command', '--', 'true'], env).code).toBe(0);
  // One hour fails, so one day of sales_report waits for it: both ways must leave that the same.
  writeFileSync(join(dir, `fail-${FAILING_HOUR}`), '');
}

/** What each date ended as, without what differs by nature between two runs (ids, instants, run types). */
function outcome(dir: string): Record<string, Array<Pick<DateRow, 'date' | 'status' | 'attempt' | 'attempts' | 'dataInterval' | 'metrics'>>> {
  const result: Record<string, Array<Pick<DateRow, 'date' | 'status' | 'attempt' | 'attempts' | 'dataInterval' | 'metrics'>>> = {};
  for (const pipeline of ['orders_raw', 'sales_report']) {
    const r = cli(dir, ['--now', NOW, 'state', pipeline, '--json']);
    expect(r.code).toBe(0);
    result[pipeline] = (JSON.parse(r.stdout) as { dates: DateRow[] }).dates.map(({ date, status, attempt, attempts, dataInterval, metrics }) => ({ date, status, attempt, attempts, dataInterval, metrics }));
  }
  return result;
}

describe('scheduler --once', () => {
  test('when run over the Jakarta outage then it leaves the same ledger state as catchup --all, one line per run started and ended', async () => {
    const viaCatchup = tempDir();
    const viaScheduler = tempDir();
    defineFleet(viaCatchup);
    defineFleet(viaScheduler);
    const a = await cliAsync(viaCatchup, ['--now', NOW, 'catchup', '--all', '--no-logs']).done;
    const b = await cliAsync(viaScheduler, ['--now', NOW, 'scheduler', '--once', '--no-logs', '--json']).done;
    expect(a.code).toBe(6);
    expect(b.code).toBe(6);
    const expected = outcome(viaCatchup);
    expect(expected['orders_raw']).toHaveLength(80);
    expect(expected['orders_raw']?.filter((d) => d.status === 'failed').map((d) => d.date)).toEqual([FAILING_HOUR]);
    expect(outcome(viaScheduler)).toEqual(expected);

    const events = b.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; pipeline?: string; date?: string; runId?: string; status?: string });
    const started = events.filter((e) => e.event === 'started');
    const ended = events.filter((e) => e.event === 'ended');
    // 80 hours (from midnight in Jakarta, 17:00 UTC the day before) and the two days whose hours all succeeded.
    expect(started).toHaveLength(82);
    expect(ended.map((e) => e.runId).sort()).toEqual(started.map((e) => e.runId).sort());
    expect(events.filter((e) => e.event === 'skipped').map((e) => `${e.pipeline} ${e.date}`)).toEqual(['sales_report 2026-11-02']);
    expect(events.at(-1)).toMatchObject({ event: 'pass', started: 82, succeeded: 81, failed: 1 });
    // Recorded as scheduled runs.
    const runs = JSON.parse(cli(viaScheduler, ['--now', NOW, 'runs', 'sales_report', '--json']).stdout) as { runs: Array<{ runType: string }> };
    expect(new Set(runs.runs.map((r) => r.runType))).toEqual(new Set(['scheduled']));

    // A second pass has nothing new to run but what depends on the fix.
    const again = await cliAsync(viaScheduler, ['--now', NOW, 'scheduler', '--once', '--no-logs']).done;
    expect(again.stdout).toContain('pass: 1 started, 0 succeeded, 1 failed');
  });

  test('when a pipeline is named that does not exist then it exits 4 and runs nothing', () => {
    const dir = tempDir();
    defineFleet(dir);
    const r = cli(dir, ['--now', NOW, 'scheduler', '--once', 'orders_rwa']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('orders_rwa');
    expect(JSON.parse(cli(dir, ['--now', NOW, 'log', '--json']).stdout).events.filter((e: { type: string }) => e.type === 'RunStarted')).toEqual([]);
  });
});

describe('scheduler, running', () => {
  test('when it gets SIGTERM mid-run then it starts nothing new, lets the run finish within --drain, and exits 0', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    expect(cli(dir, ['define', 'etl', '--schedule', '@daily', '--start', '2026-11-01', '--max-active-runs', '1', '--command', '--', 'sh', '-c', 'touch "started-$RUNLEDGER_DATE"; sleep 1; echo "$RUNLEDGER_DATE" >> done.txt'], env).code).toBe(0);
    const { child, done } = cliAsync(dir, ['scheduler', '--no-logs', '--drain', '30s'], env);
    await waitForFile(join(dir, 'started-2026-11-01'));
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('SIGTERM: starting nothing new');
    // The run in flight finished; nothing after it started.
    expect(readFileSync(join(dir, 'done.txt'), 'utf8').trim().split('\n')).toEqual(['2026-11-01']);
    const state = JSON.parse(cli(dir, ['--now', NOW, 'state', 'etl', '--json']).stdout) as { dates: DateRow[] };
    expect(state.dates.map((d) => `${d.date} ${d.status}`)).toEqual(['2026-11-01 success', '2026-11-02 missing', '2026-11-03 missing']);
  });

  test('when it gets a second signal during the drain then the run in flight is stopped at once and recorded as interrupted', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    expect(cli(dir, ['define', 'etl', '--schedule', '@daily', '--start', '2026-11-03', '--command', '--', 'sh', '-c', 'touch started; exec sleep 3003'], env).code).toBe(0);
    const { child, done } = cliAsync(dir, ['scheduler', '--no-logs', '--kill-grace', '1s'], env);
    await waitForFile(join(dir, 'started'));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/interrupted etl 2026-11-03 attempt 1/);
    const state = JSON.parse(cli(dir, ['--now', NOW, 'state', 'etl', '--json']).stdout) as { dates: DateRow[] };
    expect(state.dates.map((d) => `${d.date} ${d.status}`)).toEqual(['2026-11-03 interrupted']);
  });
});

describe('pipelines that run the same command', () => {
  // The scheduler keeps one command task per distinct command: what differs per pipeline (its timeout) and per run
  // (RUNLEDGER_PIPELINE, RUNLEDGER_DATE, RUNLEDGER_RUN_ID) must still be each run's own.
  test('each run gets its own pipeline, date and run id, and a timeout stops only the pipeline that has one', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    const command = ['sh', '-c', 'echo "$RUNLEDGER_PIPELINE $RUNLEDGER_DATE $RUNLEDGER_RUN_ID" >> seen.log; sleep 3'];
    expect(cli(dir, ['define', 'timed', '--schedule', '@daily', '--start', '2026-11-02', '--timeout', '1s', '--command', '--', ...command], env).code).toBe(0);
    expect(cli(dir, ['define', 'untimed', '--schedule', '@daily', '--start', '2026-11-02', '--command', '--', ...command], env).code).toBe(0);
    const r = await cliAsync(dir, ['--now', NOW, 'scheduler', '--once', '--no-logs', '--json']).done;
    expect(r.code).toBe(6);
    const seen = readFileSync(join(dir, 'seen.log'), 'utf8').trim().split('\n').sort();
    const expected: string[] = [];
    for (const pipeline of ['timed', 'untimed']) {
      const runs = JSON.parse(cli(dir, ['--now', NOW, 'runs', pipeline, '--json']).stdout) as { runs: Array<{ runId: string; date: string; status: string; error: string | null }> };
      expect(runs.runs.map((run) => run.date).sort()).toEqual(['2026-11-02', '2026-11-03']);
      for (const run of runs.runs) {
        expected.push(`${pipeline} ${run.date} ${run.runId}`);
        if (pipeline === 'timed') expect([run.status, run.error]).toEqual(['failed', 'timed out after 1s']);
        else expect(run.status).toBe('success');
      }
    }
    expect(seen).toEqual(expected.sort());
  });
});
