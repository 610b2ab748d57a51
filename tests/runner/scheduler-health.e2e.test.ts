// Issue 39: the scheduler's own health (last pass, next wake, runs in flight) in `status`, the web view and
// `/metrics` of other processes, from the row it keeps in the ledger's database; a scheduler killed with SIGKILL
// shows as stale once it has been silent for more than three heartbeats (by the reader's clock: `--now`).
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { BIN, servingAddress } from '../support/run-cli.js';
import { cli, cliAsync, tempDir, waitForFile } from './cli-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

type Scheduler = { host: string; pid: number; state: string; stale: boolean; silentSeconds: number; passes: number; lastPassAt: string | null; nextWake: { at: string; why: string; pipeline: string; date: string } | null; inFlight: Array<{ pipeline: string; attempt: number }>; parallel: number };

function schedulers(dir: string, now?: string): Scheduler[] {
  const r = cli(dir, [...(now ? ['--now', now] : []), 'status', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { schedulers: Scheduler[] }).schedulers;
}

/** `/metrics` and the overview page of a `serve` on the ledger, over a real socket, at `now`. */
async function served(dir: string, now: string | undefined): Promise<{ metrics: PrometheusFamily[]; page: string }> {
  const child = spawn(process.execPath, [BIN, '--db', join(dir, 'runledger.db'), ...(now ? ['--now', now] : []), 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const address = await servingAddress(child);
    const metrics = parsePrometheusTextFormat(await (await fetch(`${address}/metrics`)).text());
    const page = await (await fetch(`${address}/`)).text();
    return { metrics, page };
  } finally {
    const exit = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exit;
  }
}

function sample(families: PrometheusFamily[], name: string, pid: number): string | undefined {
  const family = families.find((f) => f.name === name);
  return (family?.metrics as Array<{ value: string; labels?: Record<string, string> }> | undefined)?.find((m) => m.labels?.['pid'] === String(pid))?.value;
}

describe('the scheduler\'s health', () => {
  test('when a scheduler runs a date then status, /metrics and the web view show it running with its run in flight; killed, it shows as stale', async () => {
    const dir = tempDir();
    const start = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(cli(dir, ['define', 'slow', '--schedule', '@daily', '--start', start, '--command', '--', 'sh', '-c', 'touch running; while [ ! -e go ]; do sleep 0.1; done']).code).toBe(0);
    const scheduler = cliAsync(dir, ['scheduler', '--no-logs', '--parallel', '3']);
    const pid = scheduler.child.pid as number;
    // Whatever the assertions below do: no scheduler, command or per-run directory outlives the test.
    onTestFinished(async () => {
      writeFileSync(join(dir, 'go'), '');
      if (scheduler.child.exitCode === null && scheduler.child.signalCode === null) scheduler.child.kill('SIGKILL');
      await scheduler.done;
      for (const name of readdirSync(tmpdir())) if (name.startsWith(`runledger-run-${pid}-`)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
    });
    await waitForFile(join(dir, 'running'));
    // The row is written as the run starts; the status of another process reads it.
    let mine: Scheduler | undefined;
    for (const give = Date.now() + 30_000; mine?.inFlight.length !== 1 && Date.now() < give; ) {
      mine = schedulers(dir).find((s) => s.pid === pid);
      if (mine?.inFlight.length !== 1) await new Promise((r) => setTimeout(r, 100));
    }
    expect(mine).toMatchObject({ state: 'running', stale: false, parallel: 3, inFlight: [{ pipeline: 'slow', attempt: 1 }] });
    expect(mine?.passes).toBeGreaterThan(0);
    expect(Date.parse(mine?.lastPassAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    // The next wake is the pass's soonest work: the pass that started the run read nothing in flight and names
    // tomorrow's slot; a later pass (its own appends wake it) names the run's lease end, which comes sooner.
    const wake = mine?.nextWake;
    if (wake?.why === 'lease') {
      expect(wake).toMatchObject({ pipeline: 'slow', date: start });
      expect(Date.parse(wake.at) - Date.now()).toBeGreaterThan(30 * 60_000);
    } else {
      expect(wake).toMatchObject({ why: 'due', pipeline: 'slow' });
      expect(wake?.date).not.toBe(start);
    }
    const text = cli(dir, ['status']).stdout;
    expect(text).toMatch(new RegExp(`SCHEDULER +STATE +LAST PASS +NEXT WAKE +IN FLIGHT\\n\\S+ pid ${pid} +running +\\S+ ago +\\S+ \\((due|lease) slow \\S+\\) +1 of 3`));

    const live = await served(dir, undefined);
    expect(sample(live.metrics, 'runledger_scheduler_runs_in_flight', pid)).toBe('1');
    expect(sample(live.metrics, 'runledger_scheduler_stale', pid)).toBe('0');
    expect(sample(live.metrics, 'runledger_scheduler_parallel', pid)).toBe('3');
    // Its own appends wake it for another pass meanwhile: the last pass is this one or a later one.
    expect(Number(sample(live.metrics, 'runledger_scheduler_last_pass_timestamp_seconds', pid))).toBeGreaterThanOrEqual(Date.parse(mine?.lastPassAt ?? '') / 1000);
    expect(live.page).toMatch(new RegExp(`<tr data-scheduler="\\S+ ${pid}" data-state="running">`));
    expect(live.page).toContain('1 of 3');

    scheduler.child.kill('SIGKILL');
    await scheduler.done;
    // A minute later by the reader's clock: silent for more than three heartbeats of 10 s.
    const later = new Date(Date.now() + 60_000).toISOString();
    const dead = schedulers(dir, later).find((s) => s.pid === pid);
    expect(dead).toMatchObject({ state: 'running', stale: true });
    expect(dead?.silentSeconds).toBeGreaterThanOrEqual(59);
    expect(cli(dir, ['--now', later, 'status']).stdout).toMatch(new RegExp(`pid ${pid} +stale: silent for 1m`));
    const after = await served(dir, later);
    expect(sample(after.metrics, 'runledger_scheduler_stale', pid)).toBe('1');
    expect(Number(sample(after.metrics, 'runledger_scheduler_heartbeat_age_seconds', pid))).toBeGreaterThanOrEqual(59);
    expect(after.page).toMatch(new RegExp(`<tr data-scheduler="\\S+ ${pid}" data-state="stale">`));
  });

  test('when scheduler --once makes its pass at a fixed clock then its row says stopped, one pass at that instant, nothing in flight', () => {
    const dir = tempDir();
    expect(cli(dir, ['define', 'quick', '--schedule', '@daily', '--start', '2026-11-01', '--command', '--', 'true']).code).toBe(0);
    expect(cli(dir, ['--now', '2026-11-03T00:30:00Z', 'scheduler', '--once', '--no-logs']).code).toBe(0);
    const [row, ...others] = schedulers(dir, '2026-11-03T00:31:00Z');
    expect(others).toEqual([]);
    expect(row).toMatchObject({ state: 'stopped', stale: false, passes: 1, lastPassAt: '2026-11-03T00:30:00.000Z', nextWake: null, inFlight: [] });
    expect(cli(dir, ['--now', '2026-11-03T00:31:00Z', 'status']).stdout).toMatch(/pid \d+ +stopped 1m00s ago +1m00s ago +- +-/);
  });
});
