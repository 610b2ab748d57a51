import { nodeCrypto } from '../../node-crypto.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { LedgerError } from '../../errors.js';

/**
 * What `notify --on` can tell about: a final failure, a run whose lease ran out, a date past its SLA, a date done
 * again after it failed, a retry nobody started by its time plus the pipeline's lease.
 */
export const NOTIFY_KINDS = ['failed', 'stalled', 'late', 'recovered', 'overdue'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/**
 * One notification: the JSON document a webhook receives and a command finds on its stdin. `idempotencyKey` is
 * derived from what it reports (the event's id, or the pipeline, date and deadline), never from when it was sent,
 * so a delivery repeated after a crash carries the same key and a receiver can drop the copy.
 */
export type Notification = {
  kind: NotifyKind;
  idempotencyKey: string;
  pipeline: string;
  date: string;
  /** The run it is about (the failed, stalled or recovering run; the mark's id for a recovery by hand), or null. */
  runId: string | null;
  /** When it happened: the event's `recordedAt`, or the deadline that passed (late: run-after plus SLA; stalled: the lease's end). */
  at: string;
  /** The event it comes from, or null for one the clock found (late, stalled). */
  position: number | null;
  /** One line for a person: `etl_orders 2026-11-03 failed: exited with code 1`. */
  summary: string;
  /** The failure's error and code (failed; stalled: the lease), the SLA (late), how it recovered (recovered). */
  error: string | null;
  code: string | null;
  attempt: number | null;
  /** Late: the slot's run-after and the SLA in ms; null otherwise. */
  runAfter: string | null;
  slaMs: number | null;
  /** The actor of the event (null for what the clock found). */
  actor: string | null;
};

/**
 * The kinds named by `--on`, checked: `failed,late` → ['failed', 'late'].
 *
 * @example
 * parseNotifyKinds('failed,stalled') // ['failed', 'stalled']
 */
export function parseNotifyKinds(text: string): NotifyKind[] {
  const kinds = text.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !(NOTIFY_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || unknown.length > 0) {
    throw new LedgerError('input.invalidNotify', `--on ${unknown.length > 0 ? `'${unknown.join(',')}' is not` : 'needs'} one or more of ${NOTIFY_KINDS.join(', ')}, comma-separated, e.g. --on failed,stalled,overdue,late`);
  }
  return [...new Set(kinds)] as NotifyKind[];
}

/**
 * A key that names what is reported, the same on every delivery of it: sha256 of its parts, as hex, cut to 32.
 *
 * @example
 * idempotencyKey('failed', event.eventId) // 'runledger-failed-3f1c…'
 */
export function idempotencyKey(kind: NotifyKind, ...parts: string[]): string {
  return `runledger-${kind}-${nodeCrypto().createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

/**
 * The notification of a final failure: a `RunFailed` that no `RetryScheduled` follows (a retry is no failure yet).
 *
 * @example
 * failedNotification(event, null)
 */
export function failedNotification(event: RecordedEvent<Extract<RecordedEvent, { type: 'RunFailed' }>>, attempt: number | null): Notification {
  const d = event.data;
  return {
    kind: 'failed',
    idempotencyKey: idempotencyKey('failed', event.eventId),
    pipeline: d.pipeline,
    date: d.date,
    runId: d.runId,
    at: event.recordedAt,
    position: event.position,
    summary: `${d.pipeline} ${d.date} failed: ${firstLine(d.error)}`,
    error: d.error,
    code: d.code,
    attempt,
    runAfter: null,
    slaMs: null,
    actor: event.metadata.actor,
  };
}

/** A date done again after a final failure: a run's success, or a mark. */
export function recoveredNotification(event: RecordedEvent, how: string, runId: string, attempt: number | null): Notification {
  const d = event.data as { pipeline: string; date: string };
  return {
    kind: 'recovered',
    idempotencyKey: idempotencyKey('recovered', event.eventId),
    pipeline: d.pipeline,
    date: d.date,
    runId,
    at: event.recordedAt,
    position: event.position,
    summary: `${d.pipeline} ${d.date} recovered: ${how}`,
    error: null,
    code: null,
    attempt,
    runAfter: null,
    slaMs: null,
    actor: event.metadata.actor,
  };
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
}
