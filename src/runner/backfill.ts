import type { Reprocess } from '../../projections/plan-runs.js';
import { checkDurationMs, parseDuration } from '../duration.js';
import type { Ledger } from '../ledger/ledger.js';
import { durationOption, optionKeys, type Duration } from '../ledger/library-options.js';
import { functionTask, type RunFunction } from './function-task.js';
import { resolveReprocess, type JobRequest } from './plan-job.js';
import { runJob, type JobOptions } from './run-job.js';
import { checkPoolSizes, poolPlaces } from './pool-places.js';
import type { RunSummary } from './run-types.js';

export type CatchupOptions = Omit<JobOptions, 'onPlanned' | 'leaseMs' | 'killGraceMs' | 'heartbeatMs' | 'placePollMs' | 'pools'> & {
  pipeline: string;
  /**
   * Pool sizes (`{ warehouse: 2 }`, as `--pool warehouse=2`): a run of a pipeline defined with that pool waits
   * until fewer than that many runs of the pool's pipelines are live on the ledger.
   */
  pools?: Readonly<Record<string, number>>;
  /** How long each run may go without a heartbeat (the runner heartbeats well within it): `"1h"` or milliseconds; default the pipeline's. */
  lease?: Duration;
  /** How often a running run heartbeats: `"10m"` or milliseconds; default a third of its lease. */
  heartbeat?: Duration;
  /** How often to look again for a free place when the pipeline's max-active-runs is reached: `"250ms"` (the default) or milliseconds. */
  placePoll?: Duration;
  /** @deprecated Use `lease` (`"1h"` or milliseconds); works until the next minor version. */
  leaseMs?: number;
  /** @deprecated Use `heartbeat`; works until the next minor version. */
  heartbeatMs?: number;
  /** @deprecated Use `placePoll`; works until the next minor version. */
  placePollMs?: number;
  /** Backfill default `none`; catchup default `failed` (catchup reruns what `pending` lists, failed dates included). */
  reprocess?: Reprocess;
  /** Same as `reprocess: 'completed'`. */
  force?: boolean;
  /** Newest first instead of oldest first. */
  runBackwards?: boolean;
  /**
   * For a pipeline with upstreams: wait this long (`"1h"` or milliseconds) for the upstream dates a date
   * waits for, instead of leaving it alone (`--wait-upstream`).
   */
  waitUpstream?: string | number;
  /** Catchup only: every pending date since the start (missing, failed, cleared, interrupted, stalled), not only those after the latest scheduled run (`--all-pending`). */
  allPending?: boolean;
};

/** `waitUpstream` in milliseconds, as `{ waitUpstreamMs }` for a job request, or `{}`. */
function upstreamWait(value: string | number | undefined): { waitUpstreamMs?: number } {
  if (value === undefined) return {};
  return { waitUpstreamMs: typeof value === 'number' ? checkDurationMs(value, 'waitUpstream') : parseDuration(value, 'waitUpstream') };
}

export type BackfillOptions = Omit<CatchupOptions, 'allPending'> & { from: string; to: string };

/**
 * Backfill for TypeScript pipelines: runs `fn` for each slot of `[from, to]` the
 * reprocess mode selects, recording each start, success (with the returned
 * metrics) and failure (what `fn` threw). Stops at the first failure unless
 * `continueOnFailure`; resolves with the summary either way.
 *
 * @example
 * const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' },
 *   async (run, signal) => ({ rows: await load(run.dataInterval, { signal }) }));
 * if (summary.failed > 0) process.exitCode = 6;
 */
export async function backfill(ledger: Ledger, options: BackfillOptions, fn: RunFunction): Promise<RunSummary> {
  const reprocess = resolveReprocess(options.reprocess, options.force);
  const request: JobRequest = {
    kind: 'backfill',
    pipeline: options.pipeline,
    from: options.from,
    to: options.to,
    ...(reprocess ? { reprocess } : {}),
    ...(options.runBackwards ? { runBackwards: true } : {}),
    ...upstreamWait(options.waitUpstream),
  };
  return (await runJob(ledger, request, functionTask(fn), jobOptions(ledger, options, 'ledger.backfill'))).summary;
}

/** The runner's options from a library call's: the lease, heartbeat and place poll in milliseconds, the pools' places. */
function jobOptions(ledger: Ledger, options: CatchupOptions | BackfillOptions, call: string): JobOptions {
  const { lease, leaseMs, heartbeat, heartbeatMs, placePoll, placePollMs, pools, ...rest } = options;
  const out: JobOptions = { ...rest, ...(pools === undefined ? {} : { pools: poolPlaces(ledger, checkPoolSizes(pools, `${call}({ pools })`)) }) };
  const durations = { lease, leaseMs, heartbeat, heartbeatMs, placePoll, placePollMs };
  for (const name of ['lease', 'heartbeat', 'placePoll'] as const) {
    const ms = durationOption(durations, name, call);
    if (ms != null) out[`${name}Ms`] = ms;
  }
  return out;
}

/** Every option key of `ledger.catchup`, checked against the type by the compiler. */
export const CATCHUP_KEYS = optionKeys<CatchupOptions>()({
  pipeline: true, reprocess: true, force: true, runBackwards: true, allPending: true, waitUpstream: true, lease: true, leaseMs: true, maxActiveRuns: true, placePoll: true,
  placePollMs: true, continueOnFailure: true, heartbeat: true, heartbeatMs: true, signal: true, onProgress: true, monotonic: true,
  retries: true, retryDelay: true, retryExponential: true, maxRetryDelay: true, timeout: true, sleep: true, pools: true,
});
/** Every option key of `ledger.backfill`. */
export const BACKFILL_KEYS = [...CATCHUP_KEYS.filter((k) => k !== 'allPending'), 'from', 'to'];

/**
 * Catchup for TypeScript pipelines: runs `fn` for the due pending slots after the
 * latest scheduled or catchup run (only the latest due slot when the
 * pipeline's catchup is off), recorded as `catchup` runs.
 *
 * @example
 * await ledger.catchup({ pipeline: 'etl_orders', allPending: true }, async (run) => ({ rows: await load(run.date) }));
 */
export async function catchup(ledger: Ledger, options: CatchupOptions, fn: RunFunction): Promise<RunSummary> {
  const reprocess = resolveReprocess(options.reprocess, options.force);
  const request: JobRequest = {
    kind: 'catchup',
    pipeline: options.pipeline,
    ...(reprocess ? { reprocess } : {}),
    ...(options.runBackwards ? { runBackwards: true } : {}),
    ...(options.allPending ? { allPending: true } : {}),
    ...upstreamWait(options.waitUpstream),
  };
  return (await runJob(ledger, request, functionTask(fn), jobOptions(ledger, options, 'ledger.catchup'))).summary;
}
