import { decodeEvent } from '../../events/decode-event.js';
import { chainHash, GENESIS_HASH } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { RawEvent } from './event-store.js';
import type { EventSigner } from './event-signer.js';
import { sha256Hex, type SealedEvent } from './seal-events.js';

/**
 * Turns stored rows from elsewhere (an export) back into the sealed events an
 * adapter inserts, checking that they form one whole chain from position 1:
 * gapless positions, each link onto the previous hash, each hash over the
 * exact payload text, each payload a valid event. Adapters call it inside
 * `importSealed` as a last guard. `import` has already checked the same
 * things line by line with friendlier messages, and hands on each row with
 * the event it decoded (`checked`): such rows get only the link checks. The chain may arrive in
 * batches (a streamed import): each call continues from the last row of the
 * call before, and throws `input.brokenChain` on the first bad row.
 * Signatures the rows carry are kept as they are; with a `signer`, a row
 * that carries none is signed now (an unsigned export imported into a
 * signing ledger).
 *
 * @example
 * const unsealer = new ChainUnsealer();
 * for await (const rows of batches) insert(unsealer.next(rows));
 */
export class ChainUnsealer {
  #position = 0;
  #prevHash = GENESIS_HASH;
  readonly #signer: EventSigner | null;

  constructor(signer?: EventSigner | null) {
    this.#signer = signer ?? null;
  }

  next(rows: RawEvent[]): SealedEvent[] {
    return rows.map((row) => {
      const fail = (why: string): never => {
        throw new LedgerError('input.brokenChain', `cannot import event at position ${row.position}: ${why}; nothing was imported`);
      };
      if (row.position !== this.#position + 1) fail(`expected position ${this.#position + 1}`);
      if (row.prevHash !== this.#prevHash) fail('its prevHash is not the hash of the event before it');
      const event = row.checked ?? decodeChecked(row, fail);
      if (event.position !== row.position) fail(`its payload says position ${event.position}`);
      this.#position = row.position;
      this.#prevHash = row.hash;
      const runId = 'runId' in event.data ? event.data.runId : null;
      const signature = row.signature ?? (this.#signer ? this.#signer.sign(row.hash) : null);
      return { event, payload: row.payload, pipeline: event.data.pipeline, runId, signature };
    });
  }
}

/** Full checks of a row nobody checked before: hash over the exact payload, JSON, a valid event. */
function decodeChecked(row: RawEvent, fail: (why: string) => never): RecordedEvent {
  if (chainHash(row.prevHash, row.payload, sha256Hex) !== row.hash) fail('its hash does not match its payload');
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return fail('its payload is not JSON');
  }
  const decoded = decodeEvent(payload, { prevHash: row.prevHash, hash: row.hash }, { validate: true });
  if (!decoded.ok) return fail(decoded.reason);
  return decoded.event;
}

/** Rows given at once or in batches, as batches. */
export async function* batchesOf(rows: RawEvent[] | AsyncIterable<RawEvent[]>): AsyncIterable<RawEvent[]> {
  if (Array.isArray(rows)) yield rows;
  else yield* rows;
}
