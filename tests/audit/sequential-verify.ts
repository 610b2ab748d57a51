import { decodeEvent } from '../../events/decode-event.js';
import { chainHash, GENESIS_HASH } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { SignatureReport, VerifyOptions, VerifyReport } from '../../src/audit/verify-chain.js';
import type { ChainHead, RawEvent, StoredColumns } from '../../src/store/event-store.js';

// `verifyChain` as it was before it checked payloads in a worker thread: one row after the other, every
// check of a row before the next row. The tests hold the worker path and the in-thread path to its reports.

/** The report of the one-row-at-a-time walk, for the same batches and options. */
export async function sequentialVerify(batches: AsyncIterable<RawEvent[]>, options: VerifyOptions): Promise<VerifyReport> {
  let head: ChainHead = options.after ?? { position: 0, hash: GENESIS_HASH };
  let events = options.after?.position ?? 0;
  const checker = options.signatures;
  const signedFrom = options.signedFrom ?? 1;
  const signed = (report: Omit<SignatureReport, 'scheme' | 'signedFrom'>) => (checker ? { signatures: { scheme: checker.scheme, signedFrom, ...report } } : {});
  const unchecked = { ok: true, position: null, eventId: null, problem: null };
  let signatureFailure: { position: number; eventId: string; problem: string } | null = null;
  const bad = (position: number, problem: string): VerifyReport => ({ ok: false, events, firstBadPosition: position, head, problem, ...signed(signatureFailure ? { ok: false, ...signatureFailure } : unchecked) });
  const expect = options.expectHead;
  for await (const batch of batches) {
    for (const row of batch) {
      const expected = head.position + 1;
      if (row.position !== expected) {
        return bad(expected, row.position > expected ? `positions jump from ${head.position} to ${row.position}: events were removed` : `position ${row.position} appears out of order`);
      }
      if (row.prevHash !== head.hash) return bad(row.position, 'its prevHash is not the hash of the event before it: an event was inserted, removed or replaced');
      const checked = checkPayload(row);
      if (typeof checked === 'string') return bad(row.position, checked);
      if (chainHash(row.prevHash, row.payload, options.sha256) !== row.hash) {
        return bad(row.position, 'its stored hash does not match its payload: the event was altered');
      }
      if (expect && row.position === expect.position && row.hash !== expect.hash) {
        return bad(row.position, `its hash ${row.hash} is not the expected head ${expect.hash}: the ledger was rewritten up to here`);
      }
      // The first bad signature is kept; the chain is still walked to the head, so `head` and `events` say how far it holds.
      const signatureProblem: string | null = checker && signatureFailure === null && row.position >= signedFrom ? checker.problem(row.hash, row.signature) : null;
      if (signatureProblem) signatureFailure = { position: row.position, eventId: checked.eventId, problem: `event ${checked.eventId}: ${signatureProblem}` };
      events += 1;
      head = { position: row.position, hash: row.hash };
    }
  }
  if (expect && head.position < expect.position) {
    return bad(head.position + 1, `the ledger ends at position ${head.position} but the expected head is at ${expect.position}: events were removed from its end`);
  }
  if (signatureFailure) return { ok: false, events, firstBadPosition: signatureFailure.position, head, problem: signatureFailure.problem, ...signed({ ok: false, ...signatureFailure }) };
  return { ok: true, events, firstBadPosition: null, head, problem: null, ...signed(unchecked) };
}

/** The decoded event of a row, or what is wrong with its payload. */
function checkPayload(row: RawEvent): RecordedEvent | string {
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
  const decoded = decodeEvent(payload, { prevHash: row.prevHash, hash: row.hash }, { validate: true });
  if (!decoded.ok) return `its payload is not a valid event (${decoded.reason})`;
  return (row.columns ? columnProblem(row.columns, decoded.event) : null) ?? decoded.event;
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

