// The doc tests' CLI server (see run-console-block.ts): one process that loads the built CLI once and runs the
// `runledger` command lines of a guide's shell, one at a time, as `bin/runledger.js` would in a process of its own:
// in the shell's directory, with exactly the shell's exported environment, writing to the shell's own stdout and
// stderr (a terminal, a pipe of `$(…)`, a file of `2> err.txt`, /dev/null), with the shell's terminal or not.
// A process start costs more than most commands, and a guide runs about a hundred of them.
//
// The shell's function (DOC_CLI_CLIENT in run-console-block.ts) connects over TCP and sends, each field ended by a
// NUL: the protocol word, the shell's pid, its directory, "1" when its stdout / stderr is a terminal ("" when not),
// the terminal's columns, the argument count, the arguments, then its exported variables as NAME=value and an empty
// field. The server opens /proc/<pid>/fd/1 and fd/2 (the shell's own stdout and stderr), runs the command line,
// and answers with the exit code and a newline once everything is written; or with `process` when it cannot open
// them, and the shell starts a process of its own instead.
// Plain JavaScript: Node runs it, not vitest.
import { appendFileSync, closeSync, constants, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { runCommandLine } from '../../dist/cli/run-command-line.js';

const PROTOCOL = 'runledger-doc-cli-1';
const home = process.cwd();
let current;

for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    // A process would die with the stack on stderr and exit 1.
    if (current) current.fault(error);
    else process.exit(70);
  });
}
// What Node itself prints (a warning) and a stray console.log go where a process's would: the command's streams.
for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]]) {
  stream.write = (chunk, encoding, callback) => {
    if (current) current[name](typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (typeof encoding === 'function') encoding();
    else if (typeof callback === 'function') callback();
    return true;
  };
}
// As the harness's preload does in every Node.js process a block starts: a DeprecationWarning goes to the file the
// shell names (RUNLEDGER_DOC_TEST_DEPRECATIONS), which the harness reads after each command.
process.on('warning', (warning) => {
  const file = process.env.RUNLEDGER_DOC_TEST_DEPRECATIONS;
  if (!file || warning.name !== 'DeprecationWarning') return;
  const code = warning.code ? `[${warning.code}] ` : '';
  appendFileSync(file, `DeprecationWarning: ${code}${String(warning.message).replace(/\n/g, ' ')}\n`);
});
// The test file's process went away: so does this one.
process.on('disconnect', () => process.exit(0));

/**
 * One of the shell's streams, opened anew through /proc: a write goes where the shell's would (appended to a file
 * the shell opened, into its pipe, onto its terminal). Opened non-blocking, so a pipe nobody reads any more fails
 * a write (a closed pipe: the rest is dropped, as `runledger log | head` drops it) instead of hanging. Throws when
 * the stream cannot be opened again (a socket, a pipe with no reader left).
 */
function shellStream(pid, fd) {
  let handle = openSync(`/proc/${pid}/fd/${fd}`, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK | constants.O_NOCTTY);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    write(text) {
      if (handle === undefined) return;
      let bytes = Buffer.from(text, 'utf8');
      while (bytes.length > 0) {
        try {
          bytes = bytes.subarray(writeSync(handle, bytes));
        } catch (error) {
          // A full pipe or terminal: wait for its reader.
          if (error.code === 'EAGAIN') Atomics.wait(pause, 0, 0, 2);
          else {
            this.close();
            return;
          }
        }
      }
    },
    close() {
      if (handle !== undefined) closeSync(handle);
      handle = undefined;
    },
  };
}

/** The exit code, or 'process' when the shell's streams cannot be taken over and the shell should start a process. */
async function run({ pid, cwd, stdoutTTY, stderrTTY, columns, argv, env }) {
  let out;
  let err;
  try {
    out = shellStream(pid, 1);
    err = shellStream(pid, 2);
  } catch {
    out?.close();
    return 'process';
  }
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env);
  let code;
  try {
    process.chdir(cwd);
    const faulted = new Promise((resolve) => {
      current = {
        stdout: (text) => out.write(text),
        stderr: (text) => err.write(text),
        fault: (error) => {
          err.write(`${error instanceof Error ? error.stack : String(error)}\n`);
          resolve(1);
        },
      };
    });
    code = await Promise.race([
      runCommandLine(argv, {
        stdout: (text) => current?.stdout(text),
        stderr: (text) => current?.stderr(text),
        env: process.env,
        clock: Date.now,
        isTTY: stderrTTY,
        ...(stdoutTTY ? { columns } : {}),
        stdoutIsTTY: stdoutTTY,
      }),
      faulted,
    ]);
    // Warnings are emitted on the next tick: they belong to this command.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (error) {
    current?.fault(error);
    code = 1;
  } finally {
    current = undefined;
    out.close();
    err.close();
    process.chdir(home);
  }
  return code;
}

/** The request once all of it has come, or undefined while some is still to come. */
function parse(buffer) {
  const fields = buffer.toString('utf8').split('\0');
  // The last piece is what follows the last NUL: not a field yet.
  fields.pop();
  if (fields.length < 7) return undefined;
  const [protocol, pid, cwd, stdoutTTY, stderrTTY, columns, count] = fields;
  if (protocol !== PROTOCOL) throw new Error(`not a request of ${PROTOCOL}: ${protocol}`);
  const argc = Number(count);
  const end = fields.indexOf('', 7 + argc);
  if (fields.length < 7 + argc || end === -1) return undefined;
  const env = {};
  for (const entry of fields.slice(7 + argc, end)) {
    const at = entry.indexOf('=');
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return { pid: Number(pid), cwd, stdoutTTY: stdoutTTY === '1', stderrTTY: stderrTTY === '1', columns: Number(columns), argv: fields.slice(7, 7 + argc), env };
}

// One command line at a time, in the order they come: a guide's shell runs one at a time.
let queue = Promise.resolve();
const server = createServer((socket) => {
  let buffer = Buffer.alloc(0);
  let taken = false;
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    if (taken) return;
    buffer = Buffer.concat([buffer, chunk]);
    let request;
    try {
      request = parse(buffer);
    } catch (error) {
      taken = true;
      socket.end(`70\n${error.message}\n`);
      return;
    }
    if (!request) return;
    taken = true;
    queue = queue.then(async () => socket.end(`${await run(request)}\n`));
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
