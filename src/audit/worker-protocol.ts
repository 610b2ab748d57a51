import type { LedgerErrorCode } from '../errors.js';
import type { ChainHead, StoredColumns } from '../store/event-store.js';
import type { PayloadVerdict } from './check-payload.js';

/** Event rows per batch the import worker posts. */
export const IMPORT_BATCH_ROWS = 1000;
/** Batches the worker may post before the main thread has inserted them. */
export const IMPORT_BATCHES_IN_FLIGHT = 4;

/**
 * What the import worker posts. `rows`: a batch of checked rows in the flat form of `flatRows` (the stored
 * columns being the ones it checked). `end`: every line checked, with the trailer's head. `error`: the first
 * problem, with its `LedgerError` code when it has one.
 */
export type WorkerMessage =
  | { kind: 'rows'; values: unknown[] }
  | { kind: 'end'; head: ChainHead }
  | { kind: 'error'; code: LedgerErrorCode | null; message: string };

/**
 * The verify worker's `workerData`: `progress`, an Int32Array over shared memory, where it stores 1 at
 * VERIFY_READY once loaded and counts at VERIFY_ANSWERED the batches it has answered for, so `verify` sees
 * both without waiting for a turn of its event loop (a SQLite store's batches are all at hand, and a
 * message would wait until the walk is over).
 */
export type VerifyWorkerData = { progress: Int32Array };
export const VERIFY_READY = 0;
export const VERIFY_ANSWERED = 1;


/**
 * What the verify worker posts, one per request, in order: `checked` with the batch's first problem; `unsure`
 * when an event of the batch needs zod to be judged (the worker does not load it, and `verify` checks that
 * batch itself); or an `error`.
 */
export type VerifyWorkerMessage = { kind: 'checked'; verdict: PayloadVerdict } | { kind: 'unsure' } | { kind: 'error'; message: string };

/** The seven stored columns a worker posts flat, in `StoredColumns` order, from `values[at]` on. */
export function storedColumnsAt(values: readonly unknown[], at: number): StoredColumns {
  return {
    event_id: values[at] as string,
    stream: values[at + 1] as string,
    stream_version: values[at + 2] as number,
    pipeline: values[at + 3] as string,
    run_id: values[at + 4] as string | null,
    type: values[at + 5] as string,
    recorded_at: values[at + 6] as string,
  };
}
