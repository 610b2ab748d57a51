import { decodeTrustedEvent, type DecodeResult, type EventCheck } from './decode-trusted-event.js';
import { EventMetadata } from './event-metadata.js';
import { LedgerEvent } from './ledger-event.js';
import { eventCheckWith } from './plain-event-check.js';

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
  return decodeTrustedEvent(payload, link, options.validate ? checkEventSchema : undefined);
}

/**
 * The envelope and the zod schemas of an event (import, verify, `read({ validate: true })`).
 *
 * @example
 * decodeTrustedEvent(payload, link, checkEventSchema)
 */
export const checkEventSchema: EventCheck = eventCheckWith({
  body(type, schemaVersion, data) {
    const body = LedgerEvent.safeParse({ type, schemaVersion, data });
    return body.success ? null : `${type}: ${firstIssue(body.error.issues)}`;
  },
  metadata(type, metadata) {
    const meta = EventMetadata.safeParse(metadata);
    return meta.success ? null : `${type} metadata: ${firstIssue(meta.error.issues)}`;
  },
});

function firstIssue(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
