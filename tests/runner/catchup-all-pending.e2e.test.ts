// A daily Asia/Jakarta job through a three-day outage in which one day fails: `catchup --all-pending` is the one
// command that finishes everything, and every hint the runner prints names a command that works then (each is run).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { cli, tempDir, type CliResult } from './cli-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

/** Fails 2026-11-25 once (an `Error:` on stderr, exit 1), leaving a marker so the next attempt succeeds. */
const FAILS_ONCE = ['--', 'sh', '-c', 'if [ "$1" = 2026-11-25 ] && [ ! -e failed-once ]; then touch failed-once; echo "Error: upstream API returned 503" >&2; exit 1; fi', 'job', '{date}'];

type State = { dates: Array<{ date: string; status: string; runType: string | null }> };

function at(dir: string, now: string, args: string[]): CliResult {
  return cli(dir, ['--now', now, ...args]);
}

function statuses(dir: string, now: string): Record<string, string> {
  const view = JSON.parse(at(dir, now, ['state', 'jkt', '--json']).stdout) as State;
  return Object.fromEntries(view.dates.map((d) => [d.date, d.status]));
}

/** The command a hint names between backticks, as arguments (the `…` stands for the command after --). */
function hintedCommand(text: string): string[] {
  const m = /`runledger ([^`]+)`/.exec(text);
  if (!m?.[1]) throw new Error(`no command in: ${text}`);
  return m[1].replace(/ -- …$/, '').split(' ');
}

function outage(): string {
  const dir = tempDir();
  expect(at(dir, '2026-11-20T08:00:00+07:00', ['define', 'jkt', '--schedule', '@daily', '--start', '2026-11-20', '--tz', 'Asia/Jakarta']).code).toBe(0);
  // The scheduler's last good night, then three days down (11-25 .. 11-27 without a run).
  expect(at(dir, '2026-11-25T00:30:00+07:00', ['catchup', 'jkt', ...FAILS_ONCE]).code).toBe(0);
  return dir;
}

const EVERY_DATE = ['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'];

describe('catchup --all-pending after an outage in which one day fails', () => {
  test('the hint of the failed catchup names --all-pending, and running it ends with every date success', () => {
    const dir = outage();
    const failed = at(dir, '2026-11-28T00:30:00+07:00', ['catchup', 'jkt', ...FAILS_ONCE]);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toContain('`runledger catchup jkt --all-pending -- …`');
    expect(statuses(dir, '2026-11-28T00:30:00+07:00')['2026-11-25']).toBe('failed');

    const hinted = hintedCommand(failed.stderr);
    expect(hinted).toEqual(['catchup', 'jkt', '--all-pending']);
    const fixed = at(dir, '2026-11-29T00:30:00+07:00', [...hinted, ...FAILS_ONCE]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/2026-11-25\s+failed\s+success/);
    const after = statuses(dir, '2026-11-29T00:30:00+07:00');
    expect(EVERY_DATE.map((d) => after[d])).toEqual(EVERY_DATE.map(() => 'success'));
    expect(JSON.parse(at(dir, '2026-11-29T00:30:00+07:00', ['pending', 'jkt', '--json']).stdout).pending).toEqual([]);
  });

  test('a plain catchup the next night leaves the failed day, says so, and its dry run names the command that runs it', () => {
    const dir = outage();
    expect(at(dir, '2026-11-28T00:30:00+07:00', ['catchup', 'jkt', ...FAILS_ONCE]).code).toBe(6);
    const next = at(dir, '2026-11-29T00:30:00+07:00', ['catchup', 'jkt', ...FAILS_ONCE]);
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('still pending and left alone by this catchup: 2026-11-25; `runledger catchup jkt --all-pending` runs it too');
    expect(statuses(dir, '2026-11-29T00:30:00+07:00')['2026-11-25']).toBe('failed');

    // What the issue saw: the dry run said there was nothing to do while `pending` listed 11-25.
    const dry = at(dir, '2026-11-29T00:30:00+07:00', ['catchup', 'jkt', '--reprocess', 'failed', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('still pending and left alone by this catchup: 2026-11-25');
    const plan = at(dir, '2026-11-29T00:30:00+07:00', [...hintedCommand(dry.stdout), '--dry-run', '--json']);
    expect(JSON.parse(plan.stdout).slots.map((s: { date: string; reason: string }) => `${s.date} ${s.reason}`)).toEqual(['2026-11-25 failed']);

    expect(at(dir, '2026-11-29T00:30:00+07:00', [...hintedCommand(dry.stdout), ...FAILS_ONCE]).code).toBe(0);
    const after = statuses(dir, '2026-11-29T00:30:00+07:00');
    expect(EVERY_DATE.map((d) => after[d])).toEqual(EVERY_DATE.map(() => 'success'));
  });

  test('--all-pending runs missing, failed, cleared and stalled dates since the start in date order, with catchup off too', () => {
    const dir = tempDir();
    const now = '2026-11-26T00:30:00+07:00';
    expect(at(dir, now, ['define', 'jkt', '--schedule', '@daily', '--start', '2026-11-20', '--tz', 'Asia/Jakarta', '--no-catchup']).code).toBe(0);
    expect(at(dir, now, ['backfill', 'jkt', '--from', '2026-11-20', '--to', '2026-11-24', '--continue-on-failure', '--', 'sh', '-c', '[ "$1" != 2026-11-21 ]', 'job', '{date}']).code).toBe(6);
    expect(at(dir, now, ['clear', 'jkt', '2026-11-22', '--reason', 'bad input']).code).toBe(0);
    // A runner of 11-23 died an hour ago: its lease ran out, so the date is stalled.
    expect(at(dir, '2026-11-25T23:00:00+07:00', ['start', 'jkt', '2026-11-23', '--force', '--lease', '10m']).code).toBe(0);
    const dry = JSON.parse(at(dir, now, ['catchup', 'jkt', '--all-pending', '--dry-run', '--json']).stdout) as { slots: Array<{ date: string; reason: string }> };
    expect(dry.slots.map((s) => `${s.date} ${s.reason}`)).toEqual(['2026-11-21 failed', '2026-11-22 cleared', '2026-11-23 stalled', '2026-11-25 missing']);
    const done = at(dir, now, ['catchup', 'jkt', '--all-pending', '--', 'true']);
    expect(done.code).toBe(0);
    expect(JSON.parse(at(dir, now, ['pending', 'jkt', '--json']).stdout).pending).toEqual([]);
    expect(existsSync(join(dir, 'runledger.db'))).toBe(true);
  });

  test('the failed backfill names the same command with --reprocess failed, and that command reruns the failed date', () => {
    const dir = tempDir();
    const now = '2026-11-26T00:30:00+07:00';
    expect(at(dir, now, ['define', 'jkt', '--schedule', '@daily', '--start', '2026-11-20', '--tz', 'Asia/Jakarta']).code).toBe(0);
    const range = ['backfill', 'jkt', '--from', '2026-11-24', '--to', '2026-11-25'];
    const failed = at(dir, now, [...range, ...FAILS_ONCE]);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toContain('Fix the cause and rerun the same command with --reprocess failed.');
    expect(at(dir, now, [...range, '--reprocess', 'failed', ...FAILS_ONCE]).code).toBe(0);
    expect(statuses(dir, now)['2026-11-25']).toBe('success');
  });
});
