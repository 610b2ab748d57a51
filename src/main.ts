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
const gone = new Set<NodeJS.WriteStream>();
const stdout = new StdoutWriter(process.stdout);
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') {
      if (stream === process.stdout) stdout.failed(error);
      else gone.add(stream);
      return;
    }
    if (runsLive === 0) process.exit(process.exitCode ?? 0);
    gone.add(stream);
  });
}
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
      if (gone.has(process.stdout)) return;
      if (runsLive > 0 && stdout.failure) return;
      stdout.write(text);
    },
    stderr: (text) => {
      if (!gone.has(process.stderr)) process.stderr.write(text);
    },
    flush: () => stdout.flush(),
    env: process.env,
    clock: Date.now,
    isTTY: Boolean(process.stderr.isTTY),
    ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
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
