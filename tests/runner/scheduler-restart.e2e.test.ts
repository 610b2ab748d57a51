// A scheduler killed with SIGKILL and started again (issue 39's acceptance): while a date waits for its retry,
// and while a command runs that ignores SIGTERM and started a grandchild. After the restart every date ends
// `success`, the attempt numbers continue, nothing of the killed run is left, and no two attempts of a date
// overlap in time (each command logs its own start and end). The real clock: retries and leases must pass.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { cli, cliAsync, tempDir, waitForFile, type CliResult } from './cli-helpers.js';
import type { ChildProcess } from 'node:child_process';
import { sleepRunning } from '../support/sleep-running.js';

vi.setConfig({ testTimeout: 120_000 });

type DateRow = { date: string; status: string; attempt: number | null };

function dates(dir: string, pipeline: string): DateRow[] {
  return (JSON.parse(cli(dir, ['--now', new Date().toISOString(), 'state', pipeline, '--json']).stdout) as { dates: DateRow[] }).dates;
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const give = Date.now() + ms;
  while (!check()) {
    if (Date.now() > give) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Each attempt's [start, end] from the commands' own log, by date; an attempt killed before its end has none. */
function attempts(log: string): Map<string, Array<{ attempt: number; start: number; end: number | null }>> {
  const byDate = new Map<string, Array<{ attempt: number; start: number; end: number | null }>>();
  for (const line of log.trim().split('\n')) {
    const [kind, date, attempt, ns] = line.split(' ');
    const list = byDate.get(date as string) ?? [];
    byDate.set(date as string, list);
    if (kind === 'start') list.push({ attempt: Number(attempt), start: Number(ns) / 1e6, end: null });
    else {
      const open = list.find((a) => a.attempt === Number(attempt));
      if (open) open.end = Number(ns) / 1e6;
    }
  }
  return byDate;
}

/** No attempt of a date starts before the one before it ended (or, killed, before its processes were seen gone). */
function expectNoOverlap(byDate: ReturnType<typeof attempts>, killedGoneBy: number): void {
  for (const [, list] of byDate) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1] as { start: number; end: number | null };
      expect(sorted[i]?.start).toBeGreaterThan(before.end ?? killedGoneBy);
    }
  }
}

async function stop(child: ChildProcess, done: Promise<CliResult>): Promise<CliResult> {
  child.kill('SIGTERM');
  return done;
}

const LOG = (extra: string) => `echo "start $RUNLEDGER_DATE $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log; ${extra} echo "end $RUNLEDGER_DATE $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log`;

describe('a scheduler killed with SIGKILL and started again', () => {
  test('when it is killed while dates wait for their retry then the restarted scheduler runs the retries at their time, attempt 2, and every date succeeds', async () => {
    const dir = tempDir();
    const start = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    // Fails until the file `ok` exists; the end is logged before the exit either way. The retry delay is long
    // enough that the first scheduler is killed before any retry starts, even on a loaded machine: the kill follows
    // the second failure by one look at the state (200 ms), and the two failures are a command start apart.
    const command = LOG('if [ ! -e ok ]; then echo "end $RUNLEDGER_DATE $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log; exit 1; fi;');
    expect(cli(dir, ['define', 'flaky', '--schedule', '@daily', '--start', start, '--retries', '2', '--retry-delay', '8s', '--command', '--', 'sh', '-c', command]).code).toBe(0);
    const first = cliAsync(dir, ['scheduler', '--no-logs']);
    await until('both dates up for retry', () => dates(dir, 'flaky').filter((d) => d.status === 'up_for_retry').length === 2);
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(join(dir, 'ok'), '');

    const second = cliAsync(dir, ['scheduler', '--no-logs']);
    await until('every date succeeded', () => dates(dir, 'flaky').every((d) => d.status === 'success'));
    const r = await stop(second.child, second.done);
    expect(r.code).toBe(0);
    expect(dates(dir, 'flaky').map((d) => d.attempt)).toEqual([2, 2]);
    expect(r.stdout).toMatch(/started flaky \S+ attempt 2/);
    const byDate = attempts(readFileSync(join(dir, 'attempts.log'), 'utf8'));
    expect([...byDate.values()].map((list) => list.map((a) => a.attempt))).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expectNoOverlap(byDate, 0);
  });

  test('when it is killed while a command that ignores SIGTERM runs with a grandchild then both die, and after the lease the restarted scheduler takes the date over as attempt 2', async () => {
    const dir = tempDir();
    const start = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const stubborn = `if [ "$RUNLEDGER_ATTEMPT" = 1 ]; then trap "" TERM; echo $$ > leader.pid; sh -c 'trap "" TERM; echo $$ > grandchild.pid; exec sleep 3003' & sleep 3004; fi;`;
    // A short lease: nothing else runs the date while the first scheduler lives, and a takeover on this host waits for
    // the killed run's processes to be gone (runner/old-run-processes.ts), which the overlap check below holds it to.
    expect(cli(dir, ['define', 'slow', '--schedule', '@daily', '--start', start, '--lease', '2s', '--command', '--', 'sh', '-c', LOG(stubborn)]).code).toBe(0);
    const first = cliAsync(dir, ['scheduler', '--no-logs', '--kill-grace', '1s']);
    await waitForFile(join(dir, 'grandchild.pid'));
    const pids = [Number(readFileSync(join(dir, 'leader.pid'), 'utf8')), Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'))];
    try {
      first.child.kill('SIGKILL');
      await first.done;
      // Restarted at once: the date is still running on its lease, so the new scheduler waits for the lease's end.
      const second = cliAsync(dir, ['scheduler', '--no-logs', '--kill-grace', '1s']);
      await until('the killed run\'s processes are gone', () => !pids.some(sleepRunning), 30_000);
      const goneBy = Date.now();
      await until('the date succeeded', () => dates(dir, 'slow').every((d) => d.status === 'success'));
      const r = await stop(second.child, second.done);
      expect(r.code).toBe(0);
      expect(dates(dir, 'slow').map((d) => [d.status, d.attempt])).toEqual([['success', 2]]);
      const byDate = attempts(readFileSync(join(dir, 'attempts.log'), 'utf8'));
      expect([...byDate.values()].map((list) => list.map((a) => [a.attempt, a.end !== null]))).toEqual([
        [
          [1, false],
          [2, true],
        ],
      ]);
      expectNoOverlap(byDate, goneBy);
      const runs = JSON.parse(cli(dir, ['--now', new Date().toISOString(), 'runs', 'slow', '--json']).stdout) as { runs: Array<{ status: string }> };
      expect(runs.runs.map((x) => x.status)).toEqual(['abandoned', 'success']);
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone, as it should be.
        }
      }
    }
  });
});
