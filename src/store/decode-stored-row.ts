import { decodeEvent } from '../../events/decode-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { RawEvent, StoredColumns } from './event-store.js';

/**
 * Turns a stored row back into a typed event, for every adapter. A row that
 * does not decode is an integrity problem of the ledger, not bad input.
 *
 * @example
 * decodeStoredRow({ position: 1, payload, prevHash, hash })
 */
export function decodeStoredRow(row: { position: number; payload: string; prevHash: string; hash: string }, validate = false): RecordedEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    throw new LedgerError('integrity.badPayload', `event at position ${row.position} is not valid JSON; run \`runledger verify\``);
  }
  const decoded = decodeEvent(payload, { prevHash: row.prevHash, hash: row.hash }, { validate });
  if (!decoded.ok) throw new LedgerError('integrity.badEvent', `event at position ${row.position}: ${decoded.reason}`);
  return decoded.event;
}

/** A stored row as both adapters select it; PostgreSQL returns `bigint` positions as text. */
export type StoredRow = { position: number | string; payload: string; prev_hash: string; hash: string; signature?: string | null };

/**
 * A row read for `readRaw`: the exact stored text and chain link, plus the
 * indexed columns `verify` checks against the payload.
 *
 * @example
 * rows.map(rawEventOf)
 */
export function rawEventOf(row: StoredRow): RawEvent {
  const { position, payload, prev_hash, hash, signature, ...columns } = row as StoredRow & StoredColumns;
  return { position: Number(position), payload, prevHash: prev_hash, hash, signature: signature ?? null, columns };
}
