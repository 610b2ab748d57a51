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
 */
export type GroupReaper = {
  /** Watch a command's process group (its leader's pid) from now until `unwatch`. */
  watch(pgid: number): void;
  unwatch(pgid: number): void;
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
 * itself); only the end of its stdin makes it act. Protocol: lines `+ <pgid>` and `- <pgid>`.
 */
const WATCHDOG = `
const grace = Number(process.argv[1]);
const groups = new Set();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
const alive = (g) => { try { process.kill(-g, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const send = (g, s) => { try { process.kill(-g, s); } catch {} };
let buffer = '';
let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  for (const g of groups) send(g, 'SIGTERM');
  const until = Date.now() + grace;
  const tick = () => {
    for (const g of groups) if (!alive(g)) groups.delete(g);
    if (groups.size === 0) process.exit(0);
    if (Date.now() >= until) { for (const g of groups) send(g, 'SIGKILL'); process.exit(0); }
    setTimeout(tick, 50);
  };
  tick();
}
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf('\\n')) >= 0) {
    const [op, id] = buffer.slice(0, at).split(' ');
    buffer = buffer.slice(at + 1);
    const g = Number(id);
    if (!Number.isSafeInteger(g) || g <= 1) continue;
    if (op === '+') groups.add(g); else groups.delete(g);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
`;

/**
 * Starts the watchdog lazily, at the first `watch`: a runner that runs no command starts no process.
 *
 * @example
 * const reaper = groupReaper({ graceMs: 10_000 }); reaper.watch(child.pid); … reaper.unwatch(child.pid);
 */
export function groupReaper(options: GroupReaperOptions): GroupReaper {
  let child: ChildProcess | undefined;
  const write = (line: string) => {
    if (!child) {
      child = spawn(options.execPath ?? process.execPath, ['-e', WATCHDOG, String(options.graceMs)], {
        // Its own process group: a signal to the runner's group (a Ctrl-C, `kill -- -<pgid>`) does not reach it.
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.on('error', () => {});
      child.stdin?.on('error', () => {});
      // Neither the watchdog nor its pipe keeps the runner alive; the runner's exit closes the pipe.
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    }
    child.stdin?.write(line);
  };
  return {
    watch: (pgid) => write(`+ ${pgid}\n`),
    unwatch: (pgid) => {
      if (child) write(`- ${pgid}\n`);
    },
    close: () => {
      child?.stdin?.end();
    },
  };
}
