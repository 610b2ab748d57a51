import { Worker } from 'node:worker_threads';

/** What a command's start passes on, as it happens: the same events a `ChildProcess` emits, its output as text. */
export type ChildEvents = {
  /** The command started (its pid, which leads its own process group), or could not (`undefined`; `error` follows). */
  started(pid: number | undefined): void;
  /** A chunk of its output, decoded as UTF-8 (a character split between chunks arrives whole in the later one). */
  output(stream: 'stdout' | 'stderr', chunk: string): void;
  /** The end of one of its output streams. */
  end(stream: 'stdout' | 'stderr'): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  close(code: number | null, signal: NodeJS.Signals | null): void;
  error(error: NodeJS.ErrnoException): void;
  /** `spawn` threw (an argument it refuses): what a synchronous call would have thrown. */
  thrown(error: Error): void;
  /** The command's pid is known but nothing more will be heard of it (the spawner thread ended). */
  lost(error: Error): void;
};

/** A command being started or running: `release` drops its pipes (the runner no longer waits for their end). */
export type LaunchedChild = { release(): void };

/** Starts a command and passes on what it does; throws (or calls `error`) as `child_process.spawn` would. */
export type Launcher = (command: string, args: readonly string[], options: Record<string, unknown>, events: ChildEvents) => LaunchedChild;

/**
 * The spawner thread's code, run with `eval` so it needs no file of its own beside the compiled code (as the watchdog
 * of group-reaper.ts). Messages in: `{ op: 'spawn', id, command, args, options }` and `{ op: 'release', id }`. Out:
 * `{ id, ev, … }`, one per event of `ChildEvents`, `thrown` when `spawn` itself threw.
 */
const SPAWNER = `
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const children = new Map();
const post = (message) => parentPort.postMessage(message);
const errorOf = (e) => ({ message: String(e && e.message), code: e && e.code, errno: e && e.errno, syscall: e && e.syscall, path: e && e.path });
parentPort.on('message', (m) => {
  if (m.op === 'release') {
    const child = children.get(m.id);
    children.delete(m.id);
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    return;
  }
  const id = m.id;
  let child;
  try {
    child = spawn(m.command, m.args, m.options);
  } catch (e) {
    post({ id, ev: 'thrown', error: errorOf(e) });
    return;
  }
  children.set(id, child);
  post({ id, ev: 'started', pid: child.pid });
  for (const stream of ['stdout', 'stderr']) {
    const s = child[stream];
    if (!s) continue;
    s.setEncoding('utf8');
    s.on('data', (chunk) => post({ id, ev: 'output', stream, chunk }));
    s.on('end', () => post({ id, ev: 'end', stream }));
  }
  child.on('error', (e) => post({ id, ev: 'error', error: errorOf(e) }));
  child.on('exit', (code, signal) => post({ id, ev: 'exit', code, signal }));
  child.on('close', (code, signal) => {
    children.delete(id);
    post({ id, ev: 'close', code, signal });
  });
});
`;

type FromThread =
  | { id: number; ev: 'started'; pid: number | undefined }
  | { id: number; ev: 'output'; stream: 'stdout' | 'stderr'; chunk: string }
  | { id: number; ev: 'end'; stream: 'stdout' | 'stderr' }
  | { id: number; ev: 'exit' | 'close'; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; ev: 'error' | 'thrown'; error: { message: string; code?: string; errno?: number; syscall?: string; path?: string } };

type Thread = { worker: Worker; children: Map<number, { events: ChildEvents; started: boolean }>; starting: number };

/** How many spawner threads a process gets: a spawn blocks its thread until the command has exec'd, so two overlap. */
const THREADS = 2;

let threads: Thread[] | undefined;
let nextId = 1;

/**
 * Node's `child_process.spawn`, run on worker threads. `spawn` blocks the thread that calls it until the child has
 * exec'd (milliseconds each on a loaded machine, most of a scheduler's time in a burst of starts), so the runner's
 * own thread calls it no more: it asks a spawner thread and hears back the pid, the output and the exit. The
 * commands are still this process's children, so their exit code and signal are exact, and `process.kill` on their
 * groups works from any thread. The threads start at the first command and keep the process alive only while a
 * command of theirs runs.
 *
 * The start is asynchronous: the command may not exist yet when this returns (a runner's watchdog watches its run
 * id from before this call, as with the synchronous `spawn`), and `started` says its pid.
 *
 * @example
 * const child = threadLauncher('true', [], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env }, events);
 */
export const threadLauncher: Launcher = (command, args, options, events) => {
  threads ??= [];
  while (threads.length < THREADS) threads.push(startThread());
  // The thread with the fewest starts in hand: a start blocks its thread, so they queue there.
  const thread = threads.reduce((a, b) => (b.starting < a.starting ? b : a));
  const id = nextId++;
  thread.children.set(id, { events, started: false });
  thread.starting += 1;
  if (thread.children.size === 1) thread.worker.ref();
  thread.worker.postMessage({ op: 'spawn', id, command, args, options });
  return {
    release: () => {
      if (thread.children.has(id)) thread.worker.postMessage({ op: 'release', id });
    },
  };
};

function startThread(): Thread {
  const worker = new Worker(SPAWNER, { eval: true, stdout: false, stderr: false });
  const thread: Thread = { worker, children: new Map(), starting: 0 };
  const forget = (id: number) => {
    thread.children.delete(id);
    if (thread.children.size === 0) worker.unref();
  };
  worker.on('message', (message: FromThread) => {
    const child = thread.children.get(message.id);
    if (!child) return;
    switch (message.ev) {
      case 'started':
        child.started = true;
        thread.starting -= 1;
        child.events.started(message.pid);
        break;
      case 'output':
        child.events.output(message.stream, message.chunk);
        break;
      case 'end':
        child.events.end(message.stream);
        break;
      case 'exit':
        child.events.exit(message.code, message.signal);
        break;
      case 'close':
        forget(message.id);
        child.events.close(message.code, message.signal);
        break;
      case 'error':
      case 'thrown': {
        const error = Object.assign(new Error(message.error.message), message.error) as NodeJS.ErrnoException;
        if (message.ev === 'thrown') {
          thread.starting -= 1;
          forget(message.id);
          child.events.thrown(error);
        } else child.events.error(error);
        break;
      }
    }
  });
  // The thread cannot fail but by a bug or running out of memory: the runs of its commands end (those started have
  // their groups stopped by the runner), and the next start gets a new thread.
  const lost = (error: Error) => {
    threads = threads?.filter((t) => t !== thread);
    for (const [id, child] of thread.children) {
      thread.children.delete(id);
      const why = Object.assign(new Error(`the spawner thread ended (${error.message})`), { code: 'ESPAWNER' });
      if (child.started) child.events.lost(why);
      else child.events.error(why);
    }
  };
  worker.on('error', lost);
  worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
  // After the listeners, which ref its port: only a command in hand keeps the process alive.
  worker.unref();
  return thread;
}
