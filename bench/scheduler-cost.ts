/**
 * What `runledger scheduler` costs (issue 39, item 7): with many pipelines and nothing due, its CPU over a window
 * and its RSS, beside an idle Node process; and when many dates fall due at one instant, the time until every one
 * has started with `--parallel 64`, beside spawning as many `true` processes with the same parallelism and no
 * ledger. Figures only: nothing here asserts a threshold.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openLedger } from '../src/open-ledger.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-event-store.js';
import type { Figure } from './report.js';

export type SchedulerCostInput = {
  dir: string;
  bin: string;
  /** Pipelines of the idle ledger (hourly and daily, mixed zones, command `true`). */
  pipelines: number;
  idleSeconds: number;
  /** Dates that fall due at one instant, one per pipeline; 0 leaves the burst out. */
  burst: number;
  parallel: number;
  log: (line: string) => void;
};

const ZONES = ['UTC', 'Asia/Jakarta', 'America/New_York', 'Europe/Berlin'];
/** Linux's clock ticks per second, in which /proc/<pid>/stat counts CPU time. */
const CLK_TCK = 100;

export async function schedulerCost(input: SchedulerCostInput): Promise<Figure[]> {
  return [...(await idleFigures(input)), ...(input.burst > 0 ? [await burstFigure(input)] : [])];
}

