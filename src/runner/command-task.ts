import type { ChildProcess } from 'node:child_process';
import { mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { formatBytes } from '../../events/limits.js';
import { LedgerError } from '../errors.js';
import { checkCommand } from './check-command.js';
import { metricsProblem } from '../ledger/metrics-problem.js';
import { durationOption, type Duration } from '../ledger/library-options.js';
import { cleanStaleRunDirs, RUN_DIR_PREFIX } from './clean-stale-run-dirs.js';
import type { GroupReaper } from './group-reaper.js';
import { openRunLogFile, type RunLogFile } from './run-log-file.js';
import type { Metrics, RunContext, RunTask, TaskOutcome } from './run-types.js';

/**
 * The options the runner passes to `spawn`. The public types of this module are the structural subset of Node's
 * `child_process` the runner uses (as Kysely declares its drivers' types), so a project compiles them without
 * `@types/node`; `child_process.spawn` and `process.kill` fit them.
 */
export type SpawnOptionsUsed = { env: Record<string, string>; stdio: ['ignore', 'pipe', 'pipe']; detached: boolean; cwd?: string };
/** The signals the runner sends a command: a stop (SIGINT or SIGTERM), then SIGKILL after the grace period. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';
/** What the runner uses of a spawned command (Node's `ChildProcess` has all of it). */
export interface SpawnedCommand {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal?: StopSignal): boolean;
  on(event: 'exit' | 'close', listener: (code: number | null, signal: string | null) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
/** The part of `child_process.spawn` the runner uses (injected so tests and the demo can pass their own). */
export type SpawnFn = (command: string, args: readonly string[], options: SpawnOptionsUsed) => SpawnedCommand;
/** `process.kill`: sends a signal to a pid, or to a process group with a negative pid; signal 0 only asks whether it exists (throws ESRCH when not). */
export type KillFn = (pid: number, signal: StopSignal | 0) => void;

/** After SIGTERM, how long a command's process group gets before SIGKILL, unless `--kill-grace` says otherwise. */
export const DEFAULT_KILL_GRACE_MS = 10_000;

export type CommandTaskOptions = {
  /** The command and its arguments, run with no shell; `{date}` `{start}` `{end}` `{runId}` are replaced in each. */
  argv: readonly string[];
  spawn: SpawnFn;
  kill: KillFn;
  /** The environment the command starts from; the `RUNLEDGER_*` variables are added to it. */
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Each complete line the command writes, as it comes. */
  onOutput?: (stream: 'stdout' | 'stderr', run: RunContext, line: string) => void;
  /**
   * After a stop signal (a timeout, a drain, the end of the run with members of its group still alive), how
   * long the command's process group gets before SIGKILL: `"10s"` (the default) or milliseconds.
   */
  killGrace?: Duration;
  /** @deprecated Use `killGrace`; works until the next minor version. */
  killGraceMs?: number;
  /** The watchdog that kills the commands' groups if this process dies (`kill -9`); see `groupReaper`. */
  reaper?: GroupReaper;
  /** Where per-run metrics files go (default the OS temp dir). */
  tempDir?: string;
  /**
   * Keep each run's stdout and stderr in its own file under this directory (`<pipeline>/<date>_<runId>.log`,
   * mode 0600), and record the file's path and sha256 with the run's outcome. Default: no log files.
   */
  logDir?: string;
  /** Secret values replaced by `[redacted]` in the log files (the ledger redacts what it records itself). */
  secrets?: readonly string[];
  /** A log file could not be written (the run goes on, and its outcome is recorded without a log). */
  onLogError?: (run: RunContext, error: Error) => void;
};

/** A runner task that runs a command, plus a way to kill every command still running (a second Ctrl-C). */
export type CommandTask = { task: RunTask; killAll(signal: StopSignal): void };

const PLACEHOLDER = /\{(date|start|end|runId)\}/g;
const STDERR_TAIL_CHARS = 2000;
/** The longest piece of a line passed on at once; a longer line arrives in several. */
const MAX_LINE_CHARS = 64 * 1024;

/**
 * Replaces `{date}`, `{start}`, `{end}` and `{runId}` in one argument. Other
 * braces are left alone, so `awk '{print $1}'` survives.
 *
 * @example
 * fillPlaceholders('--date={date}', run) // '--date=2026-11-02'
 */
export function fillPlaceholders(arg: string, run: RunContext): string {
  return arg.replace(PLACEHOLDER, (_, name: 'date' | 'start' | 'end' | 'runId') =>
    name === 'date' ? run.date : name === 'start' ? run.dataInterval.start : name === 'end' ? run.dataInterval.end : run.runId,
  );
}

/** The variables a command gets on top of the runner's environment. */
export function runEnvironment(run: RunContext, metricsPath: string): Record<string, string> {
  return {
    RUNLEDGER_PIPELINE: run.pipeline,
    RUNLEDGER_DATE: run.date,
    RUNLEDGER_LOGICAL_DATE: run.logicalDate,
    RUNLEDGER_INTERVAL_START: run.dataInterval.start,
    RUNLEDGER_INTERVAL_END: run.dataInterval.end,
    RUNLEDGER_RUN_ID: run.runId,
    RUNLEDGER_ATTEMPT: String(run.attempt),
    RUNLEDGER_RUN_TYPE: run.runType,
    RUNLEDGER_METRICS: metricsPath,
  };
}

/**
 * A runner task that runs one command per slot, with no shell in between.
 * Exit 0 is a success whose metrics are the JSON object the command wrote to
 * `$RUNLEDGER_METRICS` (none written: `{}`); a non-zero exit or a signal is a
 * failure carrying the exit status and the tail of stderr. Each command gets
 * its own process group so a stop signal reaches whatever it started too.
 *
 * @example
 * const { task } = commandTask({ argv: ['sh', '-c', 'echo {date} >> out.txt'], spawn, kill: process.kill, env: process.env });
 */
export function commandTask(options: CommandTaskOptions): CommandTask {
  if (options.argv.length === 0 || options.argv[0] === '') {
    throw new LedgerError('input.missingCommand', 'no command to run; put it after --, e.g. `-- sh -c \'echo {date} >> out.txt\'`');
  }
  checkCommand(options.argv, options);
  const graceMs = durationOption(options, 'killGrace', 'commandTask') ?? DEFAULT_KILL_GRACE_MS;
  /** The process groups of the commands running now (a group outlives its leader while a member lives). */
  const live = new Set<number>();
  const signalGroup = (pgid: number, signal: StopSignal) => {
    try {
      options.kill(-pgid, signal);
    } catch {
      // Gone already (ESRCH): nothing left to stop.
    }
  };
  const groupAlive = (pgid: number) => {
    try {
      options.kill(-pgid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  };

  // Directories left by a runner that was killed (kill -9 skips the cleanup below) go on the next start.
  let cleaned: Promise<unknown> | undefined;
  const task: RunTask = async (run, signal) => {
    cleaned ??= cleanStaleRunDirs(options.tempDir ?? tmpdir()).catch(() => 0);
    await cleaned;
    const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), `${RUN_DIR_PREFIX}${process.pid}-`));
    const metricsPath = join(dir, 'metrics.json');
    const log = options.logDir === undefined ? null : openRunLogFile(options.logDir, run, options.secrets ?? [], (error) => options.onLogError?.(run, error));
    try {
      const outcome = await runCommand(run, signal, metricsPath, log).catch(async (error: unknown) => {
        await log?.close();
        throw error;
      });
      const recorded = await log?.close();
      return recorded ? { ...outcome, log: recorded } : outcome;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  /** Runs the command of one run to its end; its outcome without the log, which the caller closes and adds. */
  async function runCommand(run: RunContext, signal: AbortSignal, metricsPath: string, log: RunLogFile | null): Promise<TaskOutcome> {
    const [command, ...args] = options.argv.map((arg) => fillPlaceholders(arg, run));
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
    Object.assign(env, runEnvironment(run, metricsPath));
    // The watchdog is up before the command exists and knows the run's id, so a runner killed between the spawn and
    // the group's `watch` still has its command stopped.
    await options.reaper?.ready();
    options.reaper?.watchRun(run.runId);
    let ended: Ended;
    try {
      ended = await runChild(command ?? '', args, env, run, signal, log);
    } finally {
      options.reaper?.unwatchRun(run.runId);
    }
    if (ended.spawnError) {
      const e = ended.spawnError;
      const why = e.code === 'ENOENT' ? 'not found (check the name and PATH)' : e.code === 'EACCES' ? 'not executable' : e.message;
      return { status: 'failed', error: `cannot run '${command}': ${why}`, code: `spawn:${e.code ?? 'error'}`, exitCode: null, signal: null };
    }
    if (ended.exitCode === 0) return await successWithMetrics(metricsPath, run);
    const tail = ended.stderrTail.trim();
    const what = ended.signal ? `killed by ${ended.signal}` : `exited with code ${ended.exitCode}`;
    return {
      status: 'failed',
      error: tail ? `${what}: ${tail}` : what,
      code: ended.signal ? `signal:${ended.signal}` : `exit:${ended.exitCode}`,
      exitCode: ended.exitCode,
      signal: ended.signal,
    };
  }

  type Ended = { exitCode: number | null; signal: NodeJS.Signals | null; stderrTail: string; spawnError?: NodeJS.ErrnoException };

  function runChild(command: string, args: string[], env: Record<string, string>, run: RunContext, signal: AbortSignal, log: RunLogFile | null): Promise<Ended> {
    return new Promise((resolve) => {
      // The public SpawnFn is Node's spawn seen through the subset the runner's types name; its result is a ChildProcess.
      const child = options.spawn(command, args, {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: the stop signal reaches the command's children too (e.g. `sh -c 'sleep 60'`).
        detached: true,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      }) as ChildProcess;
      const pgid = child.pid;
      if (pgid !== undefined) {
        live.add(pgid);
        // Before anything else can happen: if the runner dies from here on, the watchdog kills the group.
        options.reaper?.watch(pgid);
      }
      let stderrTail = '';
      let killTimer: NodeJS.Timeout | undefined;
      let closeTimer: NodeJS.Timeout | undefined;
      let leader: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined;
      let closed = false;
      let groupGone = pgid === undefined;
      let done = false;
      const finish = (ended: Ended) => {
        if (done) return;
        done = true;
        if (pgid !== undefined) {
          live.delete(pgid);
          options.reaper?.unwatch(pgid);
        }
        clearTimeout(killTimer);
        clearTimeout(closeTimer);
        signal.removeEventListener('abort', stop);
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve(ended);
      };
      const settle = () => {
        if (leader && groupGone && closed) finish({ ...leader, stderrTail });
      };
      const stop = () => {
        if (pgid === undefined) return;
        signalGroup(pgid, signal.reason === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
        // The whole group, whether or not its leader is still there: a member that ignores SIGTERM dies here.
        killTimer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), graceMs);
      };
      lines(child.stdout, (line) => {
        log?.write(line);
        options.onOutput?.('stdout', run, line);
      });
      lines(child.stderr, (line) => {
        stderrTail = `${stderrTail}${line}\n`.slice(-STDERR_TAIL_CHARS);
        log?.write(line);
        options.onOutput?.('stderr', run, line);
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) finish({ exitCode: null, signal: null, stderrTail, spawnError: error });
      });
      child.on('exit', (exitCode, exitSignal) => {
        leader = { exitCode, signal: exitSignal };
        // No command outlives its run: what the command left running in its group is stopped now
        // (SIGTERM, then SIGKILL after the grace), and the run ends once the group is empty.
        void emptyGroup(pgid, signal.aborted).then(() => {
          groupGone = true;
          settle();
          if (done) return;
          // Something that left the group (setsid) may keep the pipes open; do not wait for it forever.
          closeTimer = setTimeout(() => {
            closed = true;
            settle();
          }, 2000);
        });
      });
      child.on('close', (exitCode, exitSignal) => {
        leader ??= { exitCode, signal: exitSignal };
        closed = true;
        settle();
      });
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
  }

  /**
   * Waits until a command's group has no member left, once its leader has exited: SIGTERM to what is
   * left (unless the run is being stopped, which sent it already), SIGKILL after the grace.
   */
  async function emptyGroup(pgid: number | undefined, stopping: boolean): Promise<void> {
    if (pgid === undefined || !groupAlive(pgid)) return;
    if (!stopping) signalGroup(pgid, 'SIGTERM');
    const killAt = Date.now() + graceMs;
    let killed = false;
    // A killed process is gone within moments; a member stuck in the kernel (uninterruptible I/O) is given up on.
    while (groupAlive(pgid)) {
      if (!killed && Date.now() >= killAt) {
        signalGroup(pgid, 'SIGKILL');
        killed = true;
      } else if (killed && Date.now() >= killAt + 5000) return;
      await sleepFor(25);
    }
  }

  return {
    task,
    killAll: (signal) => {
      for (const pgid of live) signalGroup(pgid, signal);
    },
  };
}

async function successWithMetrics(path: string, run: RunContext): Promise<TaskOutcome> {
  const failed = (why: string): TaskOutcome => ({
    status: 'failed',
    error: `the command exited 0 but ${why} for ${run.date}; write a JSON object like {"rows": 42} to the file $RUNLEDGER_METRICS names`,
    code: 'invalidMetrics',
    exitCode: 0,
    signal: null,
  });
  const read = await readMetricsFile(path, run.limits.metricsBytes);
  if (read.kind === 'none') return { status: 'success', metrics: {}, exitCode: 0 };
  if (read.kind === 'problem') return failed(read.why);
  const text = read.text;
  if (text.trim() === '') return { status: 'success', metrics: {}, exitCode: 0 };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return failed(`wrote invalid JSON to $RUNLEDGER_METRICS (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failed(`$RUNLEDGER_METRICS holds ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  const problem = metricsProblem(value, run.limits.metricsBytes);
  if (problem !== null) return failed(`its metrics cannot be recorded: ${problem}`);
  return { status: 'success', metrics: value as Metrics, exitCode: 0 };
}

/**
 * The metrics file, read without trusting it: absent is "no metrics"; a
 * directory, a device or a FIFO (a symlink to /dev/zero would never end) is a
 * problem, and so is a file over the pipeline's metrics cap, read no further
 * than one byte past it.
 */
async function readMetricsFile(path: string, maxBytes: number): Promise<{ kind: 'none' } | { kind: 'problem'; why: string } | { kind: 'text'; text: string }> {
  let handle;
  try {
    // Most commands write no metrics: the run's own directory is listed rather than a stat failing with ENOENT (an
    // error built with its stack, for each run).
    if (!(await readdir(dirname(path))).includes(basename(path))) return { kind: 'none' };
    const info = await stat(path);
    if (!info.isFile()) return { kind: 'problem', why: `$RUNLEDGER_METRICS is ${info.isDirectory() ? 'a directory' : 'not a regular file (a device, a FIFO or a socket)'}, not a file of metrics` };
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) {
        return { kind: 'problem', why: `$RUNLEDGER_METRICS holds more than the ${formatBytes(maxBytes)} metrics may take; record a summary and keep large data in files, or raise the pipeline's limit with define --max-metrics-bytes` };
      }
    }
    return { kind: 'text', text: buffer.toString('utf8', 0, length) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'problem', why: `$RUNLEDGER_METRICS cannot be read (${code ?? (error as Error).message})` };
  } finally {
    await handle?.close();
  }
}

/** Calls `onLine` for each complete line of a stream (and the last one, unterminated). */
function lines(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  stream.setEncoding('utf8');
  let pending = '';
  stream.on('data', (chunk: string) => {
    // Only the new chunk is searched, so a long line costs its length once, not once per chunk.
    let from = 0;
    let newline = chunk.indexOf('\n');
    while (newline >= 0) {
      onLine(`${pending}${chunk.slice(from, newline)}`.replace(/\r$/, ''));
      pending = '';
      from = newline + 1;
      newline = chunk.indexOf('\n', from);
    }
    pending += chunk.slice(from);
    // Output that never ends a line (a progress bar redrawn with \r, a binary blob) is passed on in
    // pieces, so memory stays bounded however long the command writes.
    while (pending.length >= MAX_LINE_CHARS) {
      onLine(pending.slice(0, MAX_LINE_CHARS));
      pending = pending.slice(MAX_LINE_CHARS);
    }
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
    pending = '';
  });
}
