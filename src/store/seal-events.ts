import { nodeCrypto } from '../node-crypto.js';
import { canonicalJson } from '../../events/canonical-json.js';
import { chainHash } from '../../events/hash-chain.js';
import type { HashedEvent, RecordedEvent } from '../../events/recorded-event.js';
import type { ChainHead, NewEvent } from './event-store.js';
import type { EventSigner } from './event-signer.js';

/** SHA-256 of the UTF-8 text, as hex. The one-shot `crypto.hash` is about three times faster than a `createHash` object per event. */
export function sha256Hex(text: string): string {
  return nodeCrypto().hash('sha256', text, 'hex');
}

/** `signature`: the signer's signature of `event.hash`, stored beside it; null when the ledger is not signing. */
export type SealedEvent = { event: RecordedEvent; payload: string; pipeline: string; runId: string | null; signature: string | null };

/**
 * Gives new events their positions and stream versions and links them onto
 * the chain. Called by adapters inside their append transaction, after they
 * read the head under the append lock, so the chain stays linear. With a
 * `signer`, each new chain hash is signed here, before the insert.
 */
export function sealEvents(head: ChainHead, batch: Array<{ event: NewEvent; streamVersion: number }>, signer?: EventSigner | null): SealedEvent[] {
  const sealed: SealedEvent[] = [];
  let { position, hash } = head;
  for (const { event, streamVersion } of batch) {
    const one = sealEvent(position + 1, hash, event, streamVersion, signer ?? null);
    sealed.push(one);
    position = one.event.position;
    hash = one.event.hash;
  }
  return sealed;
}

/**
 * `sealEvents` for one event at `position`, linked onto `prevHash`: what an
 * adapter calls per event when it has no batch to build (a one-event append).
 *
 * @example
 * const { event, payload } = sealEvent(head.position + 1, head.hash, newEvent, 1, null);
 */
export function sealEvent(position: number, prevHash: string, event: NewEvent, streamVersion: number, signer: EventSigner | null): SealedEvent {
  const { eventId, stream, type, schemaVersion, recordedAt, data, metadata } = event;
  const payload = canonicalJson({ position, eventId, stream, streamVersion, type, schemaVersion, recordedAt, data, metadata } as HashedEvent);
  const hash = chainHash(prevHash, payload, sha256Hex);
  // The recorded event is the hashed fields, in the same order, then the links.
  const recorded = { position, eventId, stream, streamVersion, type, schemaVersion, recordedAt, data, metadata, prevHash, hash } as RecordedEvent;
  return { event: recorded, payload, pipeline: data.pipeline, runId: 'runId' in data ? data.runId : null, signature: signer ? signer.sign(hash) : null };
}
