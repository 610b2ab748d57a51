// The runner with real processes: parallel runs, signals, a killed runner, two runners at once (issue 4).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { NOW, cliAsync, defineOrders, inProcess, stateOf, tempDir, waitForFile } from './cli-helpers.js';

vi.setConfig({ testTimeout: 30_000 });

/** A child that logs when it starts and ends, and sleeps in between. */
const PROBE = `
import { appendFileSync } from 'node:fs';
const [date, ms] = process.argv.slice(2);
appendFileSync('events.log', 'start ' + date + ' ' + Date.now() + '\\n');
setTimeout(() => appendFileSync('events.log', 'end ' + date + ' ' + Date.now() + '\\n'), Number(ms));
`;

/** The most runs alive at once, from start/end lines. */
function maxConcurrent(log: string): number {
  const events = log
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([kind, , at]) => ({ delta: kind === 'start' ? 1 : -1, at: Number(at) }))
    // At the same millisecond, count an end before a start: that is not an overlap.
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let alive = 0;
  let most = 0;
  for (const e of events) most = Math.max(most, (alive += e.delta));
  return most;
}

describe('--max-active-runs', () => {
  test('when N=3 over six dates then at most three commands run at once, and three do', async () => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '3']);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    const now = '2026-11-08T01:00:00+07:00';
    const { done } = cliAsync(dir, ['--now', now, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-07', '--max-active-runs', '3', '--json', '--', process.execPath, 'probe.mjs', '{date}', '800']);
    const r = await done;
    expect(r.code).toBe(0);
    const log = readFileSync(join(dir, 'events.log'), 'utf8');
    expect(log.match(/^start /gm)).toHaveLength(6);
    expect(maxConcurrent(log)).toBe(3);
    const summary = JSON.parse(r.stdout) as { runs: Array<{ date: string; status: string }>; succeeded: number };
    expect(summary.succeeded).toBe(6);
    expect(summary.runs.map((x) => x.date)).toEqual(['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']);
  });
});

describe('signals: a stopped runner leaves nothing running', () => {
  test.each([
    { signal: 'SIGTERM' as const, code: 143 },
    { signal: 'SIGINT' as const, code: 130 },
  ])('when the runner gets $signal mid-run then running dates are recorded as interrupted (pending, not failed) and it exits $code', async ({ signal, code }) => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '2']);
    const { child, done } = cliAsync(dir, ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-04', '--max-active-runs', '2', '--', 'sh', '-c', 'touch started-{date}; exec sleep 120']);
    await waitForFile(join(dir, 'started-2026-11-02'));
    await waitForFile(join(dir, 'started-2026-11-03'));
    const sentAt = Date.now();
    child.kill(signal);
    const r = await done;
    expect(r.code).toBe(code);
    // The runner stopped its commands rather than waiting for them (they sleep two minutes): a bound set by the
    // behaviour, not a speed check.
    expect(Date.now() - sentAt).toBeLessThan(60_000);
    expect(r.stderr).toContain(`stopped by ${signal}`);
    const state = await stateOf(dir);
    expect([...state.values()].filter((d) => d.status === 'running')).toEqual([]);
    expect(state.get('2026-11-02')).toMatchObject({ status: 'interrupted', errorCode: 'interrupted' });
    expect(state.get('2026-11-03')).toMatchObject({ status: 'interrupted', errorCode: 'interrupted' });
    expect(r.stderr).toContain('2 running dates were recorded as interrupted (pending, not failed); 1 not started. Run the same command again to resume.');
    expect(state.get('2026-11-04')?.status).toBe('missing');
  });
});

describe('a runner killed with SIGKILL', () => {
  test('when its lease runs out then the date shows as stalled and pending, and the next backfill takes it over', async () => {
    const dir = tempDir();
    // The real clock: the runner must heartbeat against time that moves. Start three days ago, in UTC.
    const start = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    expect((await inProcess(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', start])).code).toBe(0);
    const { child, done } = cliAsync(dir, ['backfill', 'etl_orders', '--from', start, '--to', start, '--lease', '2s', '--', 'sh', '-c', 'echo $$ > child.pid; exec sleep 20']);
    await waitForFile(join(dir, 'child.pid'));
    const realNow = () => new Date().toISOString();
    expect((await stateOf(dir, realNow())).get(start)).toMatchObject({ status: 'running', stalled: false });

    child.kill('SIGKILL');
    await done;
    // The command lives on in its own process group; end it, as an operator would.
    const pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8').trim());
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }

    const later = new Date(Date.now() + 5000).toISOString();
    expect((await stateOf(dir, later)).get(start)).toMatchObject({ status: 'running', stalled: true });
    const pending = JSON.parse((await inProcess(dir, ['--now', later, 'pending', 'etl_orders', '--json'])).stdout) as { pending: Array<{ date: string; reason: string }> };
    expect(pending.pending.find((p) => p.date === start)?.reason).toBe('stalled');

    const { done: again } = cliAsync(dir, ['--now', later, 'backfill', 'etl_orders', '--from', start, '--to', start, '--json', '--', 'true']);
    const r = await again;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ runs: [{ date: start, status: 'success', attempt: 2, reason: 'stalled' }] });
    const runs = JSON.parse((await inProcess(dir, ['--now', later, 'runs', 'etl_orders', '--json'])).stdout) as { runs: Array<{ status: string }> };
    expect(runs.runs.map((x) => x.status)).toEqual(['abandoned', 'success']);
  });
});

describe('two runners on one pipeline', () => {
  test('when two backfills race over the same dates then each date runs exactly once and the loser says why it skipped', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const args = ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-04', '--json', '--', 'sh', '-c', 'echo {date} >> ran.txt; sleep 0.4'];
    const [a, b] = await Promise.all([cliAsync(dir, args).done, cliAsync(dir, args).done]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const ran = readFileSync(join(dir, 'ran.txt'), 'utf8').trim().split('\n').sort();
    expect(ran).toEqual(['2026-11-02', '2026-11-03', '2026-11-04']);
    type Summary = { runs: Array<{ date: string; status: string; note: string | null }> };
    const runs = [...(JSON.parse(a.stdout) as Summary).runs, ...(JSON.parse(b.stdout) as Summary).runs];
    expect(runs.filter((r) => r.status === 'success').map((r) => r.date).sort()).toEqual(['2026-11-02', '2026-11-03', '2026-11-04']);
    expect(runs.some((r) => r.status === 'skipped' && /in flight|since planned|already succeeded/.test(r.note ?? ''))).toBe(true);
    const state = await stateOf(dir);
    expect([...state.values()].map((d) => `${d.status} ${d.attempts}`)).toEqual(['success 1', 'success 1', 'success 1']);
  });
});
