import type { LedgerErrorCode } from '../errors.js';
import type { ChainHead } from '../store/event-store.js';
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
 * VERIFY_READY once loaded, so `verify` sees it without waiting for a turn of its event loop (a SQLite
 * store's batches are all at hand, and a message would wait until the walk is over).
 */
export type VerifyWorkerData = { progress: Int32Array };
export const VERIFY_READY = 0;


/** What the verify worker posts: one `checked` per request, in order, with the batch's first problem; or an `error`. */
export type VerifyWorkerMessage = { kind: 'checked'; verdict: PayloadVerdict } | { kind: 'error'; message: string };
