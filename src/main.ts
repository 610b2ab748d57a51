import { runCli } from './cli/create-program.js';

// The one place that touches process: argv in, exit code out.

// A reader that stops early (`runledger log | head`) closes the pipe; that is not an error.
// A backfill or catchup (it listens for signals while its runs live) must still record those runs:
// it carries on without that stream instead of exiting with dates left running.
let runsLive = 0;
const gone = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (runsLive === 0) process.exit(process.exitCode ?? 0);
    gone.add(stream);
  });
}
const write = (stream: NodeJS.WriteStream, text: string) => {
  if (!gone.has(stream)) stream.write(text);
};
const exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => write(process.stdout, text),
    stderr: (text) => write(process.stderr, text),
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
  // Loaded only when the command line needs them: a query never pays for the runner, audit or demo code.
  async () => (await import('./cli/extra-commands.js')).extraCommands,
);
process.exitCode = exitCode;
