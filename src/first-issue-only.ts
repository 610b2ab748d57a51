import type { z } from 'zod';

/**
 * Parse options that make a zod schema stop at its first issue: arrays,
 * objects and records stop before their next child once one has failed.
 * A body of 330,000 wrong items costs one issue, not 660,000 (seconds of
 * CPU and hundreds of MB), and the first issue is all an answer names.
 * `abortEarly` is the flag zod's own `validate` sets; the zod version is
 * pinned and a test checks that one issue comes back.
 *
 * @example
 * const result = StartBody.safeParse(body, FIRST_ISSUE_ONLY);
 */
export const FIRST_ISSUE_ONLY: z.core.ParseContextInternal<z.core.$ZodIssue> = { abortEarly: true };
