import { describe, expect, test } from 'vitest';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { parseRangeEnd, parseRangeStart } from '../../src/timetable/parse-range-end.js';

const hourly = (timezone: string) => createTimetable({ schedule: '@hourly', timezone, timetable: 'interval', start: '2026-01-01', end: null });
const dayOf = (timezone: string, day: string) => {
  const tt = hourly(timezone);
  return [...tt.slotsBetween(parseRangeStart(tt, day), parseRangeEnd(tt, day))].map((slot) => slot.logicalDate);
};

describe('a bare date as a range bound on an hourly pipeline is the whole local day', () => {
  test.each([
    { label: 'New York, an ordinary day', zone: 'America/New_York', day: '2026-11-22', count: 24, first: '2026-11-22T00:00:00-05:00', last: '2026-11-22T23:00:00-05:00' },
    { label: 'New York, fall back', zone: 'America/New_York', day: '2026-11-01', count: 25, first: '2026-11-01T00:00:00-04:00', last: '2026-11-01T23:00:00-05:00' },
    { label: 'New York, spring forward', zone: 'America/New_York', day: '2026-03-08', count: 23, first: '2026-03-08T00:00:00-05:00', last: '2026-03-08T23:00:00-04:00' },
    { label: 'Havana, the day before midnight repeats', zone: 'America/Havana', day: '2026-10-31', count: 24, first: '2026-10-31T00:00:00-04:00', last: '2026-10-31T23:00:00-04:00' },
    { label: 'Havana, a day that starts with two midnights', zone: 'America/Havana', day: '2026-11-01', count: 25, first: '2026-11-01T00:00:00-04:00', last: '2026-11-01T23:00:00-05:00' },
    { label: 'Santiago, the day before a missing midnight', zone: 'America/Santiago', day: '2026-09-05', count: 24, first: '2026-09-05T00:00:00-04:00', last: '2026-09-05T23:00:00-04:00' },
    { label: 'Santiago, a day that starts at 01:00', zone: 'America/Santiago', day: '2026-09-06', count: 23, first: '2026-09-06T01:00:00-03:00', last: '2026-09-06T23:00:00-03:00' },
  ])('$label: $count slots', ({ zone, day, count, first, last }) => {
    const slots = dayOf(zone, day);
    expect(slots).toHaveLength(count);
    expect([slots[0], slots.at(-1)]).toEqual([first, last]);
  });

  test('consecutive days cover every slot exactly once, through both transitions', () => {
    for (const zone of ['America/New_York', 'America/Havana', 'America/Santiago', 'Australia/Lord_Howe']) {
      const tt = hourly(zone);
      const days = Array.from({ length: 366 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
      const joined = days.flatMap((day) => dayOf(zone, day));
      const all = [...tt.slotsBetween(parseRangeStart(tt, days[0] ?? ''), parseRangeEnd(tt, days.at(-1) ?? ''))].map((slot) => slot.logicalDate);
      expect(joined).toEqual(all);
    }
  });

  test('full instants and day-keyed pipelines keep their exact meaning', () => {
    const tt = hourly('America/New_York');
    expect(parseRangeEnd(tt, '2026-11-22T05:00:00Z')).toBe(Date.parse('2026-11-22T05:00:00Z'));
    expect(parseRangeStart(tt, '2026-11-22T05:00:00Z')).toBe(Date.parse('2026-11-22T05:00:00Z'));
    const daily = createTimetable({ schedule: '@daily', timezone: 'America/New_York', timetable: 'interval', start: '2026-01-01', end: null });
    expect(parseRangeEnd(daily, '2026-11-22')).toBe(Date.parse('2026-11-22T00:00:00-05:00'));
  });
});
