// Issue 10's acceptance steps through the real binary: resume after Ctrl-C, the pipeline's own
// max_active_runs across two runners (SQLite and PostgreSQL), whole local days for a bare --to,
// Airflow's cron extensions in America/New_York.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { TEST_PG_URL, pgSchemas, pgSkipMessage } from '../support/pg.js';
import { cli, cliAsync, tempDir, waitForFile } from './cli-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

/**
 * A command that logs when it starts and ends (with its date and the millisecond), and sleeps `ms` in between: a shell
 * and `sleep`, not a Node process, so each of the forty-odd commands costs a fork instead of a Node start.
 */
function probe(ms: number): string[] {
  const line = (kind: string) => `echo "${kind} $1 $(date +%s%3N)" >> events.log`;
  return ['sh', '-c', `${line('start')}; sleep ${ms / 1000}; ${line('end')}`, 'probe', '{date}'];
}

/** The most commands alive at once, from start/end lines (an end before a start at the same ms). */
function maxConcurrent(log: string): number {
  const events = log
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([kind, , at]) => ({ delta: kind === 'start' ? 1 : -1, at: Number(at) }))
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let alive = 0;
  let most = 0;
  for (const e of events) most = Math.max(most, (alive += e.delta));
  return most;
}

type State = { dates: Array<{ date: string; status: string; attempts: number }> };
const json = <T>(text: string): T => JSON.parse(text) as T;

describe('acceptance 2: a backfill interrupted with Ctrl-C resumes with the same command', () => {
  test('every slot ends success, pending is empty, and log shows the interruption', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: '2026-11-23T12:00:00Z' };
    expect(cli(dir, ['define', 'h', '--schedule', '@hourly', '--start', '2026-11-22'], env).code).toBe(0);
    const args = ['backfill', 'h', '--from', '2026-11-22', '--to', '2026-11-22', '--', 'sh', '-c', 'touch started; sleep 1'];
    const { child, done } = cliAsync(dir, args, env);
    // Ctrl-C once a command is at work, as `timeout -s INT 3` would on a warm machine.
    await waitForFile(join(dir, 'started'));
    child.kill('SIGINT');
    const first = await done;
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(/stopped by SIGINT: 1 running date was recorded as interrupted \(pending, not failed\); \d+ not started\. Run the same command again to resume\./);
    const between = json<State>(cli(dir, ['state', 'h', '--to', '2026-11-22', '--json'], env).stdout);
    expect(between.dates.filter((d) => d.status === 'interrupted')).toHaveLength(1);
    expect(between.dates.filter((d) => d.status === 'failed')).toEqual([]);

    const second = cli(dir, [...args.slice(0, -3), 'true'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('interrupted  success');
    const after = json<State>(cli(dir, ['state', 'h', '--to', '2026-11-22', '--json'], env).stdout);
    expect(after.dates).toHaveLength(24);
    expect(after.dates.every((d) => d.status === 'success')).toBe(true);
    expect(json<{ pending: unknown[] }>(cli(dir, ['pending', 'h', '--to', '2026-11-22', '--json'], env).stdout).pending).toEqual([]);
    const log = cli(dir, ['log', '--type', 'RunInterrupted'], env).stdout;
    expect(log).toMatch(/interrupted h 2026-11-22T\d\d:00:00\+00:00 run \w+ by SIGINT/);
    const runs = cli(dir, ['runs', 'h'], env).stdout;
    expect(runs).toMatch(/ interrupted /);
  });
});

