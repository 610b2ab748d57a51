import type { EventMetadata } from '../../events/types/event-metadata.js';
import type { LedgerEvent } from '../../events/types/ledger-event.js';
import { runStream, type RecordedEvent } from '../../events/recorded-event.js';
import { GENESIS_HASH } from '../../events/hash-chain.js';
import type { NewEvent, RawEvent } from '../store/event-store.js';
import { sealEvents, type SealedEvent } from '../store/seal-events.js';

/** A domain event as a test writes it; the envelope is filled in unless given. */
export type GivenEvent = LedgerEvent & { recordedAt?: string; eventId?: string; metadata?: EventMetadata };

/** The envelope defaults of `recordEvents`. */
export type RecordOptions = { recordedAt?: string; actor?: string };

const DEFAULT_INSTANT = '2026-01-01T00:00:00.000Z';

/**
 * Gives plain domain events the envelope a store would: positions from 1,
 * stream versions, deterministic event ids and a real hash chain, so tests
 * can fold them, seal them into fixtures, or compare them with a ledger's.
 *
 * @example
 * const events = recordEvents([{ type: 'PipelineDefined', schemaVersion: 1, data: definition }], { recordedAt: '2026-11-04T18:00:00Z' });
 */
export function recordEvents(events: GivenEvent[], options: RecordOptions = {}): RecordedEvent[] {
  return sealGiven(events, options).map((s) => s.event);
}

/** The stored rows (exact payload text and chain link) of `recordEvents`, e.g. to load an in-memory store. */
export function recordRows(events: GivenEvent[], options: RecordOptions = {}): RawEvent[] {
  return sealGiven(events, options).map((s) => ({ position: s.event.position, payload: s.payload, prevHash: s.event.prevHash, hash: s.event.hash }));
}

function sealGiven(events: GivenEvent[], options: RecordOptions): SealedEvent[] {
  const versions = new Map<string, number>();
  const batch = events.map((given, i): { event: NewEvent; streamVersion: number } => {
    const { recordedAt, eventId, metadata, ...event } = given;
    const stream = streamOf(event);
    const streamVersion = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, streamVersion);
    return {
      event: {
        ...(event as LedgerEvent),
        eventId: eventId ?? `G${String(i + 1).padStart(25, '0')}`,
        stream,
        recordedAt: new Date(recordedAt ?? options.recordedAt ?? DEFAULT_INSTANT).toISOString(),
        metadata: metadata ?? { actor: options.actor ?? 'test', toolVersion: '0.0.0-test' },
      },
      streamVersion,
    };
  });
  return sealEvents({ position: 0, hash: GENESIS_HASH }, batch);
}

/** `<pipeline>` for definitions, `<pipeline>/<date>` for run events. */
export function streamOf(event: LedgerEvent): string {
  return 'date' in event.data ? runStream(event.data.pipeline, event.data.date) : event.data.pipeline;
}
