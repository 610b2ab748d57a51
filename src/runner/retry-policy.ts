import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { formatLag } from '../../projections/views/format-lag.js';
import { checkDelayMs, checkRetries } from '../ledger/build-definition.js';
// One duration type for the whole library (`"1h"` or milliseconds), as leases and freshness take it.
import { durationMs, type Duration } from '../ledger/library-options.js';

/**
 * Run control a backfill or catchup may set over the pipeline's own (`define --retries …`), with the CLI's
 * names: `backfill --retries 2 --retry-delay 30s --timeout 1h`.
 */
export type RunControlOptions = {
  /** How many times a failed attempt is tried again before the date fails (0: never). */
  retries?: number;
  /** The pause before the first retry (default 5 minutes, as Airflow's `retry_delay`). */
  retryDelay?: Duration;
  /** Double the pause after each retry, up to `maxRetryDelay` (Airflow's `retry_exponential_backoff`). */
  retryExponential?: boolean;
  /** The longest pause between retries (default 24 hours, as Airflow's `max_retry_delay`). */
  maxRetryDelay?: Duration;
  /** Stop an attempt that runs longer than this (SIGTERM, then SIGKILL) and fail it: `timed out after 2h`. */
  timeout?: Duration;
};

/** How a runner treats failed attempts: at most `maxAttempts` in all, with a pause before each retry. */
export type RetryPolicy = { maxAttempts: number; delayMs: number; exponential: boolean; maxDelayMs: number };

const DEFAULT_RETRY_DELAY_MS = 300_000;
const DEFAULT_MAX_RETRY_DELAY_MS = 86_400_000;

/**
 * The retry policy of a run: the options given to this backfill or catchup, else the pipeline's definition.
 *
 * @example
 * resolveRetryPolicy(definition, { retries: 2 }) // { maxAttempts: 3, delayMs: 300000, exponential: false, maxDelayMs: 86400000 }
 */
export function resolveRetryPolicy(definition: PipelineDefinition, options: RunControlOptions = {}): RetryPolicy {
  const retries = options.retries === undefined ? (definition.retries ?? 0) : checkRetries(options.retries, 'retries');
  const delayMs =
    options.retryDelay === undefined
      ? (definition.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS)
      : options.retryDelay === 0 || options.retryDelay === '0'
        ? 0
        : checkDelayMs(durationMs(options.retryDelay, 'retryDelay'), 'retryDelay');
  const exponential = options.retryExponential ?? definition.retryExponential === true;
  const maxDelayMs = options.maxRetryDelay === undefined ? (definition.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS) : durationMs(options.maxRetryDelay, 'maxRetryDelay');
  return { maxAttempts: retries + 1, delayMs, exponential, maxDelayMs };
}

/**
 * The pause before the attempt after `failedAttempt` (1-based within the policy): the delay, doubled per
 * earlier retry when exponential, never past the maximum. No jitter: the schedule is in the ledger, and a
 * rerun must compute the same one.
 *
 * @example
 * retryDelayMs({ maxAttempts: 4, delayMs: 60_000, exponential: true, maxDelayMs: 3_600_000 }, 2) // 120000
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number): number {
  const factor = policy.exponential ? 2 ** Math.min(failedAttempt - 1, 40) : 1;
  return Math.min(policy.delayMs * factor, Math.max(policy.maxDelayMs, policy.delayMs));
}

/** The timeout of an attempt in ms: the option given, else the pipeline's, else none. */
export function resolveTimeoutMs(definition: PipelineDefinition, options: RunControlOptions = {}): number | null {
  if (options.timeout !== undefined) return durationMs(options.timeout, 'timeout');
  return definition.timeoutMs ?? null;
}

/**
 * The reason a timed-out attempt fails with.
 *
 * @example
 * timedOutMessage(7_200_000) // 'timed out after 2h'
 */
export function timedOutMessage(timeoutMs: number): string {
  return `timed out after ${timeoutMs < 1000 ? `${timeoutMs}ms` : formatLag(timeoutMs).replace(' ', '')}`;
}
