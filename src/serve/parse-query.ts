import { LedgerError } from '../errors.js';
import type { AsOf } from '../ledger/ledger-types.js';
import { parseInstant } from '../ledger/parse-instant.js';

/** A request's query string as plain strings (the last value of a repeated key). */
export function queryOf(url: string): Map<string, string> {
  // Most requests carry no query: no URL is parsed for them.
  if (!url.includes('?')) return new Map();
  const params = new URL(url, 'http://localhost').searchParams;
  const out = new Map<string, string>();
  for (const [key, value] of params) out.set(key, value);
  return out;
}

/**
 * `?as_of=`: a whole number is an event position, anything else an RFC 3339
 * instant, as the CLI's `--as-of`.
 *
 * @example
 * asOfOf(queryOf('/?as_of=12')) // { position: 12 }
 */
export function asOfOf(query: Map<string, string>): AsOf | undefined {
  const text = query.get('as_of');
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return { position: Number(text) };
  return { instant: new Date(parseInstant(text, 'as_of')).toISOString() };
}

/** An optional whole-number query parameter of at least `min`. */
export function wholeOf(query: Map<string, string>, name: string, min: number): number | undefined {
  const text = query.get(name);
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new LedgerError('input.invalidNumber', `${name} must be a whole number of at least ${min}, not '${text}'`);
  return Number(text);
}

/** Optional string parameters, only the ones given. */
export function pick<K extends string>(query: Map<string, string>, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = query.get(name);
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}
