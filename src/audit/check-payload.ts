import { decodeTrustedEvent, type EventCheck } from '../../events/decode-trusted-event.js';
import { chainHash, type Sha256Hex } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { RawEvent, StoredColumns } from '../store/event-store.js';

/** The first row of a batch whose payload does not check out (its index in the batch), and why; null when all do. */
export type PayloadVerdict = { index: number; problem: string } | null;

/** What `verify` says of a row whose stored hash is not `sha256(prevHash ‖ payload)`. */
export const HASH_PROBLEM = 'its stored hash does not match its payload: the event was altered';

/**
 * The payload checks of `verify` over a batch, row by row, up to the first that fails: the payload is a
 * JSON object, its own `position` is its row's, it is a valid event (`decodeEvent` with validation), and
 * the columns stored beside it say what it says; given `sha256`, then its stored hash too. `check` is
 * `checkEventSchema` (it is passed in so a worker thread can check without loading zod). They look at
 * each row alone (not at the links between rows), so `verify` runs them in a worker thread while it reads
 * the next batch and checks the links.
 *
 * @example
 * firstPayloadProblem(rows, checkEventSchema, sha256Hex) // { index: 3, problem: 'its payload is not valid JSON: the event was altered' }
 */
export function firstPayloadProblem(rows: readonly RawEvent[], check: EventCheck, sha256?: Sha256Hex): PayloadVerdict {
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as RawEvent;
    const problem = payloadProblem(row, check) ?? (sha256 && chainHash(row.prevHash, row.payload, sha256) !== row.hash ? HASH_PROBLEM : null);
    if (problem !== null) return { index, problem };
  }
  return null;
}

/** What is wrong with a row's payload, or null. */
function payloadProblem(row: RawEvent, check: EventCheck): string | null {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return 'its payload is not valid JSON: the event was altered';
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'its payload is not a JSON object: the event was altered';
  const position = (payload as Record<string, unknown>)['position'];
  if (position !== row.position) return `its payload says position ${JSON.stringify(position)}: the event was moved`;
  // A payload whose hash checks out but that is no valid event was hashed by something other than runledger.
  const decoded = decodeTrustedEvent(payload, { prevHash: row.prevHash, hash: row.hash }, check);
  if (!decoded.ok) return `its payload is not a valid event (${decoded.reason})`;
  return row.columns ? columnProblem(row.columns, decoded.event) : null;
}

/**
 * The columns a database keeps beside the payload are not hashed, but queries select rows by them:
 * one edited there (a clear moved to another pipeline) changes answers while the chain stays intact.
 */
function columnProblem(columns: StoredColumns, event: RecordedEvent): string | null {
  const runId = 'runId' in event.data ? event.data.runId : null;
  // Compared field by field first: this runs for every event, and an object per row cost more than the checks.
  if (
    columns.event_id === event.eventId &&
    columns.stream === event.stream &&
    columns.stream_version === event.streamVersion &&
    columns.pipeline === event.data.pipeline &&
    columns.run_id === runId &&
    columns.type === event.type &&
    columns.recorded_at === event.recordedAt
  ) {
    return null;
  }
  const expected: StoredColumns = {
    event_id: event.eventId,
    stream: event.stream,
    stream_version: event.streamVersion,
    pipeline: event.data.pipeline,
    run_id: runId,
    type: event.type,
    recorded_at: event.recordedAt,
  };
  for (const key of Object.keys(expected) as Array<keyof StoredColumns>) {
    if (columns[key] !== expected[key]) {
      return `its ${key} column says ${JSON.stringify(columns[key])} but its payload says ${JSON.stringify(expected[key])}: the row was edited beside its hash`;
    }
  }
  return null;
}
