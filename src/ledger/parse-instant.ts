import { LedgerError } from '../errors.js';
import type { AsOf } from './ledger-types.js';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 instant with an offset; a bare date is refused because its zone would be a guess. */
export function parseInstant(text: string, what: string): number {
  const ms = INSTANT.test(text) && fieldsExist(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new LedgerError('input.invalidInstant', `${what} '${text}' is not an RFC 3339 instant; use e.g. 2026-11-05T01:00:00+07:00 or 2026-11-04T18:00:00Z`);
  }
  return ms;
}

/** Date.parse rolls 2026-02-30 over to 2 March and 24:00 to the next day; an instant that names no real time is refused. */
function fieldsExist(text: string): boolean {
  const [, y, mo, d, h, mi, s] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text) ?? [];
  const wall = new Date(0);
  wall.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  wall.setUTCHours(Number(h), Number(mi), Number(s ?? 0));
  const fields = [wall.getUTCFullYear(), wall.getUTCMonth() + 1, wall.getUTCDate(), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds()];
  return fields.join() === [y, mo, d, h, mi, s ?? 0].map(Number).join();
}

/** `--as-of`: a whole number is a position, anything else an instant. */
export function parseAsOf(text: string | undefined): AsOf | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return { position: Number(text) };
  return { instant: new Date(parseInstant(text, '--as-of')).toISOString() };
}
