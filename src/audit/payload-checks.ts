import { Worker } from 'node:worker_threads';
import type { RawEvent } from '../store/event-store.js';
import { firstPayloadProblem, type PayloadVerdict } from './check-payload.js';
import { verifyRows } from './verify-rows.js';
import { workerInbox, type WorkerInbox } from './worker-inbox.js';
import { VERIFY_READY, type VerifyWorkerData, type VerifyWorkerMessage } from './worker-protocol.js';

/**
 * Batches checked in this thread before the worker is started: a ledger of up to this many batches never
 * starts it. Loading it takes a hundred milliseconds of the other core, about what this thread takes to
 * check twenty batches, so on a small ledger it would cost more than it saves.
 */
export const WORKER_AFTER_BATCHES = 4;

/** A batch the worker checks: its verdict comes from `PayloadChecks.verdict()`, in the order they were started. */
export const IN_WORKER = 'in worker';

/** The payload checks of `verify`'s batches, in this thread or in its worker (see `payloadChecks`). */
export type PayloadChecks = {
  /**
   * Starts checking a batch: its verdict at once when checked in this thread, or IN_WORKER; `hashed` when
   * the worker checks the stored hashes of the batch too (the caller then does not).
   */
  start(rows: readonly RawEvent[]): { verdict: PayloadVerdict | typeof IN_WORKER; hashed: boolean };
  /** The verdict of the oldest batch the worker has not answered for yet. */
  verdict(): Promise<PayloadVerdict>;
  close(): Promise<void>;
};

/**
 * Checks batches of rows with `firstPayloadProblem`, after the first WORKER_AFTER_BATCHES in a worker thread
 * (`worker` names its compiled module; null keeps every batch in this thread). The batches read while it
 * loads are checked here too, so no batch waits for it, and a small ledger never starts it. Then each batch goes to the worker, and so does the hashing of every
 * other batch (`hashes`: only when the caller hashes with `sha256Hex`, as the worker does).
 *
 * @example
 * const checks = payloadChecks(compiledWorker('verify-worker.js'), true);
 * const { verdict, hashed } = checks.start(rows);
 * const problem = verdict === IN_WORKER ? await checks.verdict() : verdict;
 * await checks.close();
 */
export function payloadChecks(worker: URL | null, hashes: boolean): PayloadChecks {
  let batches = 0;
  let sent = 0;
  let thread: Worker | null = null;
  let inbox: WorkerInbox<VerifyWorkerMessage> | null = null;
  const progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  return {
    start(rows) {
      batches += 1;
      if (worker && batches === WORKER_AFTER_BATCHES + 1) {
        thread = new Worker(worker, { workerData: { progress } satisfies VerifyWorkerData });
        inbox = workerInbox<VerifyWorkerMessage>(thread, (code) => `the verify worker stopped (exit code ${code}) before it checked the whole chain; run verify again`);
      }
      // Until the worker has loaded, and for a batch it could not be sent as it is, the check runs here.
      if (!thread || Atomics.load(progress, VERIFY_READY) !== 1) return { verdict: firstPayloadProblem(rows), hashed: false };
      // Reading a batch costs this thread about what parsing and validating it costs the worker, and the hashing
      // tips the balance: every other batch, the worker hashes it too.
      const batch = verifyRows(rows, hashes && sent % 2 === 1);
      if (!batch) return { verdict: firstPayloadProblem(rows), hashed: false };
      thread.postMessage(batch);
      sent += 1;
      return { verdict: IN_WORKER, hashed: batch.links !== null };
    },
    async verdict() {
      const message = await (inbox as WorkerInbox<VerifyWorkerMessage>).next();
      if (message.kind === 'error') throw new Error(message.message);
      return message.verdict;
    },
    async close() {
      if (!thread) return;
      thread.removeAllListeners();
      await thread.terminate();
    },
  };
}
