import type { Ledger } from '../ledger/ledger.js';
import { executeRuns } from './execute-runs.js';
import { upstreamGate } from './upstream-gate.js';
import type { PoolPlaces } from './pool-places.js';
import { planJob, type JobRequest, type PlannedJob } from './plan-job.js';
import type { RunControlOptions } from './retry-policy.js';
import type { RunProgress, RunReport, RunSummary, RunTask } from './run-types.js';

export type JobOptions = RunControlOptions & {
  /** Default and ceiling: the pipeline's own maxActiveRuns (live runs across every runner). */
  maxActiveRuns?: number;
  placePollMs?: number;
  continueOnFailure?: boolean;
  leaseMs?: number;
  heartbeatMs?: number;
  signal?: AbortSignal;
  /** Called with the plan before anything starts (to size a progress bar). */
  onPlanned?: (job: PlannedJob) => void;
  onProgress?: (progress: RunProgress) => void;
  monotonic?: () => number;
  /** How the runner waits for a retry's time (a test with a fake clock moves that clock on); default a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The pools sized for this process (`--pool NAME=N`). */
  pools?: PoolPlaces;
  /** The command task's grace between SIGTERM and SIGKILL (`--kill-grace`), so a timed-out attempt is recorded once it is over. */
  killGraceMs?: number;
};

/**
 * Plans a backfill or catchup and runs it through a task: the one path the
 * CLI, the library and the demo share.
 *
 * @example
 * const { summary } = await runJob(ledger, { kind: 'catchup', pipeline: 'etl_orders' }, task, { maxActiveRuns: 2 });
 */
export async function runJob(ledger: Ledger, request: JobRequest, task: RunTask, options: JobOptions = {}): Promise<{ job: PlannedJob; summary: RunSummary }> {
  const job = await planJob(ledger, request);
  options.onPlanned?.(job);
  const span = job.from !== null ? ` ${job.from}..${job.to}` : '';
  const { definition } = await ledger.pipeline(job.pipeline);
  // Asked again right before each claim: an upstream date cleared since planning blocks its dates again.
  const gate = definition.upstreams ? upstreamGate(ledger, { definition, ...(request.waitUpstreamMs === undefined ? {} : { waitMs: request.waitUpstreamMs }) }) : undefined;
  const summary = await executeRuns(ledger, {
    pipeline: job.pipeline,
    runType: job.runType,
    slots: job.plan.slots,
    reprocess: job.reprocess,
    task,
    startReason: `${job.runType}${span} (reprocess ${job.reprocess})`,
    ...(gate ? { gate } : {}),
    ...pick(options),
  });
  const range = job.from !== null && job.to !== null ? { range: { from: job.from, to: job.to } } : {};
  const leftAlone = job.blocked && job.blocked.length > 0 && request.waitUpstreamMs === undefined ? { blocked: job.blocked } : {};
  return { job, summary: { ...withInFlight(summary, job), ...range, ...leftAlone } };
}

/** Slots in flight at planning time are skipped too: list them, in date order, so the summary says so. */
function withInFlight(summary: RunSummary, job: PlannedJob): RunSummary {
  if (job.plan.inFlight.length === 0) return summary;
  const held: RunReport[] = job.plan.inFlight.map((r) => ({
    date: r.date,
    runId: null,
    attempt: null,
    status: 'skipped',
    exitCode: null,
    durationMs: 0,
    reason: null,
    signal: null,
    error: null,
    code: null,
    skipReason: 'inFlight',
    note: `in flight as run ${r.runId} (lease until ${r.leaseExpiresAt}); left alone`,
  }));
  // Date keys of one pipeline sort chronologically (docs/architecture.md).
  const backwards = job.plan.slots.length > 1 && (job.plan.slots[0]?.date ?? '') > (job.plan.slots.at(-1)?.date ?? '');
  const order = (a: RunReport, b: RunReport) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);
  const runs = [...summary.runs, ...held].sort((a, b) => (backwards ? order(b, a) : order(a, b)));
  return { ...summary, runs, skipped: summary.skipped + held.length };
}

function pick(options: JobOptions) {
  const { pools, killGraceMs, maxActiveRuns, placePollMs, continueOnFailure, leaseMs, heartbeatMs, signal, onProgress, monotonic, sleep, retries, retryDelay, retryExponential, maxRetryDelay, timeout } = options;
  return {
    ...(sleep === undefined ? {} : { sleep }),
    ...(pools === undefined ? {} : { pools }),
    ...(killGraceMs === undefined ? {} : { killGraceMs }),
    ...(retries === undefined ? {} : { retries }),
    ...(retryDelay === undefined ? {} : { retryDelay }),
    ...(retryExponential === undefined ? {} : { retryExponential }),
    ...(maxRetryDelay === undefined ? {} : { maxRetryDelay }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(maxActiveRuns === undefined ? {} : { maxActiveRuns }),
    ...(placePollMs === undefined ? {} : { placePollMs }),
    ...(continueOnFailure === undefined ? {} : { continueOnFailure }),
    ...(leaseMs === undefined ? {} : { leaseMs }),
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(signal === undefined ? {} : { signal }),
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(monotonic === undefined ? {} : { monotonic }),
  };
}
