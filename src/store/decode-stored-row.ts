import { decodeEvent } from '../../events/decode-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';

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
