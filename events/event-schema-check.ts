import type { EventCheck } from './decode-trusted-event.js';
import { fastEventBodyOk, fastMetadataOk } from './fast-event-check.js';
import { jsonDepth, MAX_JSON_DEPTH } from './limits.js';

const envelopeFields = ['position', 'eventId', 'stream', 'streamVersion', 'recordedAt'] as const;

/** What decides an event's data or metadata when the plain checks do not settle it: the reason it is invalid, or null. */
export type SchemaFallback = {
  body(type: string, schemaVersion: number, data: Record<string, unknown>): string | null;
  metadata(type: string, metadata: unknown): string | null;
};

/**
 * The checks of `checkEventSchema` (the envelope, the data, the metadata, the depth of free-form JSON), with
 * the zod schemas passed in as `fallback`: the plain checks settle the common case, and the fallback decides
 * (and words the reason) whenever they do not. This module does not load zod, so a worker thread that only
 * needs the common case starts without it and hands the rest back.
 *
 * @example
 * const check = eventSchemaCheck({ body: zodBody, metadata: zodMetadata });
 */
export function eventSchemaCheck(fallback: SchemaFallback): EventCheck {
  return (raw, type, up) => {
    for (const field of envelopeFields) {
      if (raw[field] === undefined) return `${type} lacks ${field}`;
    }
    if (!Number.isSafeInteger(raw['position']) || (raw['position'] as number) < 1) return `${type} has an invalid position`;
    if (!fastEventBodyOk(type, up.schemaVersion, up.data)) {
      const problem = fallback.body(type, up.schemaVersion, up.data);
      if (problem !== null) return problem;
    }
    if (!fastMetadataOk(raw['metadata'])) {
      const problem = fallback.metadata(type, raw['metadata']);
      if (problem !== null) return problem;
    }
    return freeJsonProblem(type, up.data);
  };
}

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

/** Thrown by `plainEventCheck` for an event its plain checks do not settle: check it again with `checkEventSchema`. */
export const UNSETTLED: unique symbol = Symbol('an event the plain checks do not settle');

const unsettled = (): never => {
  throw UNSETTLED;
};

/**
 * `checkEventSchema` without zod, for a worker thread that should not load it: the same answer for every event
 * the plain checks settle (every event runledger writes), and UNSETTLED thrown for any other.
 */
export const plainEventCheck: EventCheck = eventSchemaCheck({ body: unsettled, metadata: unsettled });
