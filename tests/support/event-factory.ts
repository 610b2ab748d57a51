import type { LedgerEvent } from '../../events/ledger-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { runStream } from '../../events/recorded-event.js';

/**
 * Gives plain domain events the envelope the store would: positions from 1,
 * per-stream versions, ids and a timestamp. For pure projection tests only.
 */
export function recordAll(events: Array<LedgerEvent & { recordedAt?: string }>, start = 1): RecordedEvent[] {
  const versions = new Map<string, number>();
  return events.map((event, i) => {
    const data = event.data as { pipeline: string; date?: string };
    const stream = data.date === undefined ? data.pipeline : runStream(data.pipeline, data.date);
    const streamVersion = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, streamVersion);
    return {
      ...event,
      position: start + i,
      eventId: `E${String(start + i).padStart(25, '0')}`,
      stream,
      streamVersion,
      recordedAt: event.recordedAt ?? '2026-11-05T00:00:00.000Z',
      metadata: { actor: 'test', toolVersion: '0.0.0' },
      prevHash: '',
      hash: '',
    } as RecordedEvent;
  });
}
