/**
 * What `runledger scheduler` costs (issue 39, item 7): with many pipelines and nothing due, its CPU over a window
 * and its RSS, beside an idle Node process; and when many dates fall due at one instant, the time until every one
 * has started with `--parallel 64`, beside spawning as many `true` processes with the same parallelism and no
 * ledger. Figures only: nothing here asserts a threshold.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openLedger } from '../src/open-ledger.js';
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
    const [ours, theirs] = await Promise.all([sampleIdle(scheduler, input.idleSeconds), sampleIdle(idle, input.idleSeconds)]);
    return [
      {
        id: 'scheduler-idle-cpu',
        name: `scheduler, ${input.pipelines.toLocaleString('en')} pipelines, nothing due: CPU over ${input.idleSeconds} s`,
        value: ours.cpuPercent,
        unit: '% of a core',
        baseline: { name: 'an idle node process', value: theirs.cpuPercent, unit: '% of a core' },
        ratio: theirs.cpuPercent > 0 ? ours.cpuPercent / theirs.cpuPercent : 0,
        ratioMeaning: 'scheduler / idle node (0 when the idle process used no measurable CPU)',
        target: 'under 2% of a core',
        met: ours.cpuPercent < 2,
      },
      {
        id: 'scheduler-idle-rss',
        name: `scheduler, ${input.pipelines.toLocaleString('en')} pipelines, nothing due: RSS at the end of the window`,
        value: ours.rssMb,
        unit: 'MB',
        baseline: { name: 'an idle node process', value: theirs.rssMb, unit: 'MB' },
        ratio: ours.rssMb / theirs.rssMb,
        ratioMeaning: 'scheduler / idle node',
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
  let ours: number;
  try {
    if (Date.now() >= due) throw new Error(`bench: defining ${input.burst} pipelines took past their due instant; raise the set-up time`);
    let started = 0;
    let last = 0;
    await firstLine(scheduler, (event) => {
      if (event['event'] !== 'started') return false;
      started += 1;
      last = Math.max(last, Date.parse(String(event['at'])));
      return started === input.burst;
    });
    ours = last - due;
  } finally {
    await stop(scheduler);
  }
  const theirs = await spawnBaseline(input.burst, input.parallel);
  return {
    id: 'scheduler-burst',
    name: `scheduler, ${input.burst.toLocaleString('en')} dates due at one instant, --parallel ${input.parallel}: until every one started`,
    value: ours,
    unit: 'ms',
    baseline: { name: `${input.burst.toLocaleString('en')} \`true\` processes spawned ${input.parallel} at a time, no ledger`, value: theirs, unit: 'ms' },
    ratio: ours / theirs,
    ratioMeaning: 'scheduler / bare spawns',
    target: 'every date started within 2 s of its instant',
    met: ours <= 2000,
  };
}

/** Milliseconds until `count` `true` processes have all been spawned, at most `parallel` alive at once. */
async function spawnBaseline(count: number, parallel: number): Promise<number> {
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

/** CPU % of a core over `seconds`, from /proc/<pid>/stat, and RSS at its end from /proc/<pid>/status. */
async function sampleIdle(child: ChildProcess, seconds: number): Promise<{ cpuPercent: number; rssMb: number; peakMb: number }> {
  const pid = child.pid as number;
  const ticks = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  };
  const t0 = performance.now();
  const c0 = ticks();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const c1 = ticks();
  const elapsedS = (performance.now() - t0) / 1000;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuPercent: ((c1 - c0) / CLK_TCK / elapsedS) * 100, rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await closed;
  clearTimeout(timer);
}
