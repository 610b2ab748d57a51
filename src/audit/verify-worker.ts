import { parentPort, workerData } from 'node:worker_threads';
import { plainEventCheck, UNSETTLED } from '../../events/event-schema-check.js';
import { sha256Hex } from '../store/seal-events.js';
import { firstPayloadProblem } from './check-payload.js';
import { rowsOfVerifyRows, type VerifyRows } from './verify-rows.js';
import { VERIFY_ANSWERED, VERIFY_READY, type VerifyWorkerData, type VerifyWorkerMessage } from './worker-protocol.js';

// The worker thread of `verify`: it parses and validates each batch's payloads and compares the columns
// stored beside them (`firstPayloadProblem`, as `verify` does in its own thread), and hashes the rows of the
// batches sent with their links, while the main thread reads the next batch and checks the links.

const port = parentPort;
if (!port) throw new Error('verify-worker: run it as a worker thread (new Worker), not as a script');
const { progress } = workerData as VerifyWorkerData;

// The plain checks of every event runledger writes, without zod (loading it took most of the worker's start):
// an event they do not settle sends its batch back to be checked where zod is loaded.

port.on('message', (batch: VerifyRows) => {
  let reply: VerifyWorkerMessage;
  try {
    reply = { kind: 'checked', verdict: firstPayloadProblem(rowsOfVerifyRows(batch), plainEventCheck, batch.links ? sha256Hex : undefined) };
  } catch (error) {
    reply = error === UNSETTLED ? { kind: 'unsure' } : { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  Atomics.add(progress, VERIFY_ANSWERED, 1);
});
Atomics.store(progress, VERIFY_READY, 1);
