import { z } from 'zod';
import type { RetryScheduled as PlainRetryScheduled } from './types/retry-scheduled.js';
import type { Equals } from './same-type.js';
import { Instant, RunRef } from './common.js';

/**
 * A failed attempt will be tried again (`define --retries`): appended with the
 * attempt's `RunFailed`, in the same transaction, so the date is `up_for_retry`
 * rather than `failed` and the schedule is in the ledger: a runner that was
 * stopped while waiting resumes the wait instead of starting over. `runId` is
 * the attempt that failed; `attempt` is the number of the next one within the
 * retry policy (2 for the first retry) out of `maxAttempts` (retries + 1).
 */
export const RetryScheduled = z.object({
  type: z.literal('RetryScheduled'),
  schemaVersion: z.literal(1),
  data: z.object({
    ...RunRef,
    attempt: z.number().int().min(2),
    maxAttempts: z.number().int().min(2),
    /** When the next attempt may start (the ledger's clock at the failure plus the delay). */
    nextAt: Instant,
    delayMs: z.number().int().nonnegative(),
  }),
});
export type RetryScheduled = PlainRetryScheduled;
true satisfies Equals<RetryScheduled, z.infer<typeof RetryScheduled>>;
