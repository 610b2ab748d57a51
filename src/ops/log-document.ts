import type { RecordedEvent } from '../../events/recorded-event.js';

/**
 * One event as `log --json`, `log --jsonl` and `GET /api/log` show it, so
 * every surface answers with the same fields.
 *
 * @example
 * logEntry(event).position
 */
export function logEntry(e: RecordedEvent) {
  return { position: e.position, type: e.type, eventId: e.eventId, recordedAt: e.recordedAt, stream: e.stream, data: e.data, metadata: e.metadata, hash: e.hash };
}

/**
 * The `log --json` document of a list of events.
 *
 * @example
 * logDocument((await ledger.log({ pipeline: 'etl_orders' })).events).events[0]?.position
 */
export function logDocument(events: readonly RecordedEvent[]) {
  return { events: events.map(logEntry) };
}
