import { jsonDepth, MAX_JSON_DEPTH } from '../../events/limits.js';
import { LedgerError } from '../errors.js';
import { READ_LIMITS, readBoundedText } from './read-bounded-file.js';

/**
 * A size in bytes: `65536`, `64KB`, `1MB` (KB and MB are 1024 and 1024², as
 * the limits are printed). The range is the caller's to check.
 *
 * @example
 * parseByteSize('256KB', '--max-metrics-bytes') // 262144
 */
export function parseByteSize(text: string, what: string): number {
  const match = /^(\d+)\s*(B|K|KB|KIB|M|MB|MIB)?$/i.exec(text.trim());
  const unit = match?.[2]?.toUpperCase().charAt(0);
  const n = match ? Number(match[1]) * (unit === 'K' ? 1024 : unit === 'M' ? 1024 * 1024 : 1) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new LedgerError('input.invalidSizeCap', `${what} must be a size in bytes such as 65536, 256KB or 1MB, not '${text}'`);
  return n;
}

/** `--metrics '{"rows": 5}'` or `--metrics @metrics.json`: a JSON object. */
export function parseMetrics(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let source = text;
  if (text.startsWith('@')) {
    // Bounded: `@/dev/zero` or a huge file must not hang or fill memory; the pipeline's own cap is checked later.
    source = readBoundedText(text.slice(1), { what: 'metrics file', maxBytes: READ_LIMITS.document, unreadable: 'input.unreadableMetrics' });
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new LedgerError('input.invalidMetrics', `--metrics is not valid JSON (${(error as Error).message}); pass an object like '{"rows": 42}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LedgerError('input.invalidMetrics', `--metrics must be a JSON object like '{"rows": 42}', not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  // Checked before the recursive walk below, which a value nested thousands deep would overflow.
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new LedgerError('input.invalidMetrics', `--metrics nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`);
  }
  const huge = findNonFinite(value, '');
  if (huge !== undefined) {
    throw new LedgerError('input.invalidMetrics', `--metrics: ${huge.replace(/^\./, '')} is a number too large for JSON (it reads as Infinity); record it as a string or in other units`);
  }
  return value as Record<string, unknown>;
}

/** The path of the first number JSON.parse turned into ±Infinity (`1e999`), which no event can hold. */
function findNonFinite(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = findNonFinite(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Commander's collector for the repeatable `--pool NAME=N` (scheduler, catchup, backfill). */
export function collectPool(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
