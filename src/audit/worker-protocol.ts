import type { LedgerErrorCode } from '../errors.js';
import type { ChainHead } from '../store/event-store.js';

/** Event rows per batch the import worker posts. */
export const IMPORT_BATCH_ROWS = 1000;
/** Batches the worker may post before the main thread has inserted them. */
export const IMPORT_BATCHES_IN_FLIGHT = 4;

/**
 * What the import worker posts. `rows`: twelve values per row, in the order position, payload, prevHash,
 * hash, signature, then the stored columns event_id, stream, stream_version, pipeline, run_id, type,
 * recorded_at (flat, since cloning one array is cheaper than cloning an object per row). `end`: every line
 * checked, with the trailer's head. `error`: the first problem, with its `LedgerError` code when it has one.
 */
export type WorkerMessage =
  | { kind: 'rows'; values: unknown[] }
  | { kind: 'end'; head: ChainHead }
  | { kind: 'error'; code: LedgerErrorCode | null; message: string };
