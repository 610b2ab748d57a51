// A stand-in for the verify worker that says the first row of every batch it is sent is bad: what `verify`
// reports then shows which batches went to the worker. It speaks the worker's protocol (worker-protocol.ts).
import { BroadcastChannel, parentPort, workerData } from 'node:worker_threads';

const VERIFY_READY = 0;
const VERIFY_ANSWERED = 1;
// Each answer is announced too, so the test can hold its next batch until the verdict is in: a verdict that has
// not come by the end of the walk is checked in the main thread instead, which would find the chain intact.
const answered = new BroadcastChannel('verify-worker-answered');
parentPort.on('message', () => {
  parentPort.postMessage({ kind: 'checked', verdict: { index: 0, problem: 'judged in the worker' } });
  Atomics.add(workerData.progress, VERIFY_ANSWERED, 1);
  answered.postMessage('answered');
});
answered.unref();
Atomics.store(workerData.progress, VERIFY_READY, 1);
const channel = new BroadcastChannel('verify-worker-loaded');
channel.postMessage('loaded');
channel.close();
