import { fstatSync } from 'node:fs';
import { toolVersion } from './runtime.js';
import { directOutput, plainOutput, StdoutWriter } from './stdout-writer.js';

// The one place that touches process: argv in, exit code out.

// A reader that stops early (`runledger log | head`) closes the pipe; that is not an error.
// A backfill or catchup (it listens for signals while its runs live) must still record those runs:
// it carries on without that stream instead of exiting with dates left running.
// Any other write error on stdout (ENOSPC on a full disk, EIO) is remembered and reported as one
// line with exit 1 (see StdoutWriter); while runs live, their output is dropped instead, so the
// runner still records them, and the failure is reported at the end.
let runsLive = 0;
const gone = new Set<'stdout' | 'stderr'>();
let stderrTTY: boolean | undefined;
// Node makes process.stdout's and process.stderr's streams when they are first asked for; making one loads Node's
// stream modules, and for a pipe or a terminal net and the socket code too (20M instructions of a start for a pipe).
// stdout, when fstat says fd 1 is no terminal (a file, a pipe, a socket, /dev/null), is written with write(2) and its
// stream made only if a write fails (directOutput) or a command that runs long starts listening for signals (below);
// a terminal gets the stream, which knows its width. Most commands never write to stderr. So each stream's listener
// is added when something (this file, commander, a warning, a failed write) first asks for it, not here.
const onError = (name: 'stdout' | 'stderr') => (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') {
    if (name === 'stdout') stdout.failed(error);
    else gone.add(name);
    return;
  }
  if (runsLive === 0) process.exit(process.exitCode ?? 0);
  gone.add(name);
};
let direct: ReturnType<typeof directOutput> | undefined;
whenMade('stdout', (stream) => {
  stream.on('error', onError('stdout'));
  // Made by someone else (commander, a library): from now on all of stdout goes through the stream's one queue.
  direct?.handOver();
});
whenMade('stderr', (stream) => stream.on('error', onError('stderr')));
// After the listeners' hooks: a terminal's stream is made here, and gets its listener as it is made.
if (plainOutput(1)) direct = directOutput(1, () => process.stdout);
const stdout = new StdoutWriter(direct ?? process.stdout);
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

/**
 * Whether stderr is a terminal. A terminal is a character device: where fstat says fd 2 is not one (a pipe, a file, a
 * socket), the answer is no without making process.stderr's stream; a character device (a terminal, /dev/null) is
 * asked of the stream, as before. Windows keeps asking the stream.
 */
function stderrIsTTY(): boolean {
  if (process.platform !== 'win32') {
    try {
      if (!fstatSync(2).isCharacterDevice()) return false;
    } catch {
      // A closed fd 2: Node's stream decides, as it always did.
    }
  }
  return Boolean(process.stderr.isTTY);
}

/**
 * Calls `made` with process[name] once it exists, whoever asks for it first, by wrapping Node's lazy getter (which
 * is put back on first use); a process whose stream is not a configurable getter gets it made at once.
 */
function whenMade(name: 'stdout' | 'stderr', made: (stream: NodeJS.WriteStream) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, name);
  if (own?.get === undefined || own.configurable !== true) {
    made(process[name]);
    return;
  }
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own.enumerable ?? true,
    get() {
      Object.defineProperty(process, name, own);
      const stream = process[name];
      made(stream);
      return stream;
    },
  });
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
    get isTTY() {
      return (stderrTTY ??= stderrIsTTY());
    },
    // A file, a pipe, a socket or /dev/null (written directly) is no terminal: not asked of the stream, which is not made.
    ...(direct === undefined && process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
    stdoutIsTTY: direct === undefined && Boolean(process.stdout.isTTY),
    signals: {
      on: (signal, handler) => {
        runsLive += 1;
        // A command that listens for signals runs long (backfill, scheduler, follow, serve): its stdout goes through
        // the stream, as before, whose writes to a pipe queue while the reader stalls (a pager, a log shipper) where
        // write(2) would block the event loop, and with it the runs' heartbeats and the children's output.
        direct?.handOver();
        process.on(signal, handler);
      },
      off: (signal, handler) => {
        runsLive -= 1;
        process.off(signal, handler);
      },
    },
  });
}
