// Issue 39: a takeover on the host that started a run first makes sure nothing of that run still works there. A
// scheduler that is paused (SIGSTOP) stops heartbeating while its command runs on; once the lease has run out,
// another runner on the same host finds the command's process (it carries the run's id) and leaves the date,
// instead of starting attempt 2 beside it. Resumed, the first scheduler finishes attempt 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { cli, cliAsync, tempDir, waitForFile } from './cli-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe('a takeover on the same host', () => {
  test('when the runner of a stalled run is paused while its command still runs then catchup leaves the date, and the resumed runner finishes attempt 1', async () => {
    const dir = tempDir();
    const start = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    // Runs until the file `go` exists, well past its 1 s lease.
    const command = 'touch running; while [ ! -e go ]; do sleep 0.1; done; echo done >> ran.log';
    expect(cli(dir, ['define', 'slow', '--schedule', '@daily', '--start', start, '--lease', '1s', '--command', '--', 'sh', '-c', command]).code).toBe(0);
    const first = cliAsync(dir, ['scheduler', '--no-logs']);
    try {
      await waitForFile(join(dir, 'running'));
      first.child.kill('SIGSTOP');
      // Past the lease by the clock of the second runner: the run is stalled.
      const later = new Date(Date.now() + 10_000).toISOString();
      const stalled = JSON.parse(cli(dir, ['--now', later, 'state', 'slow', '--json']).stdout) as { dates: Array<{ stalled: boolean; attempt: number }> };
      expect(stalled.dates.map((d) => [d.stalled, d.attempt])).toEqual([[true, 1]]);
      const catchup = cli(dir, ['--now', later, 'catchup', 'slow', '--no-logs', '--json']);
      const summary = JSON.parse(catchup.stdout) as { runs: Array<{ status: string; skipReason: string | null; note: string | null }> };
      expect(summary.runs.map((r) => [r.status, r.skipReason])).toEqual([['skipped', 'oldRunAlive']]);
      expect(summary.runs[0]?.note).toMatch(/^run \S+ \(started by pid \d+ on \S+\) still has a process running here \(pid \d+\); it is taken over once that process has ended$/);
    } finally {
      first.child.kill('SIGCONT');
    }
    writeFileSync(join(dir, 'go'), '');
    const give = Date.now() + 30_000;
    for (;;) {
      const state = JSON.parse(cli(dir, ['state', 'slow', '--json']).stdout) as { dates: Array<{ status: string; attempt: number }> };
      if (state.dates[0]?.status === 'success') {
        expect(state.dates.map((d) => d.attempt)).toEqual([1]);
        break;
      }
      if (Date.now() > give) throw new Error('the resumed scheduler did not finish attempt 1');
      await new Promise((r) => setTimeout(r, 200));
    }
    first.child.kill('SIGTERM');
    expect((await first.done).code).toBe(0);
    expect(readFileSync(join(dir, 'ran.log'), 'utf8')).toBe('done\n');
  });
});
