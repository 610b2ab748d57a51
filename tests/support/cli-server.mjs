// The CLI server of the tests (see run-cli.ts): one process per test file that loads the built CLI once and runs one
// command line per request, as `bin/runledger.js` would in a process of its own: in the request's cwd, with exactly
// the request's environment, stdin at end of file, no terminal, the real clock. Anything written to the process's
// own streams while a command runs (a Node warning, a stray console.log) is part of its output, as in a child.
// Plain JavaScript: Node runs it, not vitest.
import { runCommandLine } from '../../dist/cli/run-command-line.js';

const home = process.cwd();
let current;

for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    // A process would die with the stack on stderr and exit 1.
    if (current) current.fault(error);
    else process.exit(70);
  });
}
for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]]) {
  stream.write = (chunk, encoding, callback) => {
    if (current) current[name](typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (typeof encoding === 'function') encoding();
    else if (typeof callback === 'function') callback();
    return true;
  };
}
// The test file's process went away: so does this one.
process.on('disconnect', () => process.exit(0));

async function run({ argv, env, cwd }) {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env);
  process.chdir(cwd ?? home);
  let stdout = '';
  let stderr = '';
  const faulted = new Promise((resolve) => {
    current = {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      fault: (error) => {
        stderr += `${error instanceof Error ? error.stack : String(error)}\n`;
        resolve(1);
      },
    };
  });
  const code = await Promise.race([
    runCommandLine(argv, {
      stdout: (text) => current?.stdout(text),
      stderr: (text) => current?.stderr(text),
      env: process.env,
      clock: Date.now,
      // A child of spawnSync writes to pipes: no terminal, no width.
      isTTY: false,
      stdoutIsTTY: false,
    }),
    faulted,
  ]).catch((error) => {
    current?.fault(error);
    return 1;
  });
  current = undefined;
  return { code, stdout, stderr };
}

// One command line at a time, in the order they come.
let queue = Promise.resolve();
process.on('message', (request) => {
  queue = queue.then(async () => process.send(await run(request)));
});
