import { describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { assertZone, formatInstant, zoneClock } from '../../src/timetable/zoned-time.js';

const HOUR = 3_600_000;

describe('offsets come from the zone rules', () => {
  test.each([
    { label: 'New York winter', zone: 'America/New_York', at: '2026-01-15T12:00:00Z', hours: -5 },
    { label: 'New York summer', zone: 'America/New_York', at: '2026-07-15T12:00:00Z', hours: -4 },
    { label: 'New York one second before spring forward', zone: 'America/New_York', at: '2026-03-08T06:59:59Z', hours: -5 },
    { label: 'New York at spring forward', zone: 'America/New_York', at: '2026-03-08T07:00:00Z', hours: -4 },
    { label: 'New York one second before fall back', zone: 'America/New_York', at: '2026-11-01T05:59:59Z', hours: -4 },
    { label: 'New York at fall back', zone: 'America/New_York', at: '2026-11-01T06:00:00Z', hours: -5 },
    { label: 'Sydney summer (AEDT)', zone: 'Australia/Sydney', at: '2026-01-15T00:00:00Z', hours: 11 },
    { label: 'Sydney winter (AEST)', zone: 'Australia/Sydney', at: '2026-07-15T00:00:00Z', hours: 10 },
    { label: 'Jakarta has no DST', zone: 'Asia/Jakarta', at: '2026-07-15T00:00:00Z', hours: 7 },
    { label: 'Kolkata half hour', zone: 'Asia/Kolkata', at: '2026-07-15T00:00:00Z', hours: 5.5 },
    { label: 'UTC', zone: 'UTC', at: '2026-07-15T00:00:00Z', hours: 0 },
  ])('$label: $hours h', ({ zone, at, hours }) => {
    expect(zoneClock(zone).offsetAt(Date.parse(at))).toBe(hours * HOUR);
  });
});

describe('wall times resolve to instants by the S16 rules', () => {
  test.each([
    {
      label: 'an ordinary time has one instant',
      zone: 'America/New_York', wall: [2026, 3, 7, 2, 30], instants: ['2026-03-07T07:30:00Z'], gap: false,
    },
    {
      label: 'New York 02:30 in the spring gap shifts forward to 03:30 EDT',
      zone: 'America/New_York', wall: [2026, 3, 8, 2, 30], instants: ['2026-03-08T07:30:00Z'], gap: true,
    },
    {
      label: 'New York 01:30 on fall-back day has both occurrences',
      zone: 'America/New_York', wall: [2026, 11, 1, 1, 30], instants: ['2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z'], gap: false,
    },
    {
      label: 'Sydney 02:30 at spring forward (2026-10-04) shifts to 03:30 AEDT',
      zone: 'Australia/Sydney', wall: [2026, 10, 4, 2, 30], instants: ['2026-10-03T16:30:00Z'], gap: true,
    },
    {
      label: 'Sydney 02:30 at fall back (2026-04-05) happens twice',
      zone: 'Australia/Sydney', wall: [2026, 4, 5, 2, 30], instants: ['2026-04-04T15:30:00Z', '2026-04-04T16:30:00Z'], gap: false,
    },
  ])('$label', ({ zone, wall, instants, gap }) => {
    const [y = 0, mo = 1, d = 1, h = 0, mi = 0] = wall;
    const resolved = zoneClock(zone).resolveWall(Date.UTC(y, mo - 1, d, h, mi));
    expect(resolved).toEqual({ instants: instants.map((text) => Date.parse(text)), gap });
  });
});

describe('formatInstant writes RFC 3339 with the local offset', () => {
  test.each([
    { label: 'EDT right after the gap', zone: 'America/New_York', at: '2026-03-08T07:00:00Z', text: '2026-03-08T03:00:00-04:00' },
    { label: 'first 01:30 on fall-back day', zone: 'America/New_York', at: '2026-11-01T05:30:00Z', text: '2026-11-01T01:30:00-04:00' },
    { label: 'second 01:30 on fall-back day', zone: 'America/New_York', at: '2026-11-01T06:30:00Z', text: '2026-11-01T01:30:00-05:00' },
    { label: 'positive offset', zone: 'Asia/Jakarta', at: '2026-11-01T17:00:00Z', text: '2026-11-02T00:00:00+07:00' },
    { label: 'UTC uses +00:00 like every other zone', zone: 'UTC', at: '2026-11-01T17:00:00Z', text: '2026-11-01T17:00:00+00:00' },
    { label: 'half-hour offset', zone: 'Asia/Kolkata', at: '2026-01-01T00:00:00Z', text: '2026-01-01T05:30:00+05:30' },
    { label: 'milliseconds only when non-zero', zone: 'UTC', at: '2026-01-01T00:00:00.250Z', text: '2026-01-01T00:00:00.250+00:00' },
  ])('$label: $text', ({ zone, at, text }) => {
    expect(formatInstant(Date.parse(at), zone)).toBe(text);
    expect(Date.parse(text)).toBe(Date.parse(at));
  });

  test('historic offsets with seconds still name the exact instant', () => {
    // New York local mean time was -4:56:02 until 1883.
    const ms = Date.parse('1880-06-01T12:00:00Z');
    expect(Date.parse(formatInstant(ms, 'America/New_York'))).toBe(ms);
  });
});

describe('zones are validated', () => {
  test.each([
    { label: 'unknown region', zone: 'Mars/Olympus_Mons' },
    { label: 'empty', zone: '' },
    { label: 'bare offset', zone: '+07:00' },
    { label: 'typo', zone: 'America/New_Yrok' },
  ])('$label is refused: "$zone"', ({ zone }) => {
    expect(() => assertZone(zone)).toThrow(LedgerError);
    try {
      zoneClock(zone);
    } catch (error) {
      expect((error as LedgerError).code).toBe('input.unknownZone');
      expect((error as LedgerError).message).toContain(`timezone '${zone}' is not a known IANA zone`);
    }
  });

  test.each(['UTC', 'Etc/UTC', 'Asia/Jakarta', 'America/Argentina/Buenos_Aires', 'EST5EDT'])('%s is accepted', (zone) => {
    expect(() => assertZone(zone)).not.toThrow();
  });
});
