/**
 * Rules for a producer's own instants (an OpenLineage `eventTime`, `--at`): how far from the ledger's clock
 * one may be, and how a new OpenLineage attempt is ordered against a date's current one. Pure: the ledger's
 * `now` comes in as data.
 */

/** How far ahead of the ledger's clock a producer's time may be by default: clocks of two hosts drift apart by that much. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** How far behind the ledger's clock a producer's time may be by default: ten years (no run of a slot ran before that). */
export const DEFAULT_MAX_EVENT_AGE_MS = 3650 * 86_400_000;

/** The window a producer's time must fall in, around the ledger's clock. */
export type ProducerTimeWindow = { maxClockSkewMs: number; maxEventAgeMs: number };

export const DEFAULT_PRODUCER_TIME_WINDOW: ProducerTimeWindow = { maxClockSkewMs: DEFAULT_MAX_CLOCK_SKEW_MS, maxEventAgeMs: DEFAULT_MAX_EVENT_AGE_MS };

/** Why a producer's time is out of the window: too far ahead (a wrong clock would hold the date for good) or too far behind. */
export type ProducerTimeProblem = { kind: 'future' | 'past'; byMs: number; limitMs: number };

/**
 * Whether `ms` lies in the window around `nowMs`: null when it does, else which side it falls off and by how much.
 * A time in the future would rank above every real attempt of its date, so each later START would be refused as older.
 *
 * @example
 * producerTimeProblem(Date.parse('2999-01-01T00:00:00Z'), Date.parse('2026-11-05T00:00:00Z'), DEFAULT_PRODUCER_TIME_WINDOW) // { kind: 'future', … }
 */
export function producerTimeProblem(ms: number, nowMs: number, window: ProducerTimeWindow): ProducerTimeProblem | null {
  if (ms > nowMs + window.maxClockSkewMs) return { kind: 'future', byMs: ms - nowMs, limitMs: window.maxClockSkewMs };
  if (ms < nowMs - window.maxEventAgeMs) return { kind: 'past', byMs: nowMs - ms, limitMs: window.maxEventAgeMs };
  return null;
}

/**
 * Whether an OpenLineage START at `eventMs` is older than the date's current attempt, and so refused as a late
 * delivery of an attempt that was already superseded. A cleared date has no current attempt any more: the clear
 * releases it, whatever instant its runs carried, and the next START is a new attempt.
 *
 * @example
 * olderThanCurrentAttempt({ status: 'cleared' }, '2999-01-01T00:00:00Z', Date.parse('2026-11-05T00:00:00Z')) // false
 */
export function olderThanCurrentAttempt(current: { status: string } | undefined, currentTime: string | null, eventMs: number): boolean {
  if (current === undefined || current.status === 'cleared' || currentTime === null) return false;
  return eventMs < Date.parse(currentTime);
}
