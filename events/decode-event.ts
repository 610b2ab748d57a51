import { EventMetadata } from './event-metadata.js';
import { isEventType, LedgerEvent } from './ledger-event.js';
import type { RecordedEvent } from './recorded-event.js';
import { upcast } from './upcasters.js';

export type DecodeResult = { ok: true; event: RecordedEvent } | { ok: false; reason: string };

const envelopeFields = ['position', 'eventId', 'stream', 'streamVersion', 'recordedAt'] as const;

/**
 * Turns a parsed hashed payload plus its chain link into a typed event:
 * checks the envelope, rejects unknown types and newer versions, upcasts old
 * versions, and (with `validate`) checks `data` against the event's schema.
 * Validation is skipped on the ledger's own hot read path, where every row
 * was validated when it was appended.
 *
 * It takes ownership of `payload` (a freshly parsed object) and completes it
 * in place: copying each event cost as much as parsing it on full rebuilds.
 *
 * @example
 * const r = decodeEvent(JSON.parse(payload), { prevHash, hash }, { validate: true });
 */
export function decodeEvent(
  payload: unknown,
  link: { prevHash: string; hash: string },
  options: { validate: boolean },
): DecodeResult {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { ok: false, reason: 'event is not a JSON object' };
  const raw = payload as Record<string, unknown>;
  const type = raw['type'];
  if (typeof type !== 'string' || !isEventType(type)) return { ok: false, reason: `unknown event type ${JSON.stringify(type)}` };
  const data = raw['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, reason: `${type} has no data object` };
  const up = upcast(type, raw['schemaVersion'] as number, data as Record<string, unknown>);
  if (!up.ok) return up;
  if (options.validate) {
    for (const field of envelopeFields) {
      if (raw[field] === undefined) return { ok: false, reason: `${type} lacks ${field}` };
    }
    if (!Number.isSafeInteger(raw['position']) || (raw['position'] as number) < 1) return { ok: false, reason: `${type} has an invalid position` };
    const body = LedgerEvent.safeParse({ type, schemaVersion: up.schemaVersion, data: up.data });
    if (!body.success) return { ok: false, reason: `${type}: ${firstIssue(body.error.issues)}` };
    const meta = EventMetadata.safeParse(raw['metadata']);
    if (!meta.success) return { ok: false, reason: `${type} metadata: ${firstIssue(meta.error.issues)}` };
  }
  raw['schemaVersion'] = up.schemaVersion;
  raw['data'] = up.data;
  raw['prevHash'] = link.prevHash;
  raw['hash'] = link.hash;
  return { ok: true, event: raw as RecordedEvent };
}

function firstIssue(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
