// Several `runledger scheduler` processes on one ledger, killed with SIGKILL at random and started again, over
// the backlog of a three-pipeline chain (issue 39: several schedulers, one ledger). Shared by the default suite's
// bounded run (tests/runner/scheduler-share.e2e.test.ts) and the load test's longer one (tests/load/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli, cliAsync, tempDir, type CliResult } from './cli-helpers.js';
import type { ChildProcess } from 'node:child_process';

export type SharedRun = {
  /** The ledger: a PostgreSQL URL or a SQLite file. */
  db: string;
  schedulers: number;
  kills: number;
  /** The kills are spread over about this long. */
  windowMs: number;
  /** Hourly dates in the backlog of each of the three pipelines. */
  dates: number;
  /** How long each command works. */
  workSeconds: number;
  seed: number;
};

type Attempt = { pipeline: string; date: string; attempt: number; start: number; end: number | null };

/**
 * Each command logs its start and end instant. A TERM from a drain or a watchdog ends it through the trap, logged
 * too; so does the SIGPIPE of a write to the stderr of a runner that was killed (sh reports its killed `sleep` there).
 */
function command(workSeconds: number): string[] {
  const line = (kind: string) => `echo "${kind} $RUNLEDGER_PIPELINE $RUNLEDGER_DATE $RUNLEDGER_ATTEMPT $(date +%s%N)" >> attempts.log`;
  return ['sh', '-c', `trap '${line('end')}; exit 143' TERM PIPE; ${line('start')}; sleep ${workSeconds} & wait $!; ${line('end')}`];
}

