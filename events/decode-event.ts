import { decodeTrustedEvent, type DecodeResult, type EventCheck } from './decode-trusted-event.js';
import { EventMetadata } from './event-metadata.js';
import { fastEventBodyOk, fastMetadataOk } from './fast-event-check.js';
import { LedgerEvent } from './ledger-event.js';
import { jsonDepth, MAX_JSON_DEPTH } from './limits.js';

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
  return decodeTrustedEvent(payload, link, options.validate ? checkEventSchema : undefined);
}

/**
 * The envelope and the zod schemas of an event (import, verify, `read({ validate: true })`).
 *
 * @example
 * decodeTrustedEvent(payload, link, checkEventSchema)
 */
export const checkEventSchema: EventCheck = (raw, type, up) => {
  for (const field of envelopeFields) {
    if (raw[field] === undefined) return `${type} lacks ${field}`;
  }
  if (!Number.isSafeInteger(raw['position']) || (raw['position'] as number) < 1) return `${type} has an invalid position`;
  // The plain checks settle the common case; zod decides (and words the reason) whenever they do not.
  if (!fastEventBodyOk(type, up.schemaVersion, up.data)) {
    const body = LedgerEvent.safeParse({ type, schemaVersion: up.schemaVersion, data: up.data });
    if (!body.success) return `${type}: ${firstIssue(body.error.issues)}`;
  }
  if (!fastMetadataOk(raw['metadata'])) {
    const meta = EventMetadata.safeParse(raw['metadata']);
    if (!meta.success) return `${type} metadata: ${firstIssue(meta.error.issues)}`;
  }
  return freeJsonProblem(type, up.data);
};

/**
 * The free-form JSON an event carries (a success's metrics, a redefinition's old and new values) nests
 * at most as deep as runledger lets anyone write it. Deeper, it was not written by runledger, and reading
 * it back would overflow the stack of every later `runs --json` (metrics 20,000 deep did).
 */
function freeJsonProblem(type: string, data: unknown): string | null {
  const d = data as Record<string, unknown>;
  if (type === 'RunSucceeded' && jsonDepth(d['metrics'], MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return `${type}: data.metrics nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (type === 'PipelineRedefined' && Array.isArray(d['changes'])) {
    for (const change of d['changes'] as Array<Record<string, unknown>>) {
      if (jsonDepth(change, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return `${type}: data.changes nests deeper than ${MAX_JSON_DEPTH} levels`;
    }
  }
  return null;
}

function firstIssue(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
