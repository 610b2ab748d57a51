import type { RunType } from '../../events/types/common.js';
import { LedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StartInput } from '../ledger/ledger-types.js';
import { durationMs, durationOption, leaseOf, optionKeys, type Duration } from '../ledger/library-options.js';
import { functionTask, type RunFunction } from './function-task.js';
import { runOnce } from './run-once.js';
import type { Metrics, RunContext } from './run-types.js';

export type WithRunOptions = {
  /** Default `scheduled`, like `ledger.start`. */
  runType?: RunType;
  /** Reprocess a date that already succeeded (recorded in the event). */
  force?: boolean;
  /** Lease of the run: `"1h"` or milliseconds; default the pipeline's. Heartbeats renew it while `fn` works. */
  lease?: Duration;
  /** @deprecated Use `lease` (`"1h"` or milliseconds); works until the next minor version. */
  leaseMs?: number;
  /** Why, recorded in the start event. */
  reason?: string;
  /** Abort to tell `fn` to stop; a failure after that is recorded as `interrupted`. */
  signal?: AbortSignal;
  /** How often the run heartbeats while `fn` works: `"10m"` or milliseconds; default a third of its lease. */
  heartbeat?: Duration;
  /** @deprecated Use `heartbeat`; works until the next minor version. */
  heartbeatMs?: number;
  /**
   * Fail the run when `fn` takes longer (`"2h"` or milliseconds): `fn`'s signal aborts with the reason
   * `timeout`, the run is recorded as failed with `timed out after 2h`, and `withRun` throws `ledger.timedOut`.
   * A function that ignores its signal is not waited for past one more second.
   */
  timeout?: Duration;
};

/** What `ledger.withRun` takes: the run to start and how. */
export type WithRunInput = WithRunOptions & { pipeline: string; date: string };

/** Every option key of `ledger.withRun`, checked against the type by the compiler. */
export const WITH_RUN_KEYS = optionKeys<WithRunInput>()({ pipeline: true, date: true, runType: true, force: true, lease: true, leaseMs: true, reason: true, signal: true, heartbeat: true, heartbeatMs: true, timeout: true });

export type WithRunResult = { run: RunContext; metrics: Metrics };

/** How long a function whose timeout passed may take to stop before its run is recorded as failed anyway. */
const ABANDON_AFTER_TIMEOUT_MS = 1000;

/**
 * Starts a run of one date, heartbeats its lease while `fn` works, and
 * records the result: what `fn` returns becomes the success metrics; if `fn`
 * throws, the run is recorded as failed and the error is rethrown unchanged.
 * The start's refusals (`ledger.alreadyRunning`, `ledger.alreadySucceeded`, …)
 * are thrown before `fn` is called; if the run is cleared while `fn` works,
 * `fn`'s signal aborts and the ledger's refusal is thrown.
 *
 * @example
 * const { metrics } = await ledger.withRun({ pipeline: 'etl_orders', date: '2026-11-02' }, async (run, signal) => {
 *   const rows = await load(run.dataInterval.start, run.dataInterval.end, { signal });
 *   return { rows };
 * });
 */
export async function withRun(ledger: Ledger, pipeline: string, date: string, fn: RunFunction, options: WithRunOptions = {}): Promise<WithRunResult> {
  const start: StartInput = { pipeline, date, runType: options.runType ?? 'scheduled', force: options.force ?? false };
  const leaseMs = leaseOf(options, 'ledger.withRun');
  if (leaseMs !== undefined) start.lease = leaseMs;
  if (options.reason !== undefined) start.reason = options.reason;
  const timeoutMs = options.timeout === undefined ? undefined : durationMs(options.timeout, 'timeout');
  const heartbeatMs = durationOption(options, 'heartbeat', 'ledger.withRun');
  const result = await runOnce(ledger, functionTask(fn), {
    start,
    reason: 'requested',
    ...(options.signal ? { signal: options.signal } : {}),
    ...(heartbeatMs == null ? {} : { heartbeatMs }),
    ...(timeoutMs === undefined ? {} : { timeoutMs, abandonAfterTimeoutMs: ABANDON_AFTER_TIMEOUT_MS }),
  });
  if (result.timedOut && result.outcome.status === 'failed') {
    throw new LedgerError('ledger.timedOut', `${pipeline} ${result.run.date} ${result.outcome.error}; the run (${result.run.runId}) is recorded as failed`);
  }
  if ('thrown' in result) throw result.thrown;
  if (result.refusal) throw result.refusal;
  // A failure `fn` did not throw (metrics no event can hold, a signal aborted before `fn` ran) was recorded: say so.
  // An interruption is recorded as such (the date stays pending), and is still an error to the caller.
  if (result.outcome.status === 'failed') {
    throw new LedgerError(result.outcome.code === 'invalidMetrics' ? 'input.invalidMetrics' : 'ledger.interrupted', result.outcome.error);
  }
  return { run: result.run, metrics: result.outcome.status === 'success' ? result.outcome.metrics : {} };
}
