import { hash as oneShotHash } from 'node:crypto';
import { canonicalJson } from '../../events/canonical-json.js';
import { chainHash } from '../../events/hash-chain.js';
import type { HashedEvent, RecordedEvent } from '../../events/recorded-event.js';
import type { ChainHead, NewEvent } from './event-store.js';
import type { EventSigner } from './event-signer.js';

/** SHA-256 of the UTF-8 text, as hex. The one-shot `crypto.hash` is about three times faster than a `createHash` object per event. */
export function sha256Hex(text: string): string {
  return oneShotHash('sha256', text, 'hex');
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
  let { position, hash } = head;
  return batch.map(({ event, streamVersion }) => {
    position += 1;
    const hashed: HashedEvent = {
      position,
      eventId: event.eventId,
      stream: event.stream,
      streamVersion,
      type: event.type,
      schemaVersion: event.schemaVersion,
      recordedAt: event.recordedAt,
      data: event.data,
      metadata: event.metadata,
    } as HashedEvent;
    const payload = canonicalJson(hashed);
    const prevHash = hash;
    hash = chainHash(prevHash, payload, sha256Hex);
    const runId = 'runId' in event.data ? event.data.runId : null;
    return { event: { ...hashed, prevHash, hash } as RecordedEvent, payload, pipeline: event.data.pipeline, runId, signature: signer ? signer.sign(hash) : null };
  });
}
