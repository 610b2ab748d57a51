import type { BackfillOptions } from '../runner/backfill.js';
import type { RunFunction } from '../runner/function-task.js';
import type { RunSummary } from '../runner/run-types.js';
import type { WithRunOptions, WithRunResult } from '../runner/with-run.js';
import { defaultActor } from '../runtime.js';
import { openStore } from '../store/open-store.js';
import { Ledger as LedgerFacade, ledgerSettings, type LedgerOptions } from './ledger.js';

/**
 * The library's `Ledger`: the facade (`./ledger.ts`) plus the runner's conveniences. They are composed here, where
 * the public API is assembled, so the facade never imports the runner (which takes a facade) and the two do not
 * form an import cycle.
 *
 * @example
 * const ledger = await openLedger({ db: './runledger.db' });
 * await ledger.withRun('etl_orders', '2026-11-02', async (run) => ({ rows: 42 }));
 */
export class Ledger extends LedgerFacade {
  /**
   * Runs `fn` for each slot of `[from, to]` the reprocess mode selects, recording every run.
   *
   * @example
   * const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, async (run) => ({ rows: 42 }));
   */
  async backfill(options: BackfillOptions, fn: RunFunction): Promise<RunSummary> {
    // The runner loads on first use: a program that only queries never pays for it.
    const { backfill } = await import('../runner/backfill.js');
    return backfill(this, options, fn);
  }

  /**
   * Starts, heartbeats and completes one run around `fn` (failing it and rethrowing if `fn` throws).
   *
   * @example
   * await ledger.withRun('etl_orders', '2026-11-02', async (run) => ({ rows: 42 }));
   */
  async withRun(pipeline: string, date: string, fn: RunFunction, options?: WithRunOptions): Promise<WithRunResult> {
    const { withRun } = await import('../runner/with-run.js');
    return withRun(this, pipeline, date, fn, options);
  }
}

/**
 * Opens (or creates) a ledger: a SQLite file, or PostgreSQL for a `postgres://` URL.
 *
 * @example
 * const ledger = await openLedger({ db: './runledger.db', clock: () => Date.parse('2026-11-05T01:00:00+07:00') });
 */
export async function openLedger(options: LedgerOptions): Promise<Ledger> {
  const store = await openStore(options.db, { create: options.create ?? true, ...(options.signingKey === undefined ? {} : { signingKey: options.signingKey }) });
  return new Ledger(store, options.clock ?? Date.now, options.actor ?? defaultActor(), ledgerSettings(options));
}
