import { runCli } from './cli/create-program.js';
import { extraCommands } from './cli/extra-commands.js';

// The one place that touches process: argv in, exit code out.

// A reader that stops early (`runledger log | head`) closes the pipe; that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    clock: Date.now,
    isTTY: Boolean(process.stderr.isTTY),
    signals: {
      on: (signal, handler) => process.on(signal, handler),
      off: (signal, handler) => process.off(signal, handler),
    },
  },
  extraCommands,
);
process.exitCode = exitCode;
