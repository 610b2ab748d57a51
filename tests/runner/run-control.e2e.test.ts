// Run control with the real binary and real processes: retries with their delays, a timeout that leaves no process
// behind, a date marked skipped, and depends on past.
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, tempDir } from './cli-helpers.js';

type LogEvent = { position: number; type: string; recordedAt: string; data: Record<string, unknown> };

function events(dir: string, db: string, types: string): LogEvent[] {
  const r = cli(dir, ['--db', db, 'log', 'p', '--type', types, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { events: LogEvent[] }).events;
}

/** Whether a process still runs: gone, or a zombie nobody reaped yet (dead, its parent gone), is not running. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('run control, end to end', () => {
  test('a command that fails twice then succeeds ends success at attempt 3, each retry started no sooner than its delay', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    expect(cli(dir, ['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01', '--retries', '3', '--retry-delay', '1s']).code).toBe(0);
    const script = join(dir, 'flaky.sh');
    writeFileSync(script, '#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n[ $n -ge 3 ] && exit 0\necho "source not ready ($n)" >&2; exit 1\n');
    chmodSync(script, 0o755);
    const r = cli(dir, ['--db', db, 'backfill', 'p', '--from', '2026-11-01', '--to', '2026-11-01', '--no-logs', '--json', '--', script]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { runs: Array<{ status: string; attempt: number; retry: { attempt: number; of: number } }>; retried: number };
    expect(summary.runs.map((x) => [x.status, x.attempt, x.retry])).toEqual([['success', 3, { attempt: 3, of: 4 }]]);
    expect(summary.retried).toBe(2);
    expect(r.stderr).toContain('2026-11-01 failed (attempt 1 of 4): exited with code 1: source not ready (1); attempt 2 at');
    const log = events(dir, db, 'RunStarted,RunFailed,RetryScheduled,RunSucceeded');
    expect(log.map((e) => e.type)).toEqual(['RunStarted', 'RunFailed', 'RetryScheduled', 'RunStarted', 'RunFailed', 'RetryScheduled', 'RunStarted', 'RunSucceeded']);
    for (const i of [2, 5]) {
      const failed = log[i - 1] as LogEvent;
      const retry = log[i] as LogEvent;
      const next = log[i + 1] as LogEvent;
      // The delay is the schedule in the ledger: due one second after the failure was decided (its recording comes
      // a moment later), and the next attempt not before it.
      expect(retry.data['delayMs']).toBe(1000);
      expect(Date.parse(retry.data['nextAt'] as string) - Date.parse(failed.recordedAt)).toBeLessThanOrEqual(1000);
      expect(Date.parse(next.recordedAt)).toBeGreaterThanOrEqual(Date.parse(retry.data['nextAt'] as string));
    }
    const state = JSON.parse(cli(dir, ['--db', db, 'state', 'p', '--to', '2026-11-01', '--json']).stdout) as { dates: Array<{ status: string; attempt: number; retry: unknown }> };
    expect(state.dates).toMatchObject([{ status: 'success', attempt: 3, retry: { attempt: 3, of: 4, nextAt: null } }]);
  });

  test('sleep 60 with --timeout 1s fails "timed out after 1s" within the grace period and leaves no process behind', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    expect(cli(dir, ['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    const began = Date.now();
    // The shell starts a second sleep in the background: the whole process group must go, not only the shell.
    const r = cli(dir, ['--db', db, 'backfill', 'p', '--from', '2026-11-01', '--to', '2026-11-01', '--timeout', '1s', '--kill-grace', '60s', '--no-logs', '--json', '--', 'sh', '-c', 'echo $$ > pids; sleep 60 & echo $! >> pids; sleep 60']);
    const tookMs = Date.now() - began;
    expect(r.code, r.stderr).toBe(6);
    const summary = JSON.parse(r.stdout) as { runs: Array<{ status: string; error: string; code: string }> };
    expect(summary.runs.map((x) => [x.status, x.error, x.code])).toEqual([['failed', 'timed out after 1s', 'timeout']]);
    // SIGTERM at one second; SIGKILL would follow a minute later: the run ended inside that grace, so SIGTERM ended it
    // (a bound set by the behaviour, not a speed check: a loaded machine takes seconds, the other path 61).
    expect(tookMs).toBeLessThan(60_000);
    const pids = readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.filter(running)).toEqual([]);
    const state = JSON.parse(cli(dir, ['--db', db, 'state', 'p', '--to', '2026-11-01', '--json']).stdout) as { dates: Array<{ status: string; error: string; errorCode: string }> };
    expect(state.dates).toMatchObject([{ status: 'failed', error: 'timed out after 1s', errorCode: 'timeout' }]);
  });

  test('a date marked skipped moves complete-through; the mark is in the log with its actor and reason', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    const now = ['--now', '2026-11-04T00:00:00Z'];
    expect(cli(dir, ['--db', db, ...now, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    expect(cli(dir, ['--db', db, ...now, 'backfill', 'p', '--from', '2026-11-01', '--to', '2026-11-03', '--continue-on-failure', '--no-logs', '--', 'sh', '-c', 'test {date} != 2026-11-02']).code).toBe(6);
    expect(JSON.parse(cli(dir, ['--db', db, ...now, 'watermark', 'p', '--json']).stdout)).toMatchObject({ watermark: '2026-11-03', completeThrough: '2026-11-01' });
    const refused = cli(dir, ['--db', db, ...now, 'mark', 'p', '2026-11-02', '--skipped']);
    expect([refused.code, refused.stderr.trim()]).toEqual([2, 'runledger: a mark needs a reason, recorded with it: add --reason "…", e.g. --reason "holiday: the source publishes nothing"']);
    const marked = cli(dir, ['--db', db, ...now, '--actor', 'alice', 'mark', 'p', '2026-11-02', '--skipped', '--reason', 'holiday: no orders']);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stdout).toContain('marked 1 date(s) of p skipped');
    expect(JSON.parse(cli(dir, ['--db', db, ...now, 'watermark', 'p', '--json']).stdout)).toMatchObject({ watermark: '2026-11-03', completeThrough: '2026-11-03' });
    expect(JSON.parse(cli(dir, ['--db', db, ...now, 'pending', 'p', '--json']).stdout).pending).toEqual([]);
    const log = JSON.parse(cli(dir, ['--db', db, 'log', 'p', '--type', 'RunMarked', '--json']).stdout) as { events: Array<{ data: { status: string; previousStatus: string }; metadata: { actor: string; reason: string } }> };
    expect(log.events.map((e) => [e.data.status, e.data.previousStatus, e.metadata.actor, e.metadata.reason])).toEqual([['skipped', 'failed', 'alice', 'holiday: no orders']]);
  });

  test('a depends-on-past pipeline with a failed day runs nothing after it, and says why', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    const now = ['--now', '2026-11-06T00:00:00Z'];
    expect(cli(dir, ['--db', db, ...now, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01', '--depends-on-past']).code).toBe(0);
    const first = cli(dir, ['--db', db, ...now, 'catchup', 'p', '--continue-on-failure', '--no-logs', '--', 'sh', '-c', 'echo {date} >> ran; test {date} != 2026-11-02']);
    expect(first.code).toBe(6);
    expect(readFileSync(join(dir, 'ran'), 'utf8').trim().split('\n')).toEqual(['2026-11-01', '2026-11-02']);
    const again = cli(dir, ['--db', db, ...now, 'catchup', 'p', '--no-logs', '--', 'sh', '-c', 'echo {date} >> ran']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('runledger: p depends on past: 2026-11-03 cannot run while 2026-11-02 before it is failed, so nothing after it ran (exit 3).');
    expect(readFileSync(join(dir, 'ran'), 'utf8').trim().split('\n')).toEqual(['2026-11-01', '2026-11-02']);
    const pending = cli(dir, ['--db', db, ...now, 'pending', 'p']);
    expect(pending.stdout).toMatch(/2026-11-03 +waiting for previous +after 2026-11-02/);
  });
});