async function idleFigures(input: SchedulerCostInput): Promise<Figure[]> {
  const db = join(input.dir, 'scheduler-idle.db');
  // Nothing due during the window: every pipeline starts tomorrow.
  const tomorrow = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000).toISOString().slice(0, 10);
  input.log(`scheduler idle: defining ${input.pipelines} pipelines (hourly and daily, ${ZONES.length} zones, command true)`);
  const ledger = await openLedger({ db, actor: 'bench' });
  for (let i = 0; i < input.pipelines; i++) {
    await ledger.define({ pipeline: `p${String(i).padStart(5, '0')}`, schedule: i % 2 === 0 ? '@hourly' : '@daily', start: tomorrow, timezone: ZONES[i % ZONES.length] as string, command: { argv: ['true'] } });
  }
  await ledger.close();
  input.log(`scheduler idle: ${input.idleSeconds} s of a scheduler over them, beside an idle node process`);
  const scheduler = spawn(process.execPath, [input.bin, '--db', db, 'scheduler', '--no-logs', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  try {
    await firstLine(scheduler, (event) => event['event'] === 'sleep');
    const startCpuS = cpuSeconds(scheduler.pid as number);
    const [ours, theirs] = await Promise.all([sampleIdle(scheduler, input.idleSeconds), sampleIdle(idle, input.idleSeconds)]);
    return [
      {
        id: 'scheduler-idle-cpu',
        name: `scheduler, ${input.pipelines.toLocaleString('en')} pipelines, nothing due: CPU over ${input.idleSeconds} s`,
        value: ours.cpuPercent,
        unit: '% of a core',
        baseline: { name: 'an idle node process', value: theirs.cpuPercent, unit: '% of a core' },
        ratio: ours.cpuPercent / theirs.cpuPercent,
        ratioMeaning: '× the idle node process',
        target: 'under 2% of a core',
        met: ours.cpuPercent < 2,
        note: `from the scheduler's first sleep; per 10 s: first ${num(ours.slices[0] ?? 0)}%, highest ${num(Math.max(...ours.slices))}%; ${num(startCpuS)} s of CPU from its start to that sleep`,
      },
      {
        id: 'scheduler-idle-rss',
        name: `scheduler, ${input.pipelines.toLocaleString('en')} pipelines, nothing due: RSS at the end of the window`,
        value: ours.rssMb,
        unit: 'MB',
        baseline: { name: 'an idle node process', value: theirs.rssMb, unit: 'MB' },
        ratio: ours.rssMb / theirs.rssMb,
        ratioMeaning: '× the idle node process',
        target: 'under 150 MB',
        met: ours.rssMb < 150,
        note: `peak RSS ${ours.peakMb.toFixed(0)} MB`,
      },
    ];
  } finally {
    await stop(scheduler);
    await stop(idle);
  }
}

async function burstFigure(input: SchedulerCostInput): Promise<Figure> {
  const db = join(input.dir, 'scheduler-burst.db');
  // The baseline's rounds go before and after the scheduler's, so drift in the machine's load lands on both sides.
  const before = await spawnBaselines(input.burst, input.parallel);
  // Zero-width daily slots (trigger timetable) at the next whole minute after the set-up: all due at that instant.
  const ledger = await openLedger({ db, actor: 'bench' });
  const setupMs = Math.max(30_000, input.burst * 60);
  const due = Math.ceil((Date.now() + setupMs) / 60_000) * 60_000;
  input.log(`scheduler burst: ${input.burst} dates due at ${new Date(due).toISOString()}, --parallel ${input.parallel}`);
  for (let i = 0; i < input.burst; i++) {
    // A daily cron tick at that very minute (a slot is a tick at or after the start, so @daily would wait for midnight).
    const at = new Date(due);
    await ledger.define({ pipeline: `b${String(i).padStart(5, '0')}`, schedule: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`, timetable: 'trigger', start: at.toISOString(), command: { argv: ['true'] } });
  }
  await ledger.close();
  const scheduler = spawn(process.execPath, [input.bin, '--db', db, 'scheduler', '--no-logs', '--json', '--parallel', String(input.parallel)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    if (Date.now() >= due) throw new Error(`bench: defining ${input.burst} pipelines took past their due instant; raise the set-up time`);
    // Wait until every run has ended, so stopping the scheduler interrupts none of them.
    let ended = 0;
    await firstLine(scheduler, (event) => event['event'] === 'ended' && ++ended === input.burst);
  } finally {
    await stop(scheduler);
  }
  const after = await spawnBaselines(input.burst, input.parallel);
  // When each run started, from the ledger: the instants its RunStarted events were recorded at.
  const startedAt = await runStartedInstants(db);
  if (startedAt.length !== input.burst) throw new Error(`bench: the ledger holds ${startedAt.length} RunStarted events, not ${input.burst}`);
  const ours = Math.max(...startedAt) - due;
  const firstMs = Math.min(...startedAt) - due;
  const rounds = [...before, ...after];
  const best = rounds.reduce((a, b) => (b.ms < a.ms ? b : a));
  const roundsText = rounds.map((r) => `${r.how} ${r.ms.toFixed(0)}`).join(', ');
  return {
    id: 'scheduler-burst',
    name: `scheduler, ${input.burst.toLocaleString('en')} dates due at one instant, --parallel ${input.parallel}: from the instant until the last RunStarted recorded`,
    value: ours,
    unit: 'ms',
    baseline: { name: `${input.burst.toLocaleString('en')} \`true\` processes started ${input.parallel} at a time, no ledger (fastest of ${rounds.length} rounds: ${best.how})`, value: best.ms, unit: 'ms' },
    ratio: ours / best.ms,
    ratioMeaning: '× the bare spawns',
    target: 'every date started within 2 s of its instant',
    met: ours <= 2000,
    note: `first RunStarted ${firstMs.toFixed(0)} ms after the instant; baseline rounds in ms: ${roundsText}`,
  };
}

/** The recordedAt instants (ms) of every RunStarted event in the ledger at `db`. */
async function runStartedInstants(db: string): Promise<number[]> {
  const store = openSqliteStore({ path: db, create: false });
  const instants: number[] = [];
  try {
    for await (const batch of store.read({ types: ['RunStarted'] })) for (const event of batch) instants.push(Date.parse(event.recordedAt));
  } finally {
    await store.close();
  }
  return instants;
}

type BaselineRound = { how: string; ms: number };

/** Two ways to start `count` `true` processes `parallel` at a time without a ledger: Node's spawn (as the runner starts commands) and `xargs -P`. */
async function spawnBaselines(count: number, parallel: number): Promise<BaselineRound[]> {
  return [
    { how: 'node spawn', ms: await nodeSpawns(count, parallel) },
    { how: `xargs -P ${parallel}`, ms: xargsSpawns(count, parallel) },
  ];
}

/** Milliseconds until `count` `true` processes have all been spawned by Node, at most `parallel` alive at once. */
async function nodeSpawns(count: number, parallel: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  let lastSpawn = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await new Promise<void>((resolve, reject) => {
        const child = spawn('true', [], { stdio: 'ignore' });
        child.on('spawn', () => (lastSpawn = Math.max(lastSpawn, performance.now())));
        child.on('error', reject);
        child.on('close', () => resolve());
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return lastSpawn - t0;
}

/**
 * Milliseconds of `xargs -P <parallel> -n 1 true` over `count` arguments: fork and exec from C, no runtime of its
 * own. Its wall time ends with the last `true`'s exit, a process's lifetime past the last start (under a
 * millisecond of `true`'s own work), so it can only flatter the baseline by that much.
 */
function xargsSpawns(count: number, parallel: number): number {
  const input = Array.from({ length: count }, (_, i) => String(i)).join('\n');
  const t0 = performance.now();
  const result = spawnSync('xargs', ['-P', String(parallel), '-n', '1', 'true'], { input, stdio: ['pipe', 'ignore', 'pipe'] });
  const took = performance.now() - t0;
  if (result.status !== 0) throw new Error(`bench: xargs exited ${result.status}: ${result.stderr.toString()}`);
  return took;
}

/** Resolves once a JSON line of the child's stdout satisfies `done`; rejects if the child exits first. */
function firstLine(child: ChildProcess, done: (event: Record<string, unknown>) => boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onExit = (code: number | null) => reject(new Error(`bench: the scheduler exited (${code}) before the bench saw what it waited for: ${stderr}`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (done(event)) {
        child.off('exit', onExit);
        lines.removeAllListeners('line');
        // Keep reading (and dropping) the rest, so the child never blocks on a full pipe.
        lines.on('line', () => {});
        resolve();
      }
    });
  });
}

/** CPU % of a core over `seconds` (and over each 10 s slice of it), from /proc/<pid>/stat, and RSS at its end from /proc/<pid>/status. */
async function sampleIdle(child: ChildProcess, seconds: number): Promise<{ cpuPercent: number; slices: number[]; rssMb: number; peakMb: number }> {
  const pid = child.pid as number;
  const ticks = () => cpuSeconds(pid);
  const percent = (c0: number, c1: number, t0: number, t1: number) => ((c1 - c0) / ((t1 - t0) / 1000)) * 100;
  const t0 = performance.now();
  const c0 = ticks();
  const slices: number[] = [];
  let tSlice = t0;
  let cSlice = c0;
  while (performance.now() - t0 < seconds * 1000) {
    await new Promise((r) => setTimeout(r, Math.min(10_000, seconds * 1000 - (performance.now() - t0))));
    const [t, c] = [performance.now(), ticks()];
    slices.push(percent(cSlice, c, tSlice, t));
    [tSlice, cSlice] = [t, c];
  }
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuPercent: percent(c0, cSlice, t0, tSlice), slices, rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** The CPU time a process has used so far, in seconds: utime + stime of all its threads (fields 14 and 15 of /proc/<pid>/stat), its own CPU whatever else the machine runs. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

const num = (value: number) => value.toFixed(value >= 10 ? 1 : 2);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await closed;
  clearTimeout(timer);
}