/** Defines `p` (daily, from 2026-11-01, max_active_runs 2) in a fresh dir; returns the CLI's --db args. */
function twoAtOnce(db: string | null): { dir: string; dbArgs: string[]; env: Record<string, string> } {
  const dir = tempDir();
  const dbArgs = db === null ? [] : ['--db', db];
  const env = { RUNLEDGER_NOW: '2026-11-09T12:00:00Z' };
  const r = cli(dir, [...dbArgs, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01', '--max-active-runs', '2'], env);
  if (r.code !== 0) throw new Error(r.stderr);
  return { dir, dbArgs, env };
}

const RANGE = ['--from', '2026-11-01', '--to', '2026-11-06'];

async function twoRunners(db: string | null): Promise<void> {
  const { dir, dbArgs, env } = twoAtOnce(db);
  const job = [...dbArgs, 'backfill', 'p', ...RANGE, '--json', '--', ...probe(700)];
  const a = cliAsync(dir, job, env);
  const b = cliAsync(dir, job, env);
  const [ra, rb] = await Promise.all([a.done, b.done]);
  expect([ra.code, rb.code]).toEqual([0, 0]);
  const log = readFileSync(join(dir, 'events.log'), 'utf8');
  expect(maxConcurrent(log)).toBeLessThanOrEqual(2);
  // Each date ran exactly once between the two runners.
  const started = log.match(/^start \S+/gm)?.map((line) => line.slice(6)).sort();
  expect(started).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06']);
  const state = json<State>(cli(dir, [...dbArgs, 'state', 'p', '--json'], env).stdout);
  expect(state.dates.map((d) => `${d.date} ${d.status} ${d.attempts}`)).toEqual(
    ['01', '02', '03', '04', '05', '06', '07', '08'].map((d) => (d <= '06' ? `2026-11-${d} success 1` : `2026-11-${d} missing 0`)),
  );
}

describe("acceptance 3: the pipeline's --max-active-runs is what it says", () => {
  test('one backfill without the flag runs two commands at once', async () => {
    const { dir, env } = twoAtOnce(null);
    const r = cli(dir, ['backfill', 'p', ...RANGE, '--', ...probe(700)], env);
    expect(r.code).toBe(0);
    expect(maxConcurrent(readFileSync(join(dir, 'events.log'), 'utf8'))).toBe(2);
  });

  test('a larger --max-active-runs cannot exceed it, and the runner says so once', async () => {
    const { dir, env } = twoAtOnce(null);
    const r = cli(dir, ['backfill', 'p', ...RANGE, '--max-active-runs', '4', '--', ...probe(500)], env);
    expect(r.code).toBe(0);
    expect(maxConcurrent(readFileSync(join(dir, 'events.log'), 'utf8'))).toBe(2);
    expect(r.stderr.match(/p allows at most 2 live runs at once across every runner \(its --max-active-runs\); running up to 2, not 4/g)).toHaveLength(1);
  });

  test('a smaller --max-active-runs is kept', async () => {
    const { dir, env } = twoAtOnce(null);
    const r = cli(dir, ['backfill', 'p', '--from', '2026-11-01', '--to', '2026-11-03', '--max-active-runs', '1', '--', ...probe(300)], env);
    expect(r.code).toBe(0);
    expect(maxConcurrent(readFileSync(join(dir, 'events.log'), 'utf8'))).toBe(1);
  });

  test('two concurrent backfills on SQLite together never have more than 2 commands alive, each date once', async () => {
    await twoRunners(null);
  });

  test('a live manual run takes one of the places', async () => {
    const { dir, env } = twoAtOnce(null);
    expect(cli(dir, ['start', 'p', '2026-11-08', '--type', 'manual'], env).code).toBe(0);
    const r = cli(dir, ['backfill', 'p', ...RANGE, '--', ...probe(300)], env);
    expect(r.code).toBe(0);
    expect(maxConcurrent(readFileSync(join(dir, 'events.log'), 'utf8'))).toBe(1);
    // The manual run never ends here, so the runner waits once for its second place and says so once.
    expect(r.stderr.match(/p has [23] live runs and allows 2 at once \(its --max-active-runs\): 2026-11-08 \(run \w+, started [^,]+ ago, lease until [^)]+\), [^;]+; waiting for a free place[^\n]*/g)).toHaveLength(1);
  });
});

describe.skipIf(TEST_PG_URL === undefined)('acceptance 3 on PostgreSQL', () => {
  const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
  afterAll(async () => schemas?.dropAll());
  test('two concurrent backfills on one PostgreSQL ledger together never have more than 2 commands alive, each date once', async () => {
    await twoRunners(await (schemas as NonNullable<typeof schemas>).fresh());
  });
});
if (TEST_PG_URL === undefined) console.log(pgSkipMessage('issue 10 acceptance 3'));

describe('acceptance 4: a bare --to is the whole local day on an hourly pipeline', () => {
  test.each([
    { label: 'an ordinary day', day: '2026-11-22', count: 24 },
    { label: 'fall back in New York', day: '2026-11-01', count: 25 },
    { label: 'spring forward in New York', day: '2026-03-08', count: 23 },
  ])('clear --from $day --to $day clears $count slots ($label)', ({ day, count }) => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: '2026-11-30T12:00:00Z' };
    expect(cli(dir, ['define', 'h', '--schedule', '@hourly', '--start', '2026-03-01', '--tz', 'America/New_York'], env).code).toBe(0);
    const dry = cli(dir, ['backfill', 'h', '--from', day, '--to', day, '--dry-run'], env);
    expect(dry.stdout).toMatch(new RegExp(`would run ${count} dates from ${day}T00:00:00-0\\d:00 to ${day}T23:59:59\\.999-0\\d:00:`));
    const run = cli(dir, ['backfill', 'h', '--from', day, '--to', day, '--', 'true'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${count} succeeded, 0 failed, 0 skipped`);
    const cleared = cli(dir, ['clear', 'h', '--from', day, '--to', day, '--reason', 'resent'], env);
    expect(cleared.stdout).toContain(`cleared ${count} date(s) of h`);
    expect(json<{ pending: unknown[] }>(cli(dir, ['pending', 'h', '--from', day, '--to', day, '--json'], env).stdout).pending).toHaveLength(count);
    expect(json<State>(cli(dir, ['state', 'h', '--from', day, '--to', day, '--json'], env).stdout).dates).toHaveLength(count);
  });

  test('a full instant keeps its exact meaning', () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: '2026-11-30T12:00:00Z' };
    cli(dir, ['define', 'h', '--schedule', '@hourly', '--start', '2026-03-01', '--tz', 'America/New_York'], env);
    const pending = json<{ pending: unknown[] }>(cli(dir, ['pending', 'h', '--from', '2026-11-22', '--to', '2026-11-22T00:00:00-05:00', '--json'], env).stdout);
    expect(pending.pending).toHaveLength(1);
  });
});

describe('acceptance 1: Airflow cron extensions in America/New_York', () => {
  test.each([
    { schedule: '@quarterly', expected: ['2026-01-01', '2026-04-01', '2026-07-01', '2026-10-01'] },
    {
      schedule: '0 3 L * *',
      expected: ['01-31', '02-28', '03-31', '04-30', '05-31', '06-30', '07-31', '08-31', '09-30', '10-31', '11-30'].map(
        (d) => `2026-${d}T03:00:00-0${d >= '03-31' && d <= '10-31' ? 4 : 5}:00`,
      ),
    },
    { schedule: '0 0 * * 5L', expected: ['01-30', '02-27', '03-27', '04-24', '05-29', '06-26', '07-31', '08-28', '09-25', '10-30', '11-27'].map((d) => `2026-${d}`) },
    { schedule: '0 0 * * 1#1', expected: ['01-05', '02-02', '03-02', '04-06', '05-04', '06-01', '07-06', '08-03', '09-07', '10-05', '11-02'].map((d) => `2026-${d}`) },
  ])('$schedule: its 2026 slots, listed by pending', ({ schedule, expected }) => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: '2026-12-31T12:00:00Z' };
    const defined = cli(dir, ['define', 'p', '--schedule', schedule, '--start', '2026-01-01', '--tz', 'America/New_York', '--timetable', 'trigger'], env);
    expect(defined.code).toBe(0);
    const pending = json<{ pending: Array<{ date: string }> }>(cli(dir, ['pending', 'p', '--from', '2026-01-01', '--to', '2026-11-30T23:59:59-05:00', '--json'], env).stdout);
    expect(pending.pending.map((p) => p.date)).toEqual(expected);
  });

  test('six fields and H are refused with the reason, exit 2, nothing written', () => {
    const dir = tempDir();
    for (const [schedule, why] of [['0 0 0 * * *', 'seconds (and years) are not supported'], ['H 2 * * *', "'H' (Jenkins' hashed value) is not supported"]] as const) {
      const r = cli(dir, ['define', 'p', '--schedule', schedule, '--start', '2026-01-01'], { RUNLEDGER_NOW: '2026-12-31T12:00:00Z' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(why);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe("docs/timetables.md 'Where runledger differs from Airflow': runledger's side of each example", () => {
  const run = (dir: string, args: string[]) => cli(dir, args);
  test.each([
    {
      label: 'a manual run records its own slot',
      steps: [['--now', '2026-11-05T01:00:00+07:00', 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta'], ['--now', '2026-11-05T01:00:00+07:00', 'start', 'etl_orders', '2026-11-03', '--type', 'manual']],
      stream: 'stderr' as const,
      line: 'data interval 2026-11-03T00:00:00+07:00 .. 2026-11-04T00:00:00+07:00',
    },
    {
      label: 'every 6h counts from --start, catchup off too',
      steps: [['--now', '2026-11-05T01:00:00+07:00', 'define', 'ping6', '--schedule', 'every 6h', '--start', '2026-11-02T02:00:00+07:00', '--tz', 'Asia/Jakarta', '--no-catchup'], ['--now', '2026-11-05T01:00:00+07:00', 'catchup', 'ping6', '--dry-run']],
      stream: 'stdout' as const,
      line: '2026-11-04T14:00:00+07:00  missing  2026-11-04T20:00:00+07:00  2026-11-04T14:00:00+07:00 .. 2026-11-04T20:00:00+07:00',
    },
    {
      label: 'catchup off just after a spring-forward tick runs the interval that just ended',
      steps: [['--now', '2026-03-08T04:00:00-04:00', 'define', 'ny_0230', '--schedule', '30 2 * * *', '--start', '2026-03-01', '--tz', 'America/New_York', '--no-catchup'], ['--now', '2026-03-08T04:00:00-04:00', 'catchup', 'ny_0230', '--dry-run']],
      stream: 'stdout' as const,
      line: '2026-03-07T02:30:00-05:00  missing  2026-03-08T03:30:00-04:00  2026-03-07T02:30:00-05:00 .. 2026-03-08T03:30:00-04:00',
    },
    {
      label: 'Lord Howe hourly keeps to the hour across a 30-minute shift',
      steps: [['--now', '2026-04-06T00:00:00+10:30', 'define', 'lh', '--schedule', '@hourly', '--start', '2026-04-04', '--tz', 'Australia/Lord_Howe'], ['--now', '2026-04-06T00:00:00+10:30', 'pending', 'lh', '--from', '2026-04-05T01:00:00+11:00', '--to', '2026-04-05T02:00:00+10:30']],
      stream: 'stdout' as const,
      line: '2026-04-05T01:00:00+11:00  missing  2026-04-05T02:00:00+10:30  2026-04-05T01:00:00+11:00 .. 2026-04-05T02:00:00+10:30\n2026-04-05T02:00:00+10:30  missing',
    },
  ])('$label', ({ steps, stream, line }) => {
    const dir = tempDir();
    let last = { code: 0, stdout: '', stderr: '' };
    for (const step of steps) {
      last = run(dir, step);
      expect(last.code).toBe(0);
    }
    expect(last[stream]).toContain(line);
  });
});
