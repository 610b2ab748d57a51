// The watchdog's second net: a command spawned but not yet watched (its runner killed between `spawn` and
// `watch`) is found by the run id in its environment and stopped at the end of file, like a watched group.
// Real processes, a real pipe closed; /proc is read as on any Linux host.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { groupReaper } from '../../src/runner/group-reaper.js';

function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (const give = Date.now() + 20_000; !check(); ) {
    if (Date.now() > give) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A detached `sleep` (its own group, as the runner starts commands) carrying `RUNLEDGER_RUN_ID=<runId>`. */
function command(runId: string): number {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore', env: { ...process.env, RUNLEDGER_RUN_ID: runId } });
  child.unref();
  return child.pid as number;
}

describe.skipIf(!existsSync('/proc/self/environ'))('the watchdog and run ids', () => {
  test('when the pipe closes then a command of a watched run is stopped though its group was never watched, and another run\'s is not', async () => {
    const reaper = groupReaper({ graceMs: 1000 });
    await reaper.ready();
    reaper.watchRun('01RUNWATCHED0000000000000A');
    reaper.watchRun('01RUNFINISHED000000000000B');
    reaper.unwatchRun('01RUNFINISHED000000000000B');
    const watched = command('01RUNWATCHED0000000000000A');
    const finished = command('01RUNFINISHED000000000000B');
    const other = command('01RUNOTHER00000000000000C');
    try {
      await until(() => readFileSync(`/proc/${watched}/environ`).includes('RUNLEDGER_RUN_ID=01RUNWATCHED'), 'the command has exec\'d');
      reaper.close();
      await until(() => !running(watched), 'the watched run\'s command is stopped');
      // The watchdog has acted (it stops everything at once); the others are still there.
      expect(running(finished)).toBe(true);
      expect(running(other)).toBe(true);
    } finally {
      for (const pid of [watched, finished, other]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  });
});
