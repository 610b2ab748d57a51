import { isEventType } from './event-types.js';
import type { EventType } from './ledger-event.js';
import type { RecordedEvent } from './recorded-event.js';
import { upcast } from './upcasters.js';

export type DecodeResult = { ok: true; event: RecordedEvent } | { ok: false; reason: string };

/**
 * A further check of an event after its type is known and its data upcast:
 * the reason it fails, or null. `decodeEvent` passes the schema check.
 */
export type EventCheck = (raw: Record<string, unknown>, type: EventType, up: { schemaVersion: number; data: Record<string, unknown> }) => string | null;

/**
 * Turns a parsed hashed payload plus its chain link into a typed event:
 * rejects unknown types and newer versions, upcasts old versions, runs `check`
 * when one is given. Without a check it trusts the event's fields, as the
 * ledger's own read path does for every row it validated when it appended it;
 * this module does not load zod, so a query does not either.
 *
 * It takes ownership of `payload` (a freshly parsed object) and completes it
 * in place: copying each event cost as much as parsing it on full rebuilds.
 *
 * @example
 * const r = decodeTrustedEvent(JSON.parse(payload), { prevHash, hash });
 */
export function decodeTrustedEvent(payload: unknown, link: { prevHash: string; hash: string }, check?: EventCheck): DecodeResult {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { ok: false, reason: 'event is not a JSON object' };
  const raw = payload as Record<string, unknown>;
  const type = raw['type'];
  if (typeof type !== 'string' || !isEventType(type)) return { ok: false, reason: `unknown event type ${JSON.stringify(type)}` };
  const data = raw['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, reason: `${type} has no data object` };
  const up = upcast(type, raw['schemaVersion'] as number, data as Record<string, unknown>);
  if (!up.ok) return up;
  if (check !== undefined) {
    const reason = check(raw, type, up);
    if (reason !== null) return { ok: false, reason };
  }
  raw['schemaVersion'] = up.schemaVersion;
  raw['data'] = up.data;
  raw['prevHash'] = link.prevHash;
  raw['hash'] = link.hash;
  return { ok: true, event: raw as RecordedEvent };
}
