import { decodeTrustedEvent, type EventCheck } from '../../events/decode-trusted-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { RawEvent, StoredColumns } from './event-store.js';

/**
 * Turns a stored row back into a typed event, for every adapter. A row that
 * does not decode is an integrity problem of the ledger, not bad input.
 * `check` is `readCheck(filter.validate)`: none on the hot path.
 *
 * @example
 * decodeStoredRow({ position: 1, payload, prevHash, hash })
 */
export function decodeStoredRow(row: { position: number; payload: string; prevHash: string; hash: string }, check?: EventCheck): RecordedEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    throw new LedgerError('integrity.badPayload', `event at position ${row.position} is not valid JSON; run \`runledger verify\``);
  }
  const decoded = decodeTrustedEvent(payload, { prevHash: row.prevHash, hash: row.hash }, check);
  if (!decoded.ok) throw new LedgerError('integrity.badEvent', `event at position ${row.position}: ${decoded.reason}`);
  return decoded.event;
}

/**
 * The schema check a read asks for with `validate` (import, verify), loaded only then: the rows the ledger wrote
 * itself were checked when they were appended, and their schemas (zod) cost a query most of its start-up.
 *
 * @example
 * const check = await readCheck(filter.validate);
 */
export async function readCheck(validate: boolean | undefined): Promise<EventCheck | undefined> {
  return validate === true ? (await import('../../events/decode-event.js')).checkEventSchema : undefined;
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