/** A small seeded generator, so a failing run can be repeated with its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function attemptsOf(log: string): Attempt[] {
  const all: Attempt[] = [];
  for (const line of log.trim().split('\n')) {
    const [kind, pipeline, date, attempt, ns] = line.split(' ') as [string, string, string, string, string];
    if (kind === 'start') all.push({ pipeline, date, attempt: Number(attempt), start: Number(ns) / 1e6, end: null });
    else {
      const open = all.find((a) => a.pipeline === pipeline && a.date === date && a.attempt === Number(attempt) && a.end === null);
      if (open) open.end = Number(ns) / 1e6;
    }
  }
  return all;
}

/** The most attempts of one pipeline's commands that ever ran at the same instant. */
function mostAtOnce(list: Attempt[]): number {
  const edges = list.flatMap((a) => [
    { at: a.start, d: 1 },
    { at: a.end ?? Number.POSITIVE_INFINITY, d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

/**
 * Defines the chain `extract → transform → load` (hourly, `dates` slots due; `extract` allows 2 live runs), starts
 * the schedulers, SIGKILLs one at random `kills` times across `windowMs` and starts it again at once, waits for
 * every date to succeed, stops them all with SIGTERM, then checks the ledger and the commands' own log.
 */
export async function runSharedSchedulers(run: SharedRun): Promise<{ kills: number; abandoned: number; attempts: number }> {
  const dir = tempDir();
  const db = ['--db', run.db];
  const now = Date.now();
  const start = new Date(Math.floor(now / 3_600_000) * 3_600_000 - run.dates * 3_600_000).toISOString();
  // Exactly `dates` slots, the last one the hour due now: a run that crosses the top of an hour would otherwise get a
  // thirteenth date due midway and never see "every date" equal `dates`.
  const end = new Date(Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
  const common = ['--schedule', '@hourly', '--start', start, '--end', end, '--lease', '3s', '--command', '--', ...command(run.workSeconds)];
  const defines = [
    ['define', 'extract', '--max-active-runs', '2', ...common],
    ['define', 'transform', '--upstream', 'extract', ...common],
    ['define', 'load', '--upstream', 'transform', ...common],
  ];
  for (const args of defines) {
    const r = cli(dir, [...db, ...args]);
    expect(r.stderr).toBe('');
  }
  const next = random(run.seed);
  const args = [...db, 'scheduler', '--no-logs', '--json', '--parallel', '2', '--kill-grace', '500ms', '--drain', '30s'];
  /** What each scheduler printed so far (for the message of a run that does not finish). */
  const printed = new Map<ChildProcess, string>();
  const launch = () => {
    const started = cliAsync(dir, args);
    started.child.stdout?.on('data', (d: Buffer) => printed.set(started.child, (printed.get(started.child) ?? '') + d.toString()));
    started.child.stderr?.on('data', (d: Buffer) => printed.set(started.child, (printed.get(started.child) ?? '') + d.toString()));
    return started;
  };
  const tailOf = (child: ChildProcess) => `pid ${child.pid}:\n${(printed.get(child) ?? '').split('\n').slice(-8).join('\n')}`;
  const running: Array<{ child: ChildProcess; done: Promise<CliResult> }> = [];
  for (let i = 0; i < run.schedulers; i++) running.push(launch());
  const outputs: CliResult[] = [];
  // A run that fails before its schedulers stopped kills them, so none goes on against a schema the test drops.
  let kills = 0;
  try {
    const done = () => {
      const counts = ['extract', 'transform', 'load'].map((p) => (JSON.parse(cli(dir, [...db, 'state', p, '--json']).stdout) as { dates: Array<{ status: string }> }).dates.filter((d) => d.status === 'success').length);
      return counts.every((n) => n === run.dates);
    };

    const gap = run.windowMs / run.kills;
    while (kills < run.kills) {
      await new Promise((r) => setTimeout(r, gap * (0.5 + next())));
      const at = Math.floor(next() * running.length);
      const victim = running[at] as { child: ChildProcess; done: Promise<CliResult> };
      victim.child.kill('SIGKILL');
      outputs.push(await within(victim.done, 10_000, () => `a SIGKILLed scheduler (pid ${victim.child.pid}) was not reaped within 10 s (seed ${run.seed})`));
      running[at] = launch();
      kills += 1;
    }
    const give = Date.now() + 120_000;
    while (!done()) {
      if (Date.now() > give) {
        const status = cli(dir, [...db, 'status']).stdout;
        const tails = running.map(({ child }) => tailOf(child)).join('\n');
        throw new Error(`not every date succeeded within two minutes of the last kill (seed ${run.seed})\n${status}\n${tails}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    // Every scheduler started last has written its health row before any is stopped: a scheduler forgets this
    // host's stopped rows when it starts, so one still starting would forget the rows of those stopped before it.
    const wrote = Date.now() + 30_000;
    const live = () => new Set((JSON.parse(cli(dir, [...db, 'status', '--json']).stdout) as { schedulers: Array<{ state: string; pid: number }> }).schedulers.filter((r) => r.state !== 'stopped').map((r) => r.pid));
    while (!running.every(({ child }) => live().has(child.pid as number))) {
      if (Date.now() > wrote) throw new Error(`a scheduler wrote no health row within 30 s of its start (seed ${run.seed})\n${running.map(({ child }) => tailOf(child)).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const { child } of running) child.kill('SIGTERM');
    // --drain 30s and --kill-grace 500ms bound a scheduler's stop; the three stop together, and one still alive after 60 s
    // is named with what it printed.
    const stopped = await within(Promise.all(running.map(({ done: exited }) => exited)), 60_000, () => `a scheduler did not exit within 60 s of SIGTERM (seed ${run.seed})\n${running.map(({ child }) => tailOf(child)).join('\n')}`);
    outputs.push(...stopped);
  } catch (error) {
    for (const { child } of running) child.kill('SIGKILL');
    throw error;
  }
  for (const out of outputs.slice(-run.schedulers)) expect(out.code).toBe(0);
  // No scheduler said anything but its own lines: a lost race for a date is left quietly, not an error.
  for (const out of outputs) expect(out.stdout).not.toMatch(/"reason":"error"/);

  // Every date: exactly one success in the ledger.
  let abandoned = 0;
  for (const pipeline of ['extract', 'transform', 'load']) {
    const view = JSON.parse(cli(dir, [...db, 'runs', pipeline, '--json']).stdout) as { runs: Array<{ date: string; status: string }> };
    const successes = new Map<string, number>();
    for (const r of view.runs) {
      if (r.status === 'success') successes.set(r.date, (successes.get(r.date) ?? 0) + 1);
      if (r.status === 'abandoned') abandoned += 1;
    }
    expect(successes.size, `${pipeline}: dates with a success (seed ${run.seed})`).toBe(run.dates);
    expect([...successes.values()].every((n) => n === 1), `${pipeline}: one success per date (seed ${run.seed})`).toBe(true);
  }
  // The commands' own log: every attempt ended, no two attempts of one date overlap, and extract never ran more
  // than its max-active-runs across all the schedulers.
  const attempts = attemptsOf(readFileSync(join(dir, 'attempts.log'), 'utf8'));
  expect(attempts.filter((a) => a.end === null)).toEqual([]);
  const byDate = new Map<string, Attempt[]>();
  for (const a of attempts) byDate.set(`${a.pipeline} ${a.date}`, [...(byDate.get(`${a.pipeline} ${a.date}`) ?? []), a]);
  for (const [key, list] of byDate) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]?.start, `${key} attempt ${sorted[i]?.attempt} began before the one before it ended (seed ${run.seed})`).toBeGreaterThan((sorted[i - 1] as Attempt).end as number);
  }
  expect(mostAtOnce(attempts.filter((a) => a.pipeline === 'extract'))).toBeLessThanOrEqual(2);
  expect(mostAtOnce(attempts.filter((a) => a.pipeline === 'transform'))).toBeLessThanOrEqual(1);
  expect(mostAtOnce(attempts.filter((a) => a.pipeline === 'load'))).toBeLessThanOrEqual(1);
  // Their health rows: a restart removed the row of the scheduler killed before it (same host, pid gone); the last
  // ones say stopped.
  const rows = (JSON.parse(cli(dir, [...db, 'status', '--json']).stdout) as { schedulers: Array<{ state: string; pid: number }> }).schedulers;
  expect(rows.map((r) => r.state)).toEqual(Array.from({ length: run.schedulers }, () => 'stopped'));
  expect(rows.map((r) => r.pid).sort()).toEqual(running.map(({ child }) => child.pid).sort());
  const verify = cli(dir, [...db, 'verify']);
  expect(verify.code, verify.stderr).toBe(0);
  return { kills, abandoned, attempts: attempts.length };
}

/** `promise`, or an error saying `why()` when it has not settled within `ms` (a hang names itself, not the test's timeout). */
async function within<T>(promise: Promise<T>, ms: number, why: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(why())), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
