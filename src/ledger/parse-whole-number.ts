import { LedgerError } from '../errors.js';

/** A whole number option, at least `min`. */
export function parseWholeNumber(text: string, what: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new LedgerError('input.invalidNumber', `${what} must be a whole number of ${min} or more, not '${text}'`);
  return n;
}
