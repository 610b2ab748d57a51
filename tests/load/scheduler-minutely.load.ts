import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, cliAsync, tempDir } from '../runner/cli-helpers.js';

/**
 * Issue 39's real-clock acceptance: a `* * * * *` pipeline under `runledger scheduler` runs each minute exactly
 * once over three minutes, each run starting no earlier than the minute it covers has ended (its run-after).
 * It takes more than three minutes, so it lives with the load tests: `npm run test:load`.
 */
describe('scheduler, real clock', () => {
  test('when a minutely pipeline runs for three minutes then every minute that fell due ran exactly once, after it ended', async () => {
    const dir = tempDir();
    // The first slot starts at the current minute: the scheduler sleeps until each minute's end.
    const start = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const define = cli(dir, ['define', 'minutely', '--schedule', '* * * * *', '--start', start, '--command', '--', 'sh', '-c', 'echo "$RUNLEDGER_DATE $(date +%s%N)" >> ran.log']);
    expect(define.code).toBe(0);
    const began = Date.now();
    const { child, done } = cliAsync(dir, ['scheduler', '--no-logs', '--json']);
    await new Promise((r) => setTimeout(r, 3 * 60_000 + 10_000));
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);

    const ran = readFileSync(join(dir, 'ran.log'), 'utf8').trim().split('\n').map((line) => line.split(' ')).map(([date, ns]) => ({ date: date as string, at: Number(ns) / 1e6 }));
    // Every minute whose end fell between the start and the stop ran, once each.
    const due: string[] = [];
    for (let t = Date.parse(start); t + 60_000 <= stoppedAt - 5_000; t += 60_000) if (t + 60_000 > began - 60_000) due.push(new Date(t).toISOString());
    expect(due.length).toBeGreaterThanOrEqual(3);
    const dates = ran.map((x) => new Date(Date.parse(x.date)).toISOString());
    expect(new Set(dates).size).toBe(dates.length);
    for (const minute of due) expect(dates).toContain(minute);
    // None ran before its minute was over.
    for (const x of ran) expect(x.at).toBeGreaterThanOrEqual(Date.parse(x.date) + 60_000);
    const state = JSON.parse(cli(dir, ['--now', new Date(stoppedAt).toISOString(), 'state', 'minutely', '--json']).stdout) as { dates: Array<{ status: string; attempts: number }> };
    expect(state.dates.filter((d) => d.status !== 'missing').every((d) => d.status === 'success' && d.attempts === 1)).toBe(true);
  }, 300_000);
});
