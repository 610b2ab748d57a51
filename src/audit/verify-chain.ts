import { chainHash, GENESIS_HASH, type Sha256Hex } from '../../events/hash-chain.js';
import type { SignatureChecker, SignatureScheme } from '../store/event-signer.js';
import type { ChainHead, RawEvent } from '../store/event-store.js';
import { sha256Hex } from '../store/seal-events.js';
import { HASH_PROBLEM, type PayloadVerdict } from './check-payload.js';
import { compiledWorker } from './compiled-worker.js';
import { IN_WORKER, payloadChecks } from './payload-checks.js';

/**
 * Rows per batch a chain walk reads. A batch stays alive while it is checked, and 5,000 rows with their
 * parsed payloads outlived the young generation: the garbage collector then copied and promoted them, and
 * took a third of `verify`'s time; at 1,000 it takes a tenth.
 */
export const VERIFY_BATCH_ROWS = 1000;

/**
 * Rows per batch of a chain walk that checks every payload in its own thread (the report's): a batch of 1,000
 * outlived two collections of the young generation often enough that the old one filled with batches to
 * 180 MB before it was collected (in one report in three on the hourly bench ledger); 250 did not.
 */
export const IN_THREAD_BATCH_ROWS = 250;

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
  /**
   * The compiled worker module (`verify-worker.js`) that checks payloads in a second thread while this one
   * reads and hashes, for chains longer than a batch: by default the one beside this module (absent when
   * running from the TypeScript sources); null checks everything in this thread. The report is the same.
   */
  worker?: URL | null;
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
  const expect = options.expectHead;
  // The first row whose signature fails, among the rows whose links and hash check out: it counts only if
  // no row before it fails its payload checks (which may come back from the worker after it was found).
  let signatureFailure: { position: number; payload: string; problem: string } | null = null;
  const signed = (before: number | null): Pick<VerifyReport, 'signatures'> => {
    if (!checker) return {};
    const failure = signatureFailure && (before === null || signatureFailure.position < before) ? signatureFailure : null;
    if (!failure) return { signatures: { scheme: checker.scheme, signedFrom, ok: true, position: null, eventId: null, problem: null } };
    // The row checked out in full, so its payload is an event object with a string eventId.
    const eventId = (JSON.parse(failure.payload) as { eventId: string }).eventId;
    return { signatures: { scheme: checker.scheme, signedFrom, ok: false, position: failure.position, eventId, problem: `event ${eventId}: ${failure.problem}` } };
  };
  const bad = (at: { position: number; problem: string; head: ChainHead; events: number }): VerifyReport => ({
    ok: false,
    events: at.events,
    firstBadPosition: at.position,
    head: at.head,
    problem: at.problem,
    ...signed(at.position),
  });

  /**
   * This thread's checks of a batch, from `head` on: the first row whose position, link, hash (unless the
   * worker checks it) or expected head fails.
   */
  const walk = (rows: readonly RawEvent[], hashed: boolean): Stop | null => {
    let position = head.position;
    let hash = head.hash;
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index] as RawEvent;
      const expected = position + 1;
      if (row.position !== expected) {
        const problem = row.position > expected ? `positions jump from ${position} to ${row.position}: events were removed` : `position ${row.position} appears out of order`;
        return { index, position: expected, problem, afterPayload: false };
      }
      if (row.prevHash !== hash) return { index, position: row.position, problem: 'its prevHash is not the hash of the event before it: an event was inserted, removed or replaced', afterPayload: false };
      if (!hashed && chainHash(row.prevHash, row.payload, options.sha256) !== row.hash) return { index, position: row.position, problem: HASH_PROBLEM, afterPayload: true };
      if (expect && row.position === expect.position && row.hash !== expect.hash) {
        return { index, position: row.position, problem: `its hash ${row.hash} is not the expected head ${expect.hash}: the ledger was rewritten up to here`, afterPayload: true };
      }
      // The first bad signature is kept; the chain is still walked to the head, so `head` and `events` say how far it holds.
      if (checker && signatureFailure === null && row.position >= signedFrom) {
        const problem = checker.problem(row.hash, row.signature);
        if (problem) signatureFailure = { position: row.position, payload: row.payload, problem };
      }
      position = row.position;
      hash = row.hash;
    }
    head = { position, hash };
    events += rows.length;
    return null;
  };

  /**
   * The first row of a walked batch that fails, in the order the checks run on a row; null when none does.
   * A batch the worker has not answered for is checked here (`finish`, at the end of the walk or when a
   * later batch fails), rather than waited for, and so is every later one.
   */
  let checkingHere = false;
  const firstFailure = async (batch: Walked, finish: boolean): Promise<VerifyReport | null> => {
    let payload: PayloadVerdict;
    if (batch.verdict !== IN_WORKER) payload = batch.verdict;
    else if (!checkingHere && (!finish || checks.answered())) payload = await checks.verdict(batch.rows, batch.hashed);
    else {
      checkingHere = true;
      payload = checks.here(batch.rows, batch.hashed);
    }
    const { stop, rows } = batch;
    // Position and link come before the payload checks; the hash (when checked here) and the expected head after them.
    const at = payload && (!stop || payload.index < stop.index || (payload.index === stop.index && stop.afterPayload)) ? { ...payload, position: (rows[payload.index] as RawEvent).position } : stop;
    if (!at) return null;
    const previous = rows[at.index - 1];
    const before = previous ? { position: previous.position, hash: previous.hash } : batch.head;
    return bad({ position: at.position, problem: at.problem, head: before, events: batch.events + at.index });
  };

  // The schemas (zod) loaded when the chain is walked, not with the module: the report imports this one at its start and
  // walks the chain last, and their 4 MB held through its pages let the old generation grow by four times that.
  const { checkEventSchema } = await import('../../events/decode-event.js');
  const checks = payloadChecks(options.worker === undefined ? compiledWorker('verify-worker.js') : options.worker, options.sha256 === sha256Hex, checkEventSchema);
  try {
    // The batches sent to the worker whose verdict is not taken yet, oldest first; then at most one that
    // fails, whose older batches must be settled first (the first bad row wins).
    const walked: Walked[] = [];
    for await (const rows of batches) {
      if (rows.length === 0) continue;
      const { verdict, hashed } = checks.start(rows);
      const batch = { rows, head, events, verdict, hashed, stop: walk(rows, hashed) };
      // A batch checked here in full and found intact counts only through `head` and `events`.
      if (verdict === null && !batch.stop) continue;
      walked.push(batch);
      const failing = batch.stop !== null || verdict !== IN_WORKER;
      while (walked.length > 0 && (failing || checks.answered())) {
        const failure = await firstFailure(walked.shift() as Walked, failing);
        if (failure) return failure;
      }
    }
    for (let batch = walked.shift(); batch; batch = walked.shift()) {
      const failure = await firstFailure(batch, true);
      if (failure) return failure;
    }
  } finally {
    checks.close();
  }
  if (expect && head.position < expect.position) {
    return bad({ position: head.position + 1, problem: `the ledger ends at position ${head.position} but the expected head is at ${expect.position}: events were removed from its end`, head, events });
  }
  const failure = signed(null);
  if (failure.signatures && !failure.signatures.ok) return { ok: false, events, firstBadPosition: failure.signatures.position, head, problem: failure.signatures.problem, ...failure };
  return { ok: true, events, firstBadPosition: null, head, problem: null, ...failure };
}

/** A row that fails this thread's checks: its index in the batch, the position reported, and whether the payload checks come first. */
type Stop = { index: number; position: number; problem: string; afterPayload: boolean };

/**
 * A batch this thread has walked from `head` (`events` before it), with its payload verdict or IN_WORKER,
 * and whether the worker checks its hashes (`hashed`) rather than this thread.
 */
type Walked = { rows: readonly RawEvent[]; head: ChainHead; events: number; verdict: PayloadVerdict | typeof IN_WORKER; hashed: boolean; stop: Stop | null };

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
