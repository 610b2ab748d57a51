import { setImmediate as turn } from 'node:timers/promises';
import { VERIFY_BATCH_ROWS, verifyChain } from '../audit/verify-chain.js';
import type { ChainHead, EventStore, RawEvent } from '../store/event-store.js';
import { sha256Hex } from '../store/seal-events.js';

/** The last verification of the hash chain, as the metrics report it. */
export type VerifyResult = { ok: boolean; events: number; head: ChainHead; firstBadPosition: number | null; problem: string | null; atMs: number };

/**
 * Verifies the hash chain (as `runledger verify` does) and, on each later
 * call, only the events appended since the last head that checked out: the
 * first call walks the whole chain, later ones cost what was appended. Once
 * the chain is broken it stays reported broken; run `runledger verify` to see
 * where, and restart to re-walk it all.
 *
 * @example
 * const verifier = chainVerifier(ledger.store, Date.now);
 * const result = await verifier.check(); // { ok: true, events: 22, … }
 */
export function chainVerifier(store: EventStore, clock: () => number): { check(): Promise<VerifyResult> } {
  let last: VerifyResult | null = null;
  let running: Promise<VerifyResult> | null = null;
  const run = async (): Promise<VerifyResult> => {
    if (last && !last.ok) return last;
    const after = last?.head;
    // A turn of the event loop before each batch: the first walk of a million events holds no request until its end.
    const batches = yielding(store.readRaw({ batchSize: VERIFY_BATCH_ROWS, ...(after ? { fromPosition: after.position + 1 } : {}) }));
    const report = await verifyChain(batches, { sha256: sha256Hex, ...(after ? { after } : {}) });
    last = { ok: report.ok, events: report.events, head: report.head, firstBadPosition: report.firstBadPosition, problem: report.problem, atMs: clock() };
    return last;
  };
  return {
    check() {
      // Two scrapes at once share one walk.
      running ??= run().finally(() => (running = null));
      return running;
    },
  };
}

/** The batches of `source`, each read after a turn of the event loop (timers and I/O run between them); none is held over a turn. */
async function* yielding(source: AsyncIterable<RawEvent[]>): AsyncGenerator<RawEvent[]> {
  const batches = source[Symbol.asyncIterator]();
  for (;;) {
    await turn();
    const next = await batches.next();
    if (next.done === true) return;
    yield next.value;
  }
}
