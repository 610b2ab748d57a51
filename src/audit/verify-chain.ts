import { decodeEvent } from '../../events/decode-event.js';
import { chainHash, GENESIS_HASH, type Sha256Hex } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { SignatureChecker, SignatureScheme } from '../store/event-signer.js';
import type { ChainHead, RawEvent, StoredColumns } from '../store/event-store.js';

/**
 * Rows per batch a chain walk reads. A batch stays alive while it is checked, and 5,000 rows with their
 * parsed payloads outlived the young generation: the garbage collector then copied and promoted them, and
 * took a third of `verify`'s time; at 1,000 it takes a tenth.
 */
export const VERIFY_BATCH_ROWS = 1000;

/** The `verify --json` document. */
export type VerifyReport = {
  ok: boolean;
  /** Rows whose chain checks out (all of them when the chain is intact, even when a signature fails). */
  events: number;
  /** The first position that does not check out, or null. */
  firstBadPosition: number | null;
  /** The last position whose chain checks out, and its hash: record it elsewhere to catch a rewrite later. */
  head: ChainHead;
  /** What is wrong at `firstBadPosition`, one line; null when ok. */
  problem: string | null;
  /**
   * Only when signatures were checked (a public key or secret was given): whether every event from
   * `signedFrom` on carries a good signature, and the first that does not. A bad signature does not stop
   * the chain walk (`head` is still the last position whose chain checks out); a chain that breaks is
   * reported by the fields above, and the signatures after it are not looked at.
   */
  signatures?: SignatureReport;
};

export type SignatureReport = { scheme: SignatureScheme; signedFrom: number; ok: boolean; position: number | null; eventId: string | null; problem: string | null };

export type VerifyOptions = {
  sha256: Sha256Hex;
  /** A head recorded earlier (`verify` printed it): the chain must still pass through it. */
  expectHead?: ChainHead;
  /** Go on from a head already verified (the batches start right after it), e.g. to check only what was appended since. */
  after?: ChainHead;
  /** Check each event's signature of its hash; the first missing or wrong one is reported (the chain walk goes on). */
  signatures?: SignatureChecker;
  /** The first position whose signature is checked (default 1): events before it were appended before signing began. */
  signedFrom?: number;
};

/**
 * Re-walks a chain from position 1: positions gapless from 1, each
 * payload JSON whose own `position` is its row's, each `prevHash` the previous
 * row's hash (GENESIS for the first), each hash `sha256(prevHash ‖ payload)`.
 * It stops at the first row that fails, because every later link hangs off it.
 *
 * A chain that was rewritten in full, or cut short at its end, is still a
 * valid chain: only a head recorded outside the ledger (`expectHead`) shows it.
 *
 * @example
 * const report = await verifyChain(store.readRaw({ batchSize: VERIFY_BATCH_ROWS }), { sha256: sha256Hex });
 * if (!report.ok) console.error(`position ${report.firstBadPosition}: ${report.problem}`);
 */
export async function verifyChain(batches: AsyncIterable<RawEvent[]>, options: VerifyOptions): Promise<VerifyReport> {
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

/**
 * Parses `--expect-head <position>:<hash>`; null when the text is not of that form.
 *
 * @example
 * parseHead('15:9f86d0…') // { position: 15, hash: '9f86d0…' }
 */
export function parseHead(text: string): ChainHead | null {
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text.trim());
  if (!match) return null;
  return { position: Number(match[1]), hash: match[2] as string };
}
