import { canonicalJson } from '../../events/canonical-json.js';
import { fitText, recordedTextLimits } from '../../events/limits.js';
import { illFormedTextAt, wellFormed } from '../../events/well-formed-text.js';
import { LedgerError, isLedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StartInput } from '../ledger/ledger-types.js';
import type { RetryRequest } from '../ledger/ledger-writes.js';
import { leaseOf } from '../ledger/library-options.js';
import { metricsProblem } from '../ledger/metrics-problem.js';
import { timedOutMessage } from './retry-policy.js';
import type { Metrics, RunContext, RunTask, TaskOutcome } from './run-types.js';

export type RunOnceOptions = {
  /** What to start: pipeline, date, run type, force, lease, reason. */
  start: StartInput;
  /** Why this slot is run (shown to the task and in summaries). */
  reason: RunContext['reason'];
  /** Aborts when the caller is interrupted: the task is told to stop and the run is recorded as interrupted (pending, not failed). */
  signal?: AbortSignal;
  /** Heartbeat period; default a quarter of the lease (at most 5 minutes). */
  heartbeatMs?: number;
  /** Called once the run is claimed, before the task starts. */
  onStarted?: (run: RunContext) => void;
  /**
   * Stop the task after this long (real time, whatever the ledger's clock says): its signal aborts with the
   * reason `timeout` (a command gets SIGTERM, then SIGKILL), and the run fails with `timed out after …`.
   */
  timeoutMs?: number;
  /**
   * After a timeout, how long to wait for the task to settle before recording the failure anyway (a function
   * that ignores its signal); default: wait for it (a command task ends once its process group is killed).
   */
  abandonAfterTimeoutMs?: number;
  /** When this attempt fails (not interrupted, not fenced), schedule the next one: recorded with the failure. */
  retry?: RetryRequest;
};

export type RunOnceResult = {
  run: RunContext;
  /** The outcome (an interrupted run is a failed outcome with code `interrupted`, recorded as `RunInterrupted`). */
  outcome: TaskOutcome;
  /** True when the caller's signal stopped the task: the run was recorded as interrupted, not failed. */
  interrupted: boolean;
  /** True when the attempt ran past its timeout and was stopped (its failure says `timed out after …`). */
  timedOut: boolean;
  /** The retry recorded with the failure (the date is `up_for_retry`), when one was. */
  retryScheduled?: RetryRequest;
  /** False when the ledger refused the completion (the run was cleared or taken over while it worked). */
  recorded: boolean;
  /** The error the task threw, if it threw (so `withRun` can rethrow it unchanged). */
  thrown?: unknown;
  /** The ledger's refusal of a heartbeat or of the completion, when the run was fenced out. */
  refusal?: LedgerError;
  /**
   * The store error that kept the outcome from being recorded after retrying for as long as the run's
   * lease lasted (a lock held elsewhere, a full disk, a lost database): the date stays `running` until
   * its lease runs out, and the runner reports it.
   */
  unrecorded?: unknown;
};

/** A quarter of the lease: three heartbeats can be lost before a live run looks stalled. */
export function heartbeatInterval(leaseMs: number): number {
  return Math.min(Math.max(Math.floor(leaseMs / 4), 10), 300_000);
}

/**
 * Claims one slot, runs a task while heartbeating its lease, and records the
 * outcome: the lifecycle shared by the backfill runner and `withRun`.
 * Throws the ledger's refusal when the start is refused (`ledger.alreadyRunning`, …);
 * after a successful start it never throws for the task's sake: a thrown task
 * error becomes a `RunFailed` and is returned in `thrown`.
 *
 * @example
 * const { outcome } = await runOnce(ledger, async () => ({ status: 'success', metrics: {} }),
 *   { start: { pipeline: 'etl_orders', date: '2026-11-02', runType: 'backfill' }, reason: 'missing' });
 */
