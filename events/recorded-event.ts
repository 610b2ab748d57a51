import type { EventMetadata } from './types/event-metadata.js';
import type { LedgerEvent } from './types/ledger-event.js';

/** Where and when an event sits in the ledger. */
export type EventEnvelope = {
  /** Global, gapless, 1-based; equals commit order. */
  position: number;
  /** ULID; a re-append of the same id is a no-op. */
  eventId: string;
  /** `<pipeline>` for definitions, `<pipeline>/<date key>` for runs. */
  stream: string;
  /** 1-based version within the stream (optimistic concurrency). */
  streamVersion: number;
  recordedAt: string;
  metadata: EventMetadata;
  prevHash: string;
  hash: string;
};

/**
 * An event as read back from a ledger.
 *
 * @example
 * if (event.type === 'RunStarted') console.log(event.position, event.data.runId);
 */
export type RecordedEvent<E extends LedgerEvent = LedgerEvent> = E & EventEnvelope;

/** The fields that are hashed and stored verbatim, in canonical JSON. */
export type HashedEvent = Omit<RecordedEvent, 'prevHash' | 'hash'>;

/** The hashed part of a recorded event, ready for `canonicalJson`. */
export function hashedPart(event: RecordedEvent): HashedEvent {
  const { prevHash: _prev, hash: _hash, ...hashed } = event;
  return hashed as HashedEvent;
}

/** The stream of a run event. */
export function runStream(pipeline: string, date: string): string {
  return `${pipeline}/${date}`;
}
