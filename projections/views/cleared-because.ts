import type { ClearedBecause } from '../date-state.js';
import { pausedText } from '../pipeline-control.js';
import type { BlockedBy } from '../upstream-slots.js';

/**
 * The sentence `state` and the web view show for a date a cascade cleared.
 *
 * @example
 * clearedBecause({ eventId: 'E1', pipeline: 'orders_raw', date: '2026-11-03', actor: 'alice', reason: 'bad file' })
 * // 'cleared because orders_raw 2026-11-03 was cleared by alice: bad file'
 */
export function clearedBecause(cause: ClearedBecause): string {
  return `cleared because ${cause.pipeline} ${cause.date} was cleared by ${cause.actor}${cause.reason ? `: ${cause.reason}` : ''}`;
}

/**
 * The words for a blocked date: what it waits for.
 *
 * @example
 * waitsForText({ pipeline: 'orders_raw', date: '2026-11-03T05:00:00+07:00', status: 'failed' }) // 'waits for orders_raw 2026-11-03T05:00:00+07:00 (failed)'
 */
export function waitsForText(by: BlockedBy): string {
  return `waits for ${by.pipeline} ${by.date} (${by.status}${by.paused ? `; ${by.pipeline} is ${pausedText(by.paused)}` : ''})`;
}
