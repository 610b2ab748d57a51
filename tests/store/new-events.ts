// Valid PipelineDefined / RunStarted / RunSucceeded shapes (events/*.ts) to append straight to a store, as the
// store tests do (no ledger, no decisions).
import { ulid } from 'ulid';
import type { NewEvent } from '../../src/store/event-store.js';

export const metadata = { actor: 'contract@test', host: 'test-host', toolVersion: '0.0.0-test' };
export const T0 = '2026-11-01T00:00:00.000Z';

export function defined(pipeline: string, recordedAt = T0): NewEvent {
  return {
    type: 'PipelineDefined',
    schemaVersion: 1,
    eventId: ulid(),
    stream: pipeline,
    recordedAt,
    metadata,
    data: {
      pipeline,
      schedule: '@daily',
      timetable: 'interval',
      timezone: 'UTC',
      start: '2026-11-01T00:00:00Z',
      end: null,
      catchup: true,
      maxActiveRuns: 1,
      leaseMs: 3_600_000,
    },
  };
}

export function started(pipeline: string, date: string, options: { runId?: string; recordedAt?: string } = {}): NewEvent {
  const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().replace('.000Z', 'Z');
  return {
    type: 'RunStarted',
    schemaVersion: 1,
    eventId: ulid(),
    stream: `${pipeline}/${date}`,
    recordedAt: options.recordedAt ?? T0,
    metadata: { ...metadata, reason: 'contract test' },
    data: {
      pipeline,
      date,
      runId: options.runId ?? ulid(),
      attempt: 1,
      runType: 'scheduled',
      logicalDate: `${date}T00:00:00Z`,
      dataInterval: { start: `${date}T00:00:00Z`, end: next },
      runAfter: next,
      leaseExpiresAt: next,
      force: false,
      offSchedule: false,
      takeoverOf: null,
    },
  };
}

export function succeeded(run: NewEvent, recordedAt = T0): NewEvent {
  if (run.type !== 'RunStarted') throw new TypeError('succeeded() takes a RunStarted');
  const { pipeline, date, runId } = run.data;
  return {
    type: 'RunSucceeded',
    schemaVersion: 1,
    eventId: ulid(),
    stream: run.stream,
    recordedAt,
    metadata,
    // Keys out of order, nesting, non-ASCII and a float: the stored text must still be the hashed text.
    data: { pipeline, date, runId, metrics: { zeta: 1, rows: 1200, revenue: 1234.5, note: 'café ✓', nested: { b: [1.5, null], a: true } }, outputs: ['gold/orders.csv'] },
  };
}
