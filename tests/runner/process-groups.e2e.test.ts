// No command outlives its run (issue 39, item 3): a timeout, the end of a run and the runner's own death by
// SIGKILL each end the command's whole process group, members that ignore SIGTERM included. Real processes and
// real signals: that is the subject.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { cliAsync, inProcess, stateOf, tempDir, waitForFile } from './cli-helpers.js';
import { sleepRunning } from '../support/sleep-running.js';

vi.setConfig({ testTimeout: 60_000 });

/**
 * A command that ignores SIGTERM and starts a grandchild that ignores it too; each writes its pid to a file.
 * `sh -c 'trap "" TERM; …'` leaves SIGTERM ignored in what it execs, as the reproduction does.
 */
const STUBBORN = `trap "" TERM; echo $$ > leader.pid; sh -c 'trap "" TERM; echo $$ > grandchild.pid; exec sleep 3003' & sleep 3004`;

function pidIn(dir: string, file: string): number {
  return Number(readFileSync(join(dir, file), 'utf8').trim());
}

function killLeftovers(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
}

async function defineDaily(dir: string, extra: string[] = []): Promise<string> {
  // The real clock (a lease must run out): a daily pipeline that started three days ago, in UTC.
  const start = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const r = await inProcess(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', start, ...extra]);
  if (r.code !== 0) throw new Error(`define failed: ${r.stderr}`);
  return start;
}

describe('a timeout ends the whole process group', () => {
  test('when a command and its grandchild ignore SIGTERM then both are killed after --kill-grace and the attempt fails as timed out', async () => {
    const dir = tempDir();
    const date = await defineDaily(dir);
    const r = await cliAsync(dir, ['backfill', 'etl_orders', '--from', date, '--to', date, '--timeout', '1s', '--kill-grace', '1s', '--no-logs', '--json', '--', 'sh', '-c', STUBBORN]).done;
    const pids = [pidIn(dir, 'leader.pid'), pidIn(dir, 'grandchild.pid')];
    try {
      expect(r.code).toBe(6);
      expect(JSON.parse(r.stdout)).toMatchObject({ runs: [{ date, status: 'failed', error: expect.stringContaining('timed out after 1s') }] });
      // The runner returned only once the group was empty.
      expect(pids.filter(sleepRunning)).toEqual([]);
    } finally {
      killLeftovers(pids);
    }
  });
});

describe('the end of a run ends what its command left behind', () => {
  test('when a command exits 0 with a background child still running then the child is stopped before the run is recorded', async () => {
    const dir = tempDir();
    const date = await defineDaily(dir);
    const r = await cliAsync(dir, ['backfill', 'etl_orders', '--from', date, '--to', date, '--kill-grace', '1s', '--no-logs', '--json', '--', 'sh', '-c', "sh -c 'echo $$ > grandchild.pid; exec sleep 3003' & sleep 0.3; exit 0"]).done;
    const pid = pidIn(dir, 'grandchild.pid');
    try {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ runs: [{ date, status: 'success' }] });
      expect(sleepRunning(pid)).toBe(false);
    } finally {
      killLeftovers([pid]);
    }
  });
});

describe('a runner killed with SIGKILL takes its commands with it', () => {
  test('when the runner dies mid-run then its command group dies within the grace, before the lease lets another runner take over, and the attempts continue without overlap', async () => {
    const dir = tempDir();
    const date = await defineDaily(dir);
    // Each attempt logs its start; the stubborn part never ends by itself.
    const command = `echo "start $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log; if [ "$RUNLEDGER_ATTEMPT" = 1 ]; then ${STUBBORN}; fi; echo "end $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log`;
    const { child, done } = cliAsync(dir, ['backfill', 'etl_orders', '--from', date, '--to', date, '--lease', '6s', '--kill-grace', '1s', '--no-logs', '--', 'sh', '-c', command]);
    await waitForFile(join(dir, 'grandchild.pid'));
    const pids = [pidIn(dir, 'leader.pid'), pidIn(dir, 'grandchild.pid')];
    try {
      child.kill('SIGKILL');
      await done;
      // A takeover may start once the lease ran out: by then nothing of attempt 1 runs any more.
      while ((await stateOf(dir, new Date().toISOString())).get(date)?.stalled !== true) await new Promise((r) => setTimeout(r, 200));
      expect(pids.filter(sleepRunning)).toEqual([]);
      const takeoverFrom = Date.now();

      const again = await cliAsync(dir, ['backfill', 'etl_orders', '--from', date, '--to', date, '--no-logs', '--json', '--', 'sh', '-c', command]).done;
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ runs: [{ date, status: 'success', attempt: 2, reason: 'stalled' }] });
      const log = readFileSync(join(dir, 'attempts.log'), 'utf8').trim().split('\n');
      expect(log.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['start 1', 'start 2', 'end 2']);
      // Attempt 2 started after every process of attempt 1 was seen gone.
      expect(Number(log[1]?.split(' ')[2]) / 1e6).toBeGreaterThan(takeoverFrom);
    } finally {
      killLeftovers(pids);
    }
  });
});
