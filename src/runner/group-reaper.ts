import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A watchdog beside the runner that kills the process groups of its commands when the runner goes away,
 * however it goes (`kill -9` included): the runner holds the write end of the watchdog's stdin, the kernel
 * closes it when the runner dies, and on that end of file the watchdog sends SIGTERM to every group it
 * still watches, then SIGKILL to what is left after the grace. Node cannot ask for `PR_SET_PDEATHSIG`, and
 * a pipe's end of file works on every Unix.
 *
 * One watchdog per runner process, not one per command: it costs one small process however many commands
 * run, and the commands stay the runner's own children, so their exit status and signal are exact.
 *
 * A command's group is known only once `spawn` has returned, and a runner killed between the command's start
 * and its `watch` (a few milliseconds, longer on a loaded machine) would leave it running. So the runner also
 * names each run before spawning its command (`watchRun`): at the end of file the watchdog finds, in `/proc`, the
 * processes whose environment carries `RUNLEDGER_RUN_ID=<that run>` (every command gets it) and stops their
 * groups too. Without `/proc` (not Linux) only the watched groups are stopped.
 */
export type GroupReaper = {
  /**
   * Start the watchdog, if it is not running yet, and resolve once it is up and reading its pipe. Await it before
   * spawning a command: starting a Node process takes a while (seconds on a loaded machine), and a runner killed
   * in that while would leave the command it just spawned unwatched.
   */
  ready(): Promise<void>;
  /** Watch a command's process group (its leader's pid) until `unwatch`, from the end of this turn of the event loop (its run id covers it until then). */
  watch(pgid: number): void;
  unwatch(pgid: number): void;
  /** Before spawning a run's command: stop, at the end, any process carrying this run id, until `unwatchRun`. */
  watchRun(runId: string): void;
  unwatchRun(runId: string): void;
  /** Close the pipe: the watchdog kills what it still watches (nothing, after a clean end) and exits. */
  close(): void;
};

export type GroupReaperOptions = {
  /** After SIGTERM, how long the groups get before SIGKILL. */
  graceMs: number;
  /** The Node binary that runs the watchdog (default: this one). */
  execPath?: string;
};

/**
 * The watchdog itself, run with `node -e` so it needs no file of its own beside the compiled code. It ignores
 * SIGINT, SIGTERM and SIGHUP (a Ctrl-C or a terminal's hangup reaches the runner, which stops its commands
 * itself); only the end of its stdin makes it act. Protocol: lines `+ <pgid>`, `- <pgid>`, `r+ <run id>` and
 * `r- <run id>`. It ends by itself once its stdin is closed and no group is left to wait for.
 */
const WATCHDOG = `
const fs = require('node:fs');
const grace = Number(process.env.RUNLEDGER_WATCHDOG_GRACE_MS);
const groups = new Set();
const runs = new Set();
// The process groups of the processes whose environment names a watched run (a command spawned, not yet watched).
function groupsOfRuns() {
  if (runs.size === 0) return;
  let names;
  try { names = fs.readdirSync('/proc'); } catch { return; }
  const needles = [...runs].map((id) => Buffer.from('RUNLEDGER_RUN_ID=' + id + '\\0'));
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = fs.readFileSync('/proc/' + name + '/environ');
      if (!needles.some((n) => env.indexOf(n) === 0 || env.includes(Buffer.concat([Buffer.from([0]), n])))) continue;
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (Number.isSafeInteger(pgid) && pgid > 1 && pgid !== process.pid) groups.add(pgid);
    } catch {}
  }
}
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
const alive = (g) => { try { process.kill(-g, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const send = (g, s) => { try { process.kill(-g, s); } catch {} };
let buffer = '';
let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  groupsOfRuns();
  for (const g of groups) send(g, 'SIGTERM');
  const until = Date.now() + grace;
  const tick = () => {
    for (const g of groups) if (!alive(g)) groups.delete(g);
    // Nothing left to wait for: no timer and no open stdin, so the watchdog's process ends by itself.
    if (groups.size === 0) return;
    if (Date.now() >= until) { for (const g of groups) send(g, 'SIGKILL'); return; }
    setTimeout(tick, 50);
  };
  tick();
}
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    const op = line.slice(0, line.indexOf(' '));
    const id = line.slice(line.indexOf(' ') + 1);
    if (op === 'r+') { runs.add(id); continue; }
    if (op === 'r-') { runs.delete(id); continue; }
    const g = Number(id);
    if (!Number.isSafeInteger(g) || g <= 1) continue;
    if (op === '+') groups.add(g); else groups.delete(g);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
process.stdout.write('ready\\n');
`;

/**
 * Starts the watchdog lazily, at the first `start` or `watch`: a runner that runs no command starts no process.
 *
 * @example
 * const reaper = groupReaper({ graceMs: 10_000 }); reaper.watch(child.pid); … reaper.unwatch(child.pid);
 */
export function groupReaper(options: GroupReaperOptions): GroupReaper {
  let child: ChildProcess | undefined;
  let up: Promise<void> | undefined;
  const start = () => {
    if (!child) {
      child = spawn(options.execPath ?? process.execPath, ['-e', WATCHDOG], {
        env: { ...process.env, RUNLEDGER_WATCHDOG_GRACE_MS: String(options.graceMs) },
        // Its own process group: a signal to the runner's group (a Ctrl-C, `kill -- -<pgid>`) does not reach it.
        detached: true,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      const started = child;
      // Up once it says so; if it cannot start (or ends), the runs go on without it rather than wait forever.
      up = new Promise<void>((resolve) => {
        started.stdout?.once('data', () => resolve());
        started.once('error', () => resolve());
        started.once('exit', () => resolve());
      });
      (started.stdout as unknown as { unref?: () => void } | null)?.unref?.();
      child.on('error', () => {});
      child.stdin?.on('error', () => {});
      // Neither the watchdog nor its pipe keeps the runner alive; the runner's exit closes the pipe.
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    }
  };
  /**
   * Lines not written yet. Only a run id has to be in the pipe before its command exists, so `watchRun` writes at once,
   * with whatever waits; the rest waits for the end of this turn of the event loop (a group is already covered by its
   * run id, an `unwatch` only spares the watchdog a signal to a group that is gone), one write for many lines where
   * it was four writes a run, each waking the watchdog.
   */
  let pending = '';
  let flushing: NodeJS.Immediate | undefined;
  /** Whether the watchdog can find a run's processes by its id (`/proc`, on Linux): only then may a group's line wait. */
  const RUN_IDS_FOUND = process.platform === 'linux';
  const flush = () => {
    clearImmediate(flushing);
    flushing = undefined;
    if (pending === '') return;
    child?.stdin?.write(pending);
    pending = '';
  };
  const later = (line: string) => {
    start();
    pending += line;
    flushing ??= setImmediate(flush).unref();
  };
  return {
    ready: () => {
      start();
      return up ?? Promise.resolve();
    },
    watch: (pgid) => {
      if (RUN_IDS_FOUND) return later(`+ ${pgid}\n`);
      // Without /proc a run id covers nothing, so a runner killed before this turn ended would leave the group unwatched.
      start();
      pending += `+ ${pgid}\n`;
      flush();
    },
    unwatch: (pgid) => {
      if (child) later(`- ${pgid}\n`);
    },
    watchRun: (runId) => {
      start();
      pending += `r+ ${runId}\n`;
      flush();
    },
    unwatchRun: (runId) => {
      if (child) later(`r- ${runId}\n`);
    },
    close: () => {
      flush();
      child?.stdin?.end();
    },
  };
}
