/**
 * A failed attempt will be tried again (`define --retries`): appended with the attempt's `RunFailed`, so the
 * date is `up_for_retry` rather than `failed`. `runId` is the attempt that failed; `attempt` is the number of
 * the next one within the retry policy (2 for the first retry) out of `maxAttempts` (retries + 1).
 */
export type RetryScheduled = {
  type: 'RetryScheduled';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    attempt: number;
    maxAttempts: number;
    /** When the next attempt may start (the ledger's clock at the failure plus the delay). */
    nextAt: string;
    delayMs: number;
  };
};
