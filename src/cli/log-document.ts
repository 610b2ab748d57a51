import type { RecordedEvent } from '../../events/recorded-event.js';

/**
 * The `log --json` document, shared by the CLI and `GET /api/log` so both
 * answer with the same fields.
 *
 * @example
 * logDocument((await ledger.log({ pipeline: 'etl_orders' })).events).events[0]?.position
 */
export function logDocument(events: readonly RecordedEvent[]) {
  return {
    events: events.map((e) => ({ position: e.position, type: e.type, eventId: e.eventId, recordedAt: e.recordedAt, stream: e.stream, data: e.data, metadata: e.metadata, hash: e.hash })),
  };
}
