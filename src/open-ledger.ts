import { LedgerError } from './errors.js';
import type { BackfillOptions, CatchupOptions } from './runner/backfill.js';
import type { RunFunction } from './runner/function-task.js';
import type { RunSummary } from './runner/run-types.js';
import type { WithRunInput, WithRunOptions, WithRunResult } from './runner/with-run.js';
import { checkOptionKeys, deprecated, optionKeys } from './ledger/library-options.js';
import { defaultActor } from './runtime.js';
import { openStore } from './store/open-store.js';
import { Ledger as LedgerFacade, ledgerSettings, type LedgerOptions } from './ledger/ledger.js';

/**
 * The library's `Ledger`: the facade (`./ledger.ts`) plus the runner's conveniences. They are composed here, where
 * the public API is assembled, so the facade never imports the runner (which takes a facade) and the two do not
 * form an import cycle.
 *
 * @example
 * const ledger = await openLedger({ db: './runledger.db' });
 * await ledger.withRun({ pipeline: 'etl_orders', date: '2026-11-02' }, async (run) => ({ rows: 42 }));
 */
export class Ledger extends LedgerFacade {
  /**
   * Runs `fn` for each slot of `[from, to]` the reprocess mode selects, recording every run.
   *
   * @example
   * const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', lease: '2h' }, async (run) => ({ rows: 42 }));
   */
  async backfill(options: BackfillOptions, fn: RunFunction): Promise<RunSummary> {
    // The runner loads on first use: a program that only queries never pays for it.
    const { backfill, BACKFILL_KEYS } = await import('./runner/backfill.js');
    checkOptionKeys(options, BACKFILL_KEYS, 'ledger.backfill');
    return backfill(this, options, fn);
  }

  /**
   * Runs `fn` for the due pending slots after the latest scheduled or catchup run (only the latest due slot when
   * the pipeline's catchup is off), recorded as `catchup` runs; with `allPending`, every pending slot since the
   * start (missing, failed, cleared, interrupted, stalled), oldest first, as `runledger catchup --all-pending`.
   *
   * @example
   * const summary = await ledger.catchup({ pipeline: 'etl_orders', allPending: true }, async (run) => ({ rows: 42 }));
   */
  async catchup(options: CatchupOptions, fn: RunFunction): Promise<RunSummary> {
    const { catchup, CATCHUP_KEYS } = await import('./runner/backfill.js');
    checkOptionKeys(options, CATCHUP_KEYS, 'ledger.catchup');
    return catchup(this, options, fn);
  }

  /**
   * Starts, heartbeats and completes one run around `fn` (failing it and rethrowing if `fn` throws).
   * The old positional form `withRun(pipeline, date, fn, options)` still works until the next minor version.
   *
   * @example
   * await ledger.withRun({ pipeline: 'etl_orders', date: '2026-11-02', lease: '2h' }, async (run) => ({ rows: 42 }));
   */
  async withRun(input: WithRunInput, fn: RunFunction): Promise<WithRunResult>;
  /** @deprecated Use `withRun({ pipeline, date, ...options }, fn)`; this form works until the next minor version. */
  async withRun(pipeline: string, date: string, fn: RunFunction, options?: WithRunOptions): Promise<WithRunResult>;
  async withRun(first: WithRunInput | string, second: RunFunction | string, third?: RunFunction, fourth?: WithRunOptions): Promise<WithRunResult> {
    const { withRun, WITH_RUN_KEYS } = await import('./runner/with-run.js');
    if (typeof first === 'string') {
      deprecated('ledger.withRun(pipeline, date, fn, options)', 'ledger.withRun({ pipeline, date, ...options }, fn)');
      if (typeof second !== 'string' || typeof third !== 'function') {
        throw new LedgerError('input.unknownOption', 'ledger.withRun takes ({ pipeline, date, ... }, fn)');
      }
      if (fourth !== undefined) checkOptionKeys(fourth, WITH_RUN_KEYS, 'ledger.withRun');
      return withRun(this, first, second, third, fourth);
    }
    checkOptionKeys(first, WITH_RUN_KEYS, 'ledger.withRun');
    if (typeof second !== 'function') throw new LedgerError('input.unknownOption', 'ledger.withRun takes ({ pipeline, date, ... }, fn): the second argument must be the function to run');
    const { pipeline, date, ...options } = first;
    return withRun(this, pipeline, date, second, options);
  }
}

const LEDGER_OPTION_KEYS = optionKeys<LedgerOptions>()({ db: true, clock: true, actor: true, create: true, rebuildProgress: true, signingKey: true, checkpointAfter: true, secrets: true, maxClockSkew: true, maxEventAge: true });

/**
 * Opens (or creates) a ledger: a SQLite file, or PostgreSQL for a `postgres://` URL.
 *
 * @example
 * const ledger = await openLedger({ db: './runledger.db', clock: () => Date.parse('2026-11-05T01:00:00+07:00') });
 */
export async function openLedger(options: LedgerOptions): Promise<Ledger> {
  checkOptionKeys(options, LEDGER_OPTION_KEYS, 'openLedger');
  // Settings first: a bad duration is refused before a database is opened or created.
  const settings = ledgerSettings(options);
  const store = await openStore(options.db, { create: options.create ?? true, ...(options.signingKey === undefined ? {} : { signingKey: options.signingKey }) });
  return new Ledger(store, options.clock ?? Date.now, options.actor ?? defaultActor(), settings);
}
