import { LedgerError } from './errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_DURATION_MS = 3650 * UNIT_MS.d;

/**
 * Parses a duration like `90s`, `30m`, `1h`, `2d` or `1h30m` to milliseconds.
 *
 * @example
 * parseDuration('1h30m', '--lease') // 5400000
 */
export function parseDuration(text: string, what: string): number {
  const parts = /^(?:\d+(?:ms|s|m|h|d))+$/.test(text.trim()) ? text.trim().match(/\d+(?:ms|s|m|h|d)/g) : null;
  if (!parts) {
    throw new LedgerError('input.invalidDuration', `${what} '${text}' is not a duration; use a number with a unit, like 90s, 30m, 1h or 2d`);
  }
  let total = 0;
  for (const part of parts) {
    const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(part) as unknown as [string, string, keyof typeof UNIT_MS];
    total += Number(amount) * UNIT_MS[unit];
  }
  return checkDurationMs(total, what, `'${text}'`);
}

/**
 * Checks a duration in milliseconds as the library receives it (`leaseMs`):
 * a whole number above zero and at most ten years.
 *
 * @example
 * checkDurationMs(3_600_000, 'leaseMs') // 3600000
 */
export function checkDurationMs(ms: number, what: string, shown = String(ms)): number {
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new LedgerError('input.invalidDuration', `${what} must be a whole number of milliseconds above zero, not ${shown}`);
  // A lease past this would make expiry instants JavaScript dates cannot hold (and no run needs ten years).
  if (ms > MAX_DURATION_MS) throw new LedgerError('input.invalidDuration', `${what} ${shown} is longer than ${MAX_DURATION_MS / UNIT_MS.d}d; use a shorter duration, like 1h or 7d`);
  return ms;
}
