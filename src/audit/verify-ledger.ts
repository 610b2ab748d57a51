import type { EventStore } from '../store/event-store.js';
import { sha256Hex } from '../store/seal-events.js';
import { VERIFY_BATCH_ROWS, verifyChain, type VerifyOptions, type VerifyReport } from './verify-chain.js';
import { metaProblem } from './verify-meta.js';

/** The `verify --json` document: the chain walk, and the check of `runledger_meta` (`ok` is false when either fails). */
export type LedgerVerifyReport = VerifyReport & { meta: { ok: boolean; problem: string | null } };

/**
 * Verifies a whole ledger as `runledger verify` and `GET /api/verify` do: the hash chain from the first
 * event (and the signatures, when given a checker), then `runledger_meta`. A meta problem on an intact
 * chain makes the report not ok, with the problem in `problem` and no bad position.
 *
 * @example
 * const report = await verifyLedger(ledger.store, {});
 * if (!report.ok) console.error(report.problem);
 */
export async function verifyLedger(store: EventStore, options: Omit<VerifyOptions, 'sha256' | 'after'>): Promise<LedgerVerifyReport> {
  const chain = await verifyChain(store.readRaw({ batchSize: VERIFY_BATCH_ROWS }), { sha256: sha256Hex, ...options });
  const meta = store.readMeta ? metaProblem(await store.readMeta()) : null;
  const report = meta === null || !chain.ok ? chain : { ...chain, ok: false, problem: meta };
  return { ...report, meta: { ok: meta === null, problem: meta } };
}
