import { describe, expect, test } from 'vitest';
import { createCronMatcher } from '../../src/timetable/cron-matcher.js';
import { parseSchedule } from '../../src/timetable/parse-schedule.js';
import { SlotCursor } from '../../src/timetable/slot-cursor.js';
import { cronTicks, fixedTicks, type TickSource } from '../../src/timetable/tick-source.js';
import { formatInstant, formatWallDate, instantFormatter, zoneClock } from '../../src/timetable/zoned-time.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * Rows start a few days before a transition (or a stretch of odd offsets) and
 * walk past it, so the cursor steps in UTC, falls back to `ticks.after` around
 * the transition and steps in UTC again with the new offset.
 */
const rows = [
  { label: 'Berlin spring forward, hourly', zone: 'Europe/Berlin', schedule: '@hourly', from: '2026-03-26T00:00:00Z' },
  { label: 'Berlin fall back, hourly (both 02:00s fire)', zone: 'Europe/Berlin', schedule: '@hourly', from: '2026-10-22T00:00:00Z' },
  { label: 'New York fall back, 01:30 daily (fires once)', zone: 'America/New_York', schedule: '30 1 * * *', from: '2026-10-28T00:00:00Z' },
  { label: 'New York spring forward, 02:30 daily (shifted by the gap)', zone: 'America/New_York', schedule: '30 2 * * *', from: '2026-03-04T00:00:00Z' },
  { label: 'Sydney (south) DST starts, every 15 minutes', zone: 'Australia/Sydney', schedule: '*/15 * * * *', from: '2026-10-01T00:00:00Z' },
  { label: 'Sydney (south) DST ends, daily', zone: 'Australia/Sydney', schedule: '@daily', from: '2026-04-01T00:00:00Z' },
  { label: 'Santiago (south) DST ends at midnight, daily', zone: 'America/Santiago', schedule: '@daily', from: '2026-04-01T00:00:00Z' },
  { label: 'Santiago (south) DST starts at midnight, hourly', zone: 'America/Santiago', schedule: '@hourly', from: '2026-09-03T00:00:00Z' },
  { label: 'Lord Howe 30-minute DST starts, hourly', zone: 'Australia/Lord_Howe', schedule: '@hourly', from: '2026-09-30T00:00:00Z' },
  { label: 'Lord Howe 30-minute DST ends, 01:45 daily', zone: 'Australia/Lord_Howe', schedule: '45 1 * * *', from: '2026-04-01T00:00:00Z' },
  { label: 'Chatham +12:45/+13:45 DST starts, hourly', zone: 'Pacific/Chatham', schedule: '@hourly', from: '2026-09-23T00:00:00Z' },
  { label: 'Chatham +13:45 DST ends, 2,3 o\'clock at 15 and 45', zone: 'Pacific/Chatham', schedule: '15,45 2,3 * * *', from: '2026-04-01T00:00:00Z' },
  { label: 'Kathmandu +05:45 (no DST), hourly', zone: 'Asia/Kathmandu', schedule: '@hourly', from: '2026-03-01T00:00:00Z' },
  { label: 'Kathmandu leaves +05:30 for +05:45 (1986)', zone: 'Asia/Kathmandu', schedule: '@hourly', from: '1985-12-29T00:00:00Z' },
  { label: 'Kolkata +05:30, weekdays at midnight', zone: 'Asia/Kolkata', schedule: '0 0 * * MON-FRI', from: '2026-03-01T00:00:00Z' },
  { label: 'Adelaide (south) +09:30/+10:30, every 6 hours', zone: 'Australia/Adelaide', schedule: '0 */6 * * *', from: '2026-10-01T00:00:00Z' },
  { label: 'Havana DST at midnight, monthly on the last day', zone: 'America/Havana', schedule: '0 0 L * *', from: '2026-01-20T00:00:00Z', days: 120 },
  { label: 'Apia skips 2011-12-30 (a 24-hour jump), daily', zone: 'Pacific/Apia', schedule: '@daily', from: '2011-12-25T00:00:00Z' },
  { label: 'Monrovia LMT offset with seconds (-00:44:30), hourly', zone: 'Africa/Monrovia', schedule: '@hourly', from: '1971-12-28T00:00:00Z' },
  { label: 'Berlin spring forward, every 90 minutes (fixed)', zone: 'Europe/Berlin', schedule: 'every 90m', from: '2026-03-26T00:00:00Z' },
  { label: 'UTC, daily across a leap day', zone: 'UTC', schedule: '@daily', from: '2028-02-25T00:00:00Z' },
];

