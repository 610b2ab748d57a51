import { chainHash, GENESIS_HASH } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { RawEvent, StoredColumns } from './event-store.js';
import type { EventSigner } from './event-signer.js';
import { sha256Hex, type SealedEvent } from './seal-events.js';

/**
 * Turns stored rows from elsewhere (an export) back into the sealed events an
 * adapter inserts, checking that they form one whole chain from position 1:
 * gapless positions, each link onto the previous hash, each hash over the
 * exact payload text, each payload a valid event. Adapters call it inside
 * `importSealed` as a last guard. `import` has already checked the same
 * things line by line with friendlier messages, and hands on each row with
 * the event it decoded (`checked`), or from a worker thread with only the columns it is stored with
 * (`checkedColumns`, taken by `nextColumns`): such rows get only the link checks. The chain may arrive in
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
  #decode: DecodeEvent | null = null;

  constructor(signer?: EventSigner | null) {
    this.#signer = signer ?? null;
  }

  async next(rows: RawEvent[]): Promise<SealedEvent[]> {
    await this.#decoderFor(rows, false);
    return rows.map((row) => {
      const event = this.#linkEvent(row);
      const runId = 'runId' in event.data ? event.data.runId : null;
      return { event, payload: row.payload, pipeline: event.data.pipeline, runId, signature: this.#signature(row) };
    });
  }

  /**
   * The same checks, for a store that needs only the columns it keeps beside each payload: a row whose
   * `checkedColumns` a checker in another thread vouches for is linked without being decoded again.
   */
  async nextColumns(rows: RawEvent[]): Promise<Array<{ row: RawEvent; columns: StoredColumns; signature: string | null }>> {
    await this.#decoderFor(rows, true);
    return rows.map((row) => {
      let columns = row.checkedColumns;
      if (columns !== undefined && row.checked === undefined) {
        // The checker took the row's position from its payload, so only the links are left to check.
        this.#checkLinks(row, failAt(row));
        this.#advance(row);
      } else {
        const event = this.#linkEvent(row);
        columns = {
          event_id: event.eventId,
          stream: event.stream,
          stream_version: event.streamVersion,
          pipeline: event.data.pipeline,
          run_id: 'runId' in event.data ? event.data.runId : null,
          type: event.type,
          recorded_at: event.recordedAt,
        };
      }
      return { row, columns, signature: this.#signature(row) };
    });
  }

  /** The row's event, decoded unless a checker did it, after its links and before anything else is checked. */
  #linkEvent(row: RawEvent): RecordedEvent {
    const fail = failAt(row);
    this.#checkLinks(row, fail);
    const event = row.checked ?? decodeChecked(row, this.#decode as DecodeEvent, fail);
    if (event.position !== row.position) fail(`its payload says position ${event.position}`);
    this.#advance(row);
    return event;
  }

  /**
   * The schema checks load zod, which rows checked already (all of an import's) never need: it is loaded
   * only for a batch with a row nobody checked.
   */
  async #decoderFor(rows: RawEvent[], columnsSuffice: boolean): Promise<void> {
    if (this.#decode !== null) return;
    if (rows.some((row) => row.checked === undefined && !(columnsSuffice && row.checkedColumns !== undefined))) this.#decode = (await import('../../events/decode-event.js')).decodeEvent;
  }

  #checkLinks(row: RawEvent, fail: (why: string) => never): void {
    if (row.position !== this.#position + 1) fail(`expected position ${this.#position + 1}`);
    if (row.prevHash !== this.#prevHash) fail('its prevHash is not the hash of the event before it');
  }

  #advance(row: RawEvent): void {
    this.#position = row.position;
    this.#prevHash = row.hash;
  }

  #signature(row: RawEvent): string | null {
    return row.signature ?? (this.#signer ? this.#signer.sign(row.hash) : null);
  }
}

function failAt(row: RawEvent): (why: string) => never {
  return (why) => {
    throw new LedgerError('input.brokenChain', `cannot import event at position ${row.position}: ${why}; nothing was imported`);
  };
}

/** Full checks of a row nobody checked before: hash over the exact payload, JSON, a valid event. */
type DecodeEvent = typeof import('../../events/decode-event.js').decodeEvent;

function decodeChecked(row: RawEvent, decodeEvent: DecodeEvent, fail: (why: string) => never): RecordedEvent {
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
