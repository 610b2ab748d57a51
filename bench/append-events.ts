import type { NewEvent } from '../src/store/event-store.js';

/** The single events every append figure writes (runledger, raw and peer alike), `count` of them from index `from`. */
export function appendEvents(from: number, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, k): NewEvent => {
    const i = from + k;
    return {
      type: 'RunHeartbeat',
      schemaVersion: 1,
      data: { pipeline: 'bench', date: `d${i}`, runId: `R${i}`, leaseExpiresAt: '2026-11-05T01:00:00.000Z' },
      eventId: `A${String(i).padStart(25, '0')}`,
      stream: `bench/d${i}`,
      recordedAt: '2026-11-05T00:00:00.000Z',
      metadata: { actor: 'bench', toolVersion: 'bench' },
    };
  });
}