describe('SlotCursor walks the ticks of ticks.after and writes the text of formatInstant', () => {
  test.each(rows)('$label', ({ zone, schedule: source, from, days = 12 }) => {
    const schedule = parseSchedule(source);
    const clock = zoneClock(zone);
    const startMs = Date.parse(from);
    const ticks: TickSource = schedule.kind === 'cron' ? cronTicks(schedule, clock) : fixedTicks(schedule.stepMs, startMs);
    const cursor = new SlotCursor(schedule.kind === 'cron' ? createCronMatcher(schedule) : null, ticks, clock, instantFormatter(clock));
    const endMs = startMs + days * DAY;
    let expected = ticks.after(startMs - 1);
    let steps = 0;
    for (cursor.moveTo(expected); cursor.tick <= endMs; cursor.advance()) {
      expect(cursor.tick).toBe(expected);
      expect(cursor.text).toBe(formatInstant(expected, zone));
      expect(cursor.day).toBe(formatWallDate(clock.wallOf(expected)));
      expected = ticks.after(expected);
      steps += 1;
    }
    expect(steps).toBeGreaterThan(2);
  });

  test('a cursor moved back to an earlier tick walks from there again', () => {
    const schedule = parseSchedule('@hourly');
    const clock = zoneClock('Europe/Berlin');
    if (schedule.kind !== 'cron') throw new Error('cron expected');
    const ticks = cronTicks(schedule, clock);
    const cursor = new SlotCursor(createCronMatcher(schedule), ticks, clock, instantFormatter(clock));
    const late = Date.parse('2026-10-30T00:00:00Z');
    for (cursor.moveTo(late); cursor.tick < late + 3 * DAY; cursor.advance());
    const early = Date.parse('2026-03-28T23:00:00Z');
    cursor.moveTo(early);
    const texts: string[] = [];
    for (let i = 0; i < 4; i++, cursor.advance()) texts.push(cursor.text);
    expect(texts).toEqual(['2026-03-29T00:00:00+01:00', '2026-03-29T01:00:00+01:00', '2026-03-29T03:00:00+02:00', '2026-03-29T04:00:00+02:00']);
    expect(cursor.tick).toBe(early + 4 * HOUR);
  });
});

/** The first wall minute at or after `wall` (or, backwards, at or before) matching, read field by field. */
function scanMatch(source: string, wall: number, direction: 1 | -1): number {
  const schedule = parseSchedule(source);
  if (schedule.kind !== 'cron') throw new Error('cron expected');
  let minute = direction === 1 ? Math.ceil(wall / 60_000) * 60_000 : Math.floor(wall / 60_000) * 60_000;
  for (;; minute += direction * 60_000) {
    const date = new Date(minute);
    // `+ 0`: Math.ceil of a small negative wall is -0, the matcher's arithmetic gives 0.
    if (schedule.hours.has[date.getUTCHours()] === true && schedule.minutes.has[date.getUTCMinutes()] === true) return minute + 0;
  }
}

describe('cron matching of schedules that fire every day is day arithmetic', () => {
  const walls = [
    { label: 'mid-day', wall: Date.UTC(2026, 2, 8, 12, 7, 30) },
    { label: 'exactly on a match', wall: Date.UTC(2026, 2, 8, 2, 30) },
    { label: 'one ms after midnight', wall: Date.UTC(2026, 5, 30, 0, 0, 0, 1) },
    { label: 'the last minute of a year', wall: Date.UTC(2026, 11, 31, 23, 59, 59) },
    { label: 'a leap day', wall: Date.UTC(2028, 1, 29, 23, 50) },
    { label: 'before 1970 (negative walls)', wall: Date.UTC(1969, 11, 31, 23, 59, 30) },
    { label: 'year 0045', wall: Date.UTC(2000, 0, 1) - 1955 * 365.2425 * DAY },
  ];
  const schedules = ['@hourly', '@daily', '30 2 * * *', '*/15 * * * *', '15,45 2,3 * * *', '59 23 * * *', '0 0,12 * * *', '* * * * *'];
  const table = schedules.flatMap((source) => walls.map((row) => ({ ...row, source })));

  test.each(table)('$source from $label', ({ source, wall }) => {
    const schedule = parseSchedule(source);
    if (schedule.kind !== 'cron') throw new Error('cron expected');
    const matcher = createCronMatcher(schedule);
    expect(matcher.everyDay).toBe(true);
    expect(matcher.nextAtOrAfter(wall)).toBe(scanMatch(source, wall, 1));
    expect(matcher.prevAtOrBefore(wall)).toBe(scanMatch(source, wall, -1));
  });

  test('schedules restricted by day are not every-day', () => {
    for (const source of ['@weekly', '@monthly', '0 0 * * MON-FRI', '0 0 L * *', '0 0 * 2 *', '0 0 * * 0#2']) {
      const schedule = parseSchedule(source);
      if (schedule.kind !== 'cron') throw new Error('cron expected');
      expect(createCronMatcher(schedule).everyDay).toBe(false);
    }
  });
});
