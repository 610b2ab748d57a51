import { runCommandLine } from './cli/run-command-line.js';
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
const exitCode = await runCommandLine(
  process.argv.slice(2),
  {
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
  },
);
process.exitCode = exitCode;
