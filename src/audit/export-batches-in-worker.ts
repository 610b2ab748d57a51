import { Worker } from 'node:worker_threads';
import { LedgerError } from '../errors.js';
import type { ChainHead, RawEvent } from '../store/event-store.js';
import { workerInbox } from './worker-inbox.js';
import { storedColumnsAt, type WorkerMessage } from './worker-protocol.js';

/**
 * The checked event rows of an export file, read and checked in a worker
 * thread (`import-worker.ts`) while the caller inserts the batch before: the
 * same rows, batches and errors as `checkedExportBatches`, each row carrying
 * the columns it is stored with (`checkedColumns`) instead of its decoded
 * event. The first bad line throws its `input.badExport` here, after the rows
 * before it; `head()` is the trailer's head once the batches are done.
 *
 * @example
 * const file = exportBatchesInWorker('ledger.jsonl', workerUrl);
 * await store.importSealed(file.batches);
 * file.head();
 */
export function exportBatchesInWorker(path: string, workerUrl: URL): { batches: AsyncGenerator<RawEvent[]>; head(): ChainHead } {
  let head: ChainHead | null = null;
  async function* batches(): AsyncGenerator<RawEvent[]> {
    const worker = new Worker(workerUrl, { workerData: { path } });
    const inbox = workerInbox<WorkerMessage>(worker, (code) => `the import worker stopped (exit code ${code}) before it checked the whole file; run the import again`);
    try {
      for (;;) {
        const message = await inbox.next();
        if (message.kind === 'error') throw message.code === null ? new Error(message.message) : new LedgerError(message.code, message.message);
        if (message.kind === 'end') {
          head = message.head;
          return;
        }
        yield rowsOf(message.values);
        // Inserted (the caller asked for the next batch): the worker may read one more ahead.
        worker.postMessage(1);
      }
    } finally {
      worker.removeAllListeners();
      await worker.terminate();
    }
  }
  return {
    batches: batches(),
    head() {
      if (!head) throw new Error('exportBatchesInWorker: head() before the batches were read to their end');
      return head;
    },
  };
}

function rowsOf(v: unknown[]): RawEvent[] {
  const rows: RawEvent[] = new Array(v.length / 12);
  for (let i = 0, r = 0; i < v.length; i += 12, r++) {
    rows[r] = {
      position: v[i] as number,
      payload: v[i + 1] as string,
      prevHash: v[i + 2] as string,
      hash: v[i + 3] as string,
      signature: v[i + 4] as string | null,
      checkedColumns: storedColumnsAt(v, i + 5),
    };
  }
  return rows;
}
