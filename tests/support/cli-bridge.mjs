// The thread between a test file and its CLI server (see run-cli.ts): the test file blocks on a shared flag, as it
// blocked on spawnSync, while this thread hands the request to the server process and raises the flag on its answer.
import { fork } from 'node:child_process';
import { workerData } from 'node:worker_threads';

const { port, shared } = workerData;
const flag = new Int32Array(shared);
const server = fork(new URL('./cli-server.mjs', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

function answer(result) {
  port.postMessage(result);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

server.on('message', answer);
server.on('exit', (code, signal) => {
  answer({ code: -1, stdout: '', stderr: `the tests' CLI server exited (${signal ?? code})\n` });
  port.close();
});
port.on('message', (request) => {
  if (request === 'stop') server.kill();
  else server.send(request);
});
