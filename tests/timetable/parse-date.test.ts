import { describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { parseDateText } from '../../src/timetable/parse-date.js';
import { zoneClock } from '../../src/timetable/zoned-time.js';

describe('dates and instants parse to epoch ms', () => {
  test.each([
    { label: 'date key is local midnight', zone: 'Asia/Jakarta', text: '2026-11-02', expected: '2026-11-01T17:00:00Z' },
    { label: 'date key in New York winter', zone: 'America/New_York', text: '2026-01-15', expected: '2026-01-15T05:00:00Z' },
    { label: 'RFC 3339 with Z', zone: 'Asia/Jakarta', text: '2026-11-02T00:00:00Z', expected: '2026-11-02T00:00:00Z' },
    { label: 'RFC 3339 with offset', zone: 'UTC', text: '2026-03-08T03:00:00-04:00', expected: '2026-03-08T07:00:00Z' },
    { label: 'fractional seconds', zone: 'UTC', text: '2026-03-08T03:00:00.5+01:00', expected: '2026-03-08T02:00:00.500Z' },
    { label: 'lower-case t and z', zone: 'UTC', text: '2026-03-08t03:00:00z', expected: '2026-03-08T03:00:00Z' },
    { label: 'local wall time without offset', zone: 'America/New_York', text: '2026-07-01T09:15', expected: '2026-07-01T13:15:00Z' },
    { label: 'local time in the spring gap shifts forward', zone: 'America/New_York', text: '2026-03-08T02:30', expected: '2026-03-08T07:30:00Z' },
    { label: 'ambiguous local time is the second occurrence', zone: 'America/New_York', text: '2026-11-01T01:30:00', expected: '2026-11-01T06:30:00Z' },
    { label: 'leap day', zone: 'UTC', text: '2028-02-29', expected: '2028-02-29T00:00:00Z' },
  ])('$label: $text', ({ zone, text, expected }) => {
    expect(parseDateText(text, zoneClock(zone))).toBe(Date.parse(expected));
  });
});

describe('invalid dates are refused with a one-line reason', () => {
  test.each([
    { label: '30 February', text: '2026-02-30', reason: 'February 2026 has 28 days' },
    { label: '29 February outside a leap year', text: '2026-02-29', reason: 'February 2026 has 28 days' },
    { label: 'month 13', text: '2026-13-01', reason: 'month 13 is out of range 01-12' },
    { label: 'month 00', text: '2026-00-10', reason: 'month 00 is out of range 01-12' },
    { label: '31 April', text: '2026-04-31', reason: 'April 2026 has 30 days' },
    { label: 'hour 24', text: '2026-04-01T24:00:00Z', reason: 'hour 24 is out of range 00-23' },
    { label: 'minute 60', text: '2026-04-01T10:60:00Z', reason: 'minute 60 is out of range 00-59' },
    { label: 'leap second', text: '2026-06-30T23:59:60Z', reason: 'second 60 is out of range 00-59' },
    { label: 'offset hour 24', text: '2026-04-01T10:00:00+24:00', reason: 'offset hour 24' },
    { label: 'slashes', text: '2026/04/01', reason: 'it is neither YYYY-MM-DD nor an RFC 3339 instant' },
    { label: 'no zero padding', text: '2026-4-1', reason: 'it is neither YYYY-MM-DD nor an RFC 3339 instant' },
    { label: 'garbage', text: 'yesterday', reason: 'it is neither YYYY-MM-DD nor an RFC 3339 instant' },
  ])('$label: $text', ({ text, reason }) => {
    let thrown: unknown;
    try {
      parseDateText(text, zoneClock('UTC'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LedgerError);
    const error = thrown as LedgerError;
    expect(error.code).toBe('input.invalidDate');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`'${text}' is not a valid date: ${reason}`);
    expect(error.message).not.toContain('\n');
  });
});
