import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { compiledWorker } from '../../audit/compiled-worker.js';
import { LedgerError, type LedgerErrorCode } from '../../errors.js';
import type { PipelineValues } from './pipeline-rows.js';

/** What a rebuild worker is started with: the ledger file, the head it folds up to, its pipelines, and the counter of rows it posted. */
export type RebuildWorkerData = { path: string; head: number; pipelines: string[]; signal: Int32Array };

/** Below this many events a rebuild folds in its own thread: starting a thread and loading its modules would cost more than it wins. */
const WORKERS_FROM_EVENTS = 50_000;
/** How long a rebuild waits for one pipeline's rows before it takes its worker for stopped. */
const STALL_MS = 10 * 60_000;

/** The pipelines' rows, one pipeline at a time in the order asked, folded by worker threads; `close` stops them. */
export type FoldedInWorkers = { next(): PipelineValues; close(): void };

/**
 * Folds the pipelines of a big ledger in two worker threads while the caller writes the rows (the caller's
 * thread then only inserts); null when it should fold them itself: a small ledger, one core, or the
 * TypeScript sources (the tests), where a worker cannot load its module. Each worker reads the events from
 * its own read-only connection, so the file must be in WAL mode and the caller's transaction must hold the
 * write lock and not have written events (a rebuild's does): the workers then read exactly the events it sees.
 * The caller waits for rows without returning to the event loop (its transaction is synchronous), so each
 * worker counts what it posted in a shared counter and the caller sleeps on it (`Atomics.wait`).
 *
 * @example
 * const workers = foldInWorkers(path, head, pipelines);
 * for (const pipeline of pipelines) insert(workers.next());
 * workers.close();
 */
export function foldInWorkers(path: string, head: number, pipelines: readonly string[]): FoldedInWorkers | null {
  const url = compiledWorker('../store/sqlite/rebuild-worker.js');
  const threads = Math.min(2, availableParallelism(), pipelines.length);
  if (url === null || head < WORKERS_FROM_EVENTS || threads < 2) return null;
  const workers: Array<{ worker: Worker; port: MessagePort; signal: Int32Array; taken: number }> = [];
  for (let w = 0; w < threads; w++) {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const data: RebuildWorkerData & { port: MessagePort } = { path, head, pipelines: pipelines.filter((_, i) => i % threads === w), signal, port: port2 };
    const worker = new Worker(url, { workerData: data, transferList: [port2] });
    worker.unref();
    workers.push({ worker, port: port1, signal, taken: 0 });
  }
  let asked = 0;
  return {
    next() {
      const w = workers[asked % threads] as (typeof workers)[number];
      asked += 1;
      const since = Date.now();
      while (Atomics.load(w.signal, 0) === w.taken) {
        if (Atomics.wait(w.signal, 0, w.taken, 1000) === 'timed-out' && Date.now() - since > STALL_MS) {
          throw new LedgerError('store.timeout', `the rebuild's worker thread posted nothing for ${STALL_MS / 60_000} minutes; run \`runledger rebuild\` again`);
        }
      }
      w.taken += 1;
      const message = receiveMessageOnPort(w.port)?.message as PipelineValues | { error: string; code: LedgerErrorCode | null } | undefined;
      if (message === undefined) throw new Error("rebuild: a worker counted rows it did not post");
      if ('error' in message) throw message.code === null ? new Error(message.error) : new LedgerError(message.code, message.error);
      return message;
    },
    close() {
      for (const { worker, port } of workers) {
        port.close();
        void worker.terminate();
      }
    },
  };
}
