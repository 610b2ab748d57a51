import type { Ledger } from '../ledger/ledger.js';
import { deprecated } from '../ledger/library-options.js';
import { backfill as runBackfill, catchup as runCatchup, type BackfillOptions, type CatchupOptions } from './backfill.js';
import type { RunFunction } from './function-task.js';
import type { RunSummary } from './run-types.js';
import { withRun as runWithRun, type WithRunOptions, type WithRunResult } from './with-run.js';

/**
 * The free functions of the first library shape, kept working until the next minor version: the library now has
 * one shape, methods on the ledger with one options object.
 *
 * @deprecated Use `ledger.backfill(options, fn)`.
 * @example
 * await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, fn);
 */
export function backfill(ledger: Ledger, options: BackfillOptions, fn: RunFunction): Promise<RunSummary> {
  deprecated('backfill(ledger, options, fn)', 'ledger.backfill(options, fn)');
  return runBackfill(ledger, options, fn);
}

/**
 * @deprecated Use `ledger.catchup(options, fn)`.
 * @example
 * await ledger.catchup({ pipeline: 'etl_orders' }, fn);
 */
export function catchup(ledger: Ledger, options: CatchupOptions, fn: RunFunction): Promise<RunSummary> {
  deprecated('catchup(ledger, options, fn)', 'ledger.catchup(options, fn)');
  return runCatchup(ledger, options, fn);
}

/**
 * @deprecated Use `ledger.withRun({ pipeline, date, ...options }, fn)`.
 * @example
 * await ledger.withRun({ pipeline: 'etl_orders', date: '2026-11-02' }, fn);
 */
export function withRun(ledger: Ledger, pipeline: string, date: string, fn: RunFunction, options: WithRunOptions = {}): Promise<WithRunResult> {
  deprecated('withRun(ledger, pipeline, date, fn)', 'ledger.withRun({ pipeline, date, ...options }, fn)');
  return runWithRun(ledger, pipeline, date, fn, options);
}