export async function runOnce(ledger: Ledger, task: RunTask, options: RunOnceOptions): Promise<RunOnceResult> {
  const started = await ledger.start(options.start);
  const { definition } = await ledger.pipeline(started.pipeline);
  const run: RunContext = {
    pipeline: started.pipeline,
    date: started.date,
    runId: started.runId,
    attempt: started.attempt,
    runType: started.runType,
    logicalDate: started.logicalDate,
    dataInterval: started.dataInterval,
    runAfter: started.runAfter,
    reason: options.reason,
    limits: recordedTextLimits(definition),
  };
  options.onStarted?.(run);

  const outer = options.signal;
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', forward, { once: true });

  const leaseMs = leaseOf(options.start, 'ledger.start') ?? definition.leaseMs;
  // Real elapsed time, not the ledger's clock (which --now may fix): until when the lease surely holds.
  let leaseHeldUntil = performance.now() + leaseMs;
  let fenced: LedgerError | undefined;
  let beating: Promise<void> = Promise.resolve();
  const beat = async () => {
    try {
      const sent = performance.now();
      await ledger.heartbeat({ runId: run.runId, lease: leaseMs });
      leaseHeldUntil = sent + leaseMs;
    } catch (error) {
      // A refused heartbeat means the run was cleared or taken over: its work no longer counts, so stop it.
      if (isLedgerError(error) && error.code.startsWith('ledger.')) {
        fenced ??= error;
        controller.abort('fenced');
      }
      // Anything else (a busy store) is transient: the next beat tries again, well within the lease.
    }
  };
  const timer = setInterval(() => {
    beating = beating.then(beat);
  }, options.heartbeatMs ?? heartbeatInterval(leaseMs));

  let outcome: TaskOutcome;
  let thrown: unknown;
  let threw = false;
  let timedOut = false;
  let abandon: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs;
  // Real time, as the lease: a fixed --now must not keep a hung command alive forever.
  const deadline =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort('timeout');
        }, timeoutMs);
  try {
    if (outer?.aborted) {
      outcome = { status: 'failed', error: 'not started', code: 'interrupted' };
    } else {
      try {
        const working = task(run, controller.signal);
        const given = options.abandonAfterTimeoutMs;
        outcome = await (timeoutMs === undefined || given === undefined
          ? working
          : Promise.race([
              working,
              // A task that ignores its signal is left behind: its run fails at the timeout plus the grace.
              new Promise<TaskOutcome>((resolve) => {
                abandon = setTimeout(() => resolve({ status: 'failed', error: 'did not stop when aborted', code: 'timeout' }), timeoutMs + given);
              }),
            ]));
      } catch (error) {
        threw = true;
        thrown = error;
        outcome = { status: 'failed', error: messageOf(error), code: codeOf(error) };
      }
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(abandon);
    clearInterval(timer);
    outer?.removeEventListener('abort', forward);
    await beating;
  }
  // The timeout is the reason, whatever the stopped task said about being stopped (killed by SIGTERM, an AbortError).
  if (timedOut && !outer?.aborted && fenced === undefined && timeoutMs !== undefined) {
    outcome = {
      status: 'failed',
      error: timedOutMessage(timeoutMs),
      code: 'timeout',
      exitCode: outcome.exitCode ?? null,
      signal: outcome.status === 'failed' ? (outcome.signal ?? null) : null,
      ...(outcome.log ? { log: outcome.log } : {}),
    };
  }

  const interruptedBy = outcome.status === 'failed' && outer?.aborted ? (typeof outer.reason === 'string' ? outer.reason : 'aborted') : null;
  if (outcome.status === 'failed' && interruptedBy !== null) {
    outcome = { ...outcome, error: `interrupted by ${interruptedBy}: ${outcome.error}`, code: 'interrupted' };
  }
  if (outcome.status === 'success') {
    // Metrics JSON cannot hold exactly (NaN, Infinity from 1e999, a function) would make the append throw
    // and leave the run running; they fail the run instead, like metrics that are not an object.
    const why = unstorableMetrics(outcome.metrics);
    if (why) outcome = { status: 'failed', error: `the metrics of ${run.pipeline} ${run.date} cannot be recorded: ${why}; use finite numbers, strings, booleans, null, arrays and objects`, code: 'invalidMetrics', exitCode: outcome.exitCode ?? null, signal: null, ...(outcome.log ? { log: outcome.log } : {}) };
  }
  if (outcome.status === 'success') {
    // Too deep or over the pipeline's cap: the ledger would refuse the success, so the run fails with the reason.
    const why = metricsProblem(outcome.metrics, run.limits.metricsBytes);
    if (why) outcome = { status: 'failed', error: `the metrics of ${run.pipeline} ${run.date} cannot be recorded: ${why}`, code: 'invalidMetrics', exitCode: outcome.exitCode ?? null, signal: null };
  }
  // A stderr tail or a thrown message the ledger would refuse as too long is cut to the pipeline's cap instead.
  // Redacted as the ledger stores it, so the summary and progress lines print what was recorded, never a secret.
  // A lone surrogate in a thrown message is replaced as UTF-8 would write it: the ledger refuses one, and the run must end.
  if (outcome.status === 'failed') outcome = { ...outcome, error: ledger.redact(fitText(wellFormed(outcome.error), run.limits.errorBytes)), code: outcome.code === null ? null : wellFormed(outcome.code).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?') };
  const result = (extra: Partial<RunOnceResult>): RunOnceResult => ({ run, outcome, interrupted: interruptedBy !== null, timedOut, recorded: true, ...(threw && !timedOut ? { thrown } : {}), ...extra });
  // A failure of the work itself is retried by the policy; an interruption is the runner's, not the pipeline's.
  const retry = outcome.status === 'failed' && interruptedBy === null ? options.retry : undefined;
  if (fenced) return result({ recorded: false, refusal: fenced });
  const record = async () => {
    // The log file's path and sha256 go with whichever outcome is recorded.
    const log = outcome.log ? { log: outcome.log } : {};
    if (interruptedBy !== null && outcome.status === 'failed') {
      // The runner was stopped; the pipeline did not fail. The key stays pending so the same command resumes it.
      await ledger.interrupt({ runId: run.runId, by: interruptedBy, message: outcome.error.replace(/^interrupted by [^:]*: /, ''), ...log });
    } else if (outcome.status === 'success') {
      await ledger.succeed({ runId: run.runId, metrics: outcome.metrics, ...(outcome.outputs ? { outputs: outcome.outputs } : {}), ...log });
    } else {
      await ledger.fail({ runId: run.runId, error: outcome.error, code: outcome.code, ...log, ...(retry ? { retry } : {}) });
    }
  };
  // A store error (the append lock held elsewhere past the timeout, a full disk, a lost connection) must not
  // strand a run whose work is done: retry with backoff while the lease still holds, so no other runner
  // can have taken the date over meanwhile; a refusal by the ledger's rules is final at once.
  for (let wait = RECORD_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RECORD_RETRY_MAX_MS)) {
    try {
      await record();
      return result(retry ? { retryScheduled: retry } : {});
    } catch (error) {
      if (isLedgerError(error) && error.code.startsWith('ledger.')) return result({ recorded: false, refusal: error });
      if (isLedgerError(error) && error.code.startsWith('input.')) throw error;
      const left = leaseHeldUntil - RECORD_MARGIN_MS - performance.now();
      if (left <= 0) return result({ recorded: false, unrecorded: error });
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
    }
  }
}

/** Backoff between tries to record an outcome: 100 ms, doubling, at most 5 s. */
const RECORD_RETRY_FIRST_MS = 100;
const RECORD_RETRY_MAX_MS = 5_000;
/** Stop retrying this long before the lease runs out, so a late success never lands on a date taken over. */
const RECORD_MARGIN_MS = 1_000;

/** Why metrics cannot be stored as canonical JSON, or null when they can. */
function unstorableMetrics(metrics: Metrics): string | null {
  const illFormed = illFormedTextAt(metrics, 'metrics');
  if (illFormed !== null) return `${illFormed.path} holds a lone UTF-16 surrogate at character ${illFormed.index}, which is not Unicode text`;
  try {
    canonicalJson(metrics);
    return null;
  } catch (error) {
    return messageOf(error).replace(/^canonicalJson: \$/, 'metrics');
  }
}

function messageOf(error: unknown): string {
  // Never empty: the ledger refuses a failure without a message, and the run would stay running.
  const text = error instanceof Error ? error.message : String(error);
  return text.trim() !== '' ? text : `${error instanceof Error ? error.name : typeof error} thrown without a message`;
}

/** A thrown error's own string code (LedgerError, Node errno), else `error`. */
function codeOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? code : 'error';
}
