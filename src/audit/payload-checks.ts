import { Worker } from 'node:worker_threads';
import type { EventCheck } from '../../events/decode-trusted-event.js';
import type { RawEvent } from '../store/event-store.js';
import { sha256Hex } from '../store/seal-events.js';
import { firstPayloadProblem, type PayloadVerdict } from './check-payload.js';
import { verifyRows } from './verify-rows.js';
import { workerInbox, type WorkerInbox } from './worker-inbox.js';
import { VERIFY_ANSWERED, VERIFY_READY, type VerifyWorkerData, type VerifyWorkerMessage } from './worker-protocol.js';

/**
 * Batches checked in this thread before the worker is started: a ledger of up to this many batches never
 * starts it. Starting a thread and loading its modules costs the other core tens of milliseconds (more on
 * a busy machine), which a ledger of a few thousand events would not win back.
 */
export const WORKER_AFTER_BATCHES = 4;

/**
 * Batches the worker may have to answer for at once. With that many, the next batch is checked here:
 * this thread never waits for a worker the machine gives less time than it (other processes, or the
 * validation of unusual events), and memory holds a few batches.
 */
const WORKER_BATCHES_AHEAD = 3;

/** A batch the worker checks: its verdict comes from `PayloadChecks.verdict`, in the order they were started. */
export const IN_WORKER = 'in worker';

/** The payload checks of `verify`'s batches, in this thread or in its worker (see `payloadChecks`). */
export type PayloadChecks = {
  /**
   * Starts checking a batch: its verdict at once when checked in this thread, or IN_WORKER; `hashed` when
   * the worker checks the stored hashes of the batch too (the caller then does not).
   */
  start(rows: readonly RawEvent[]): { verdict: PayloadVerdict | typeof IN_WORKER; hashed: boolean };
  /**
   * The verdict of the oldest batch sent to the worker whose verdict was not taken yet: these `rows`, and
   * `hashed` as `start` said. A batch the worker hands back (an event its plain checks do not settle) is
   * checked here.
   */
  verdict(rows: readonly RawEvent[], hashed: boolean): Promise<PayloadVerdict>;
  /** The verdict of a batch checked here after all (a batch sent to the worker, when not waiting for it). */
  here(rows: readonly RawEvent[], hashed: boolean): PayloadVerdict;
  /** Whether the worker has answered for that batch (its verdict is then at hand without waiting). */
  answered(): boolean;
  close(): void;
};

/**
 * Checks batches of rows with `firstPayloadProblem`, after the first WORKER_AFTER_BATCHES in a worker thread
 * (`worker` names its compiled module; null keeps every batch in this thread). The batches read while it
 * loads, or while it is behind, are checked here, so this thread never waits for it; a small ledger never
 * starts it. The worker also hashes every other batch it is sent (`hashes`: only when the caller hashes
 * with `sha256Hex`, as the worker does).
 *
 * @example
 * const checks = payloadChecks(compiledWorker('verify-worker.js'), true, checkEventSchema);
 * const { verdict, hashed } = checks.start(rows);
 * const problem = verdict === IN_WORKER ? await checks.verdict(rows, hashed) : verdict;
 * checks.close();
 */
export function payloadChecks(worker: URL | null, hashes: boolean, checkEventSchema: EventCheck): PayloadChecks {
  let batches = 0;
  let sent = 0;
  let taken = 0;
  let thread: Worker | null = null;
  let inbox: WorkerInbox<VerifyWorkerMessage> | null = null;
  const here = (rows: readonly RawEvent[], hashed: boolean) => firstPayloadProblem(rows, checkEventSchema, hashed ? sha256Hex : undefined);
  const progress = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  return {
    start(rows) {
      batches += 1;
      if (worker && batches === WORKER_AFTER_BATCHES + 1) {
        try {
          thread = new Worker(worker, { workerData: { progress } satisfies VerifyWorkerData });
        } catch {
          // No thread to be had (Node's permission model without --allow-worker, a thread limit): every batch is checked here.
          thread = null;
        }
        if (thread) inbox = workerInbox<VerifyWorkerMessage>(thread, (code) => `the verify worker stopped (exit code ${code}) before it checked the whole chain; run verify again`);
      }
      // Until the worker has loaded, while it is behind, and for a batch it could not be sent as it is, the check runs here.
      if (!thread || Atomics.load(progress, VERIFY_READY) !== 1 || sent - Atomics.load(progress, VERIFY_ANSWERED) >= WORKER_BATCHES_AHEAD) {
        return { verdict: here(rows, false), hashed: false };
      }
      // Reading a batch costs this thread about what parsing and validating it costs the worker, and the hashing
      // tips the balance: every other batch, the worker hashes it too.
      const batch = verifyRows(rows, hashes && sent % 2 === 1);
      if (!batch) return { verdict: here(rows, false), hashed: false };
      thread.postMessage(batch);
      sent += 1;
      return { verdict: IN_WORKER, hashed: batch.links !== null };
    },
    async verdict(rows, hashed) {
      const message = await (inbox as WorkerInbox<VerifyWorkerMessage>).next();
      taken += 1;
      if (message.kind === 'error') throw new Error(message.message);
      return message.kind === 'checked' ? message.verdict : here(rows, hashed);
    },
    here,
    answered() {
      return Atomics.load(progress, VERIFY_ANSWERED) > taken;
    },
    close() {
      if (!thread) return;
      thread.removeAllListeners();
      // Not awaited: the walk is over, and a worker still busy with a batch checked here since need not hold it up
      // (nor crash this process with an error nobody listens to any more).
      thread.on('error', () => {});
      thread.unref();
      void thread.terminate();
    },
  };
}
