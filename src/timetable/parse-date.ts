import { LedgerError } from '../errors.js';
import { utcFromFields, type ZoneClock } from './zoned-time.js';

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:\d{2})?)?$/;
const MONTH_NAMES = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

function invalid(text: string, problem: string, zone: string): LedgerError {
  return new LedgerError(
    'input.invalidDate',
    `'${text}' is not a valid date: ${problem}; use YYYY-MM-DD (local midnight in ${zone}) or an RFC 3339 instant like 2026-03-08T03:00:00-04:00`,
  );
}

function checkRange(text: string, zone: string, name: string, value: number, min: number, max: number): void {
  if (value < min || value > max) {
    throw invalid(text, `${name} ${String(value).padStart(2, '0')} is out of range ${String(min).padStart(2, '0')}-${max}`, zone);
  }
}

/**
 * Parses `YYYY-MM-DD` (local midnight in the zone), an RFC 3339 instant (`Z` or
 * an offset), or `YYYY-MM-DDTHH:MM[:SS]` without offset (local wall time) to
 * epoch ms. Local wall times: a time in a spring-forward gap is shifted
 * forward by the gap, an ambiguous one is its second occurrence, the same rule
 * cron ticks use, so a daily key always parses back to its slot.
 * Throws `LedgerError('input.invalidDate')` with a one-line reason.
 *
 * @example
 * parseDateText('2026-11-02', zoneClock('Asia/Jakarta')); // Date.parse('2026-11-02T00:00:00+07:00')
 * parseDateText('2026-02-30', zoneClock('UTC')); // throws: February 2026 has 28 days
 */
export function parseDateText(text: string, clock: ZoneClock): number {
  const zone = clock.zone;
  const match = PATTERN.exec(text.trim());
  if (match === null) throw invalid(text, 'it is neither YYYY-MM-DD nor an RFC 3339 instant', zone);
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, offsetText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  checkRange(text, zone, 'month', month, 1, 12);
  const daysInMonth = new Date(utcFromFields(year, month + 1, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) {
    throw invalid(text, `${MONTH_NAMES[month - 1] ?? 'that month'} ${year} has ${daysInMonth} days`, zone);
  }
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  const second = Number(secondText ?? 0);
  checkRange(text, zone, 'hour', hour, 0, 23);
  checkRange(text, zone, 'minute', minute, 0, 59);
  // Leap seconds (:60) cannot be represented in epoch ms.
  checkRange(text, zone, 'second', second, 0, 59);
  const millis = fractionText === undefined ? 0 : Number(fractionText.padEnd(3, '0').slice(0, 3));
  const wall = utcFromFields(year, month, day, hour, minute, second) + millis;
  if (offsetText === undefined) {
    const { instants } = clock.resolveWall(wall);
    const instant = instants[instants.length - 1];
    if (instant === undefined) throw new Error(`resolveWall returned nothing for ${text}`);
    return instant;
  }
  if (offsetText === 'Z' || offsetText === 'z') return wall;
  const sign = offsetText.startsWith('-') ? -1 : 1;
  const offsetHours = Number(offsetText.slice(1, 3));
  const offsetMinutes = Number(offsetText.slice(4, 6));
  checkRange(text, zone, 'offset hour', offsetHours, 0, 23);
  checkRange(text, zone, 'offset minute', offsetMinutes, 0, 59);
  return wall - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}
