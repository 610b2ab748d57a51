import { fstatSync, writeSync } from 'node:fs';
import { toolVersion } from './runtime.js';
import { StdoutWriter } from './stdout-writer.js';

// The one place that touches process: argv in, exit code out.

// A reader that stops early (`runledger log | head`) closes the pipe; that is not an error.
// A backfill or catchup (it listens for signals while its runs live) must still record those runs:
// it carries on without that stream instead of exiting with dates left running.
// Any other write error on stdout (ENOSPC on a full disk, EIO) is remembered and reported as one
// line with exit 1 (see StdoutWriter); while runs live, their output is dropped instead, so the
// runner still records them, and the failure is reported at the end.
let runsLive = 0;
const gone = new Set<'stdout' | 'stderr'>();
const terminals = new Map<number, boolean>();
const stdout = new StdoutWriter(stdoutTarget());
// Each stream gets its listener when something first touches it, not here: making process.stdout or process.stderr
// loads Node's stream modules (and net for a pipe), a twentieth of a cold `status`'s instructions, which a query whose
// output goes to a pipe and whose stderr stays quiet never needs.
for (const name of ['stdout', 'stderr'] as const) onFirstTouch(name, (stream) => {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') {
      if (name === 'stdout') stdout.failed(error);
      else gone.add(name);
      return;
    }
    if (runsLive === 0) process.exit(process.exitCode ?? 0);
    gone.add(name);
  });
});
const argv = process.argv.slice(2);
// `runledger --version` alone answers before the commands are loaded (they are most of a start's CPU); with anything
// else on the line, commander answers as for any command line. Both print the same line.
const versionOnly = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
// No top-level await: the CLI bundle is also built as CommonJS, which V8 can keep a code cache of (bin/runledger.js).
void (versionOnly ? printVersion() : runCommandLine(argv)).then((exitCode) => {
  process.exitCode = exitCode;
});

async function printVersion(): Promise<number> {
  stdout.write(`${toolVersion}\n`);
  await stdout.flush();
  return 0;
}

async function runCommandLine(argv: string[]): Promise<number> {
  const { runCommandLine: run } = await import('./cli/run-command-line.js');
  return run(argv, {
    stdout: (text) => {
      if (gone.has('stdout')) return;
      if (runsLive > 0 && stdout.failure) return;
      stdout.write(text);
    },
    stderr: (text) => {
      if (!gone.has('stderr')) process.stderr.write(text);
    },
    flush: () => stdout.flush(),
    env: process.env,
    clock: Date.now,
    isTTY: isTerminal(2),
    ...(isTerminal(1) ? { columns: process.stdout.columns } : {}),
    stdoutIsTTY: isTerminal(1),
    signals: {
      on: (signal, handler) => {
        runsLive += 1;
        process.on(signal, handler);
      },
      off: (signal, handler) => {
        runsLive -= 1;
        process.off(signal, handler);
      },
    },
  });
}

/**
 * What StdoutWriter writes to. A pipe (`runledger status | less`), a file or a device that is no terminal (/dev/null)
 * is written with write(2) itself, as Node's stream would write it, but without making the stream. On the first write
 * that fails (EPIPE: the reader went away; EAGAIN: a non-blocking pipe is full; ENOSPC: /dev/full, a full disk) the
 * rest of that text and everything after it go to process.stdout, which fails or waits exactly as it always did: the
 * failed write(2) wrote nothing. A terminal (its columns come from the stream anyway) or a socket gets the stream.
 */
function stdoutTarget(): { write(text: string, callback: (error?: Error | null) => void): boolean } {
  let direct: boolean;
  try {
    const stat = fstatSync(1);
    direct = stat.isFIFO() || stat.isFile() || (stat.isCharacterDevice() && !isTerminal(1));
  } catch {
    direct = false;
  }
  return {
    write(text, callback) {
      if (!direct) return process.stdout.write(text, callback);
      const bytes = Buffer.from(text, 'utf8');
      let at = 0;
      try {
        while (at < bytes.length) at += writeSync(1, bytes, at);
      } catch {
        direct = false;
        return process.stdout.write(at === 0 ? text : bytes.subarray(at), callback);
      }
      callback();
      return true;
    },
  };
}

/**
 * Calls `first` with process.stdout or process.stderr when something first reads it (Node makes each on first read),
 * so the stream has its listeners before anyone can write to it, as when they were added at start.
 */
function onFirstTouch(name: 'stdout' | 'stderr', first: (stream: NodeJS.WriteStream) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, name);
  if (own?.get === undefined || !own.configurable) {
    first(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own.enumerable ?? true,
    get() {
      Object.defineProperty(process, name, own);
      const stream = process[name];
      first(stream);
      return stream;
    },
  });
}

/**
 * Whether fd 1 or 2 is a terminal, as process.stdout.isTTY and process.stderr.isTTY answer (both ask libuv's
 * uv_guess_handle through tty_wrap), without making the stream: node:tty would load net and the streams too.
 */
function isTerminal(fd: 1 | 2): boolean {
  let known = terminals.get(fd);
  if (known === undefined) {
    const tty = quietBinding('tty_wrap') as { isTTY?: (fd: number) => boolean } | undefined;
    known = typeof tty?.isTTY === 'function' ? tty.isTTY(fd) : Boolean((fd === 1 ? process.stdout : process.stderr).isTTY);
    terminals.set(fd, known);
  }
  return known;
}

/**
 * One of Node's internal bindings through process.binding, which is deprecated (DEP0111) but warns only for a few names
 * or under --pending-deprecation: the warning is held back here, where Node's own public API would cost the stream
 * modules. Undefined when this Node has no such binding (Node 24 dropped some) or forbids it (the permission model).
 */
function quietBinding(name: string): unknown {
  const own = Object.hasOwn(process, 'noDeprecation');
  const was = process.noDeprecation;
  process.noDeprecation = true;
  try {
    return (process as unknown as { binding(name: string): unknown }).binding(name);
  } catch {
    return undefined;
  } finally {
    const flags = process as { noDeprecation?: boolean | undefined };
    if (own) flags.noDeprecation = was;
    else delete flags.noDeprecation;
  }
}
