import { describe, expect, test } from 'vitest';
import type { Slot } from '../../projections/slot.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import type { Timetable, TimetableSpec } from '../../src/timetable/timetable.js';

const HOUR = 3_600_000;

function timetable(spec: Partial<TimetableSpec> & Pick<TimetableSpec, 'schedule' | 'timezone'>): Timetable {
  return createTimetable({ timetable: 'interval', start: '2026-01-01', end: null, ...spec });
}

/** Slots whose logical date falls on a local date (the logical date text carries local wall time). */
function slotsOnLocalDate(tt: Timetable, localDate: string): Slot[] {
  const around = tt.parseDate(localDate);
  return [...tt.slotsBetween(around - 2 * 24 * HOUR, around + 3 * 24 * HOUR)].filter((slot) =>
    slot.logicalDate.startsWith(localDate),
  );
}

function hoursOf(slot: Slot): number {
  return (Date.parse(slot.dataInterval.end) - Date.parse(slot.dataInterval.start)) / HOUR;
}

describe('S16: a daily slot on a DST day is 23 or 25 hours long, one per local date', () => {
  test.each([
    { label: 'New York, the day before spring forward', zone: 'America/New_York', date: '2026-03-07', hours: 24 },
    { label: 'New York spring forward (02:00 -> 03:00)', zone: 'America/New_York', date: '2026-03-08', hours: 23 },
    { label: 'New York fall back (02:00 -> 01:00)', zone: 'America/New_York', date: '2026-11-01', hours: 25 },
    { label: 'Sydney DST ends (03:00 -> 02:00)', zone: 'Australia/Sydney', date: '2026-04-05', hours: 25 },
    { label: 'Sydney DST starts (02:00 -> 03:00)', zone: 'Australia/Sydney', date: '2026-10-04', hours: 23 },
    { label: 'Jakarta never changes', zone: 'Asia/Jakarta', date: '2026-03-08', hours: 24 },
  ])('$label: $date is $hours h', ({ zone, date, hours }) => {
    const tt = timetable({ schedule: '@daily', timezone: zone, start: '2026-03-07' });
    const slots = slotsOnLocalDate(tt, date);
    expect(slots).toHaveLength(1);
    const [slot] = slots as [Slot];
    expect(slot.date).toBe(date);
    expect(hoursOf(slot)).toBe(hours);
    expect(slot.runAfter).toBe(slot.dataInterval.end);
  });

  test('New York @daily from 2026-03-07: exact data intervals around both transitions', () => {
    const tt = timetable({ schedule: '@daily', timezone: 'America/New_York', start: '2026-03-07' });
    expect(tt.slotAt(tt.parseDate('2026-03-08'))?.dataInterval).toEqual({
      start: '2026-03-08T00:00:00-05:00',
      end: '2026-03-09T00:00:00-04:00',
    });
    expect(tt.slotAt(tt.parseDate('2026-11-01'))?.dataInterval).toEqual({
      start: '2026-11-01T00:00:00-04:00',
      end: '2026-11-02T00:00:00-05:00',
    });
  });
});

describe('S16: an hourly cron fires in both repeated hours and skips the missing one', () => {
  test.each([
    { label: 'New York spring forward', zone: 'America/New_York', date: '2026-03-08', count: 23 },
    { label: 'New York fall back', zone: 'America/New_York', date: '2026-11-01', count: 25 },
    { label: 'New York ordinary day', zone: 'America/New_York', date: '2026-03-09', count: 24 },
    { label: 'Sydney DST ends', zone: 'Australia/Sydney', date: '2026-04-05', count: 25 },
    { label: 'Sydney DST starts', zone: 'Australia/Sydney', date: '2026-10-04', count: 23 },
  ])('$label: 0 * * * * has $count slots on $date', ({ zone, date, count }) => {
    for (const kind of ['interval', 'trigger'] as const) {
      const tt = timetable({ schedule: '0 * * * *', timezone: zone, timetable: kind });
      const slots = slotsOnLocalDate(tt, date);
      expect(slots, kind).toHaveLength(count);
      const instants = slots.map((slot) => Date.parse(slot.logicalDate));
      // Hourly means every slot is exactly one hour apart, DST or not.
      instants.slice(1).forEach((ms, i) => expect(ms - (instants[i] ?? 0)).toBe(HOUR));
    }
  });

  test('New York 2026-11-01 has both 01:00s, EDT first', () => {
    const tt = timetable({ schedule: '0 * * * *', timezone: 'America/New_York' });
    const keys = slotsOnLocalDate(tt, '2026-11-01').map((slot) => slot.date);
    expect(keys.slice(0, 4)).toEqual([
      '2026-11-01T00:00:00-04:00',
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T02:00:00-05:00',
    ]);
  });

  test('New York 2026-03-08 goes from 01:00 EST straight to 03:00 EDT', () => {
    const tt = timetable({ schedule: '@hourly', timezone: 'America/New_York' });
    const keys = slotsOnLocalDate(tt, '2026-03-08').map((slot) => slot.date);
    expect(keys.slice(0, 3)).toEqual(['2026-03-08T00:00:00-05:00', '2026-03-08T01:00:00-05:00', '2026-03-08T03:00:00-04:00']);
  });

  test('a half-hourly cron also fires in both repeated hours (Paris 2025-10-26)', () => {
    const tt = timetable({ schedule: '*/30 * * * *', timezone: 'Europe/Paris', start: '2025-10-25' });
    const keys = slotsOnLocalDate(tt, '2025-10-26').map((slot) => slot.date);
    expect(keys).toHaveLength(50);
    expect(keys.slice(4, 10)).toEqual([
      '2025-10-26T02:00:00+02:00',
      '2025-10-26T02:30:00+02:00',
      '2025-10-26T02:00:00+01:00',
      '2025-10-26T02:30:00+01:00',
      '2025-10-26T03:00:00+01:00',
      '2025-10-26T03:30:00+01:00',
    ]);
  });
});

describe('S16: a missing local time shifts forward by the gap; an ambiguous one fires once, the second time', () => {
  test.each([
    {
      label: 'New York 02:30 on spring-forward day fires at 03:30 EDT',
      zone: 'America/New_York', schedule: '30 2 * * *', date: '2026-03-08', fires: ['2026-03-08T03:30:00-04:00'],
    },
    {
      label: 'New York 01:30 on fall-back day fires once, at 01:30 EST',
      zone: 'America/New_York', schedule: '30 1 * * *', date: '2026-11-01', fires: ['2026-11-01T01:30:00-05:00'],
    },
    {
      label: 'Sydney 02:30 on DST start fires at 03:30 AEDT',
      zone: 'Australia/Sydney', schedule: '30 2 * * *', date: '2026-10-04', fires: ['2026-10-04T03:30:00+11:00'],
    },
    {
      label: 'Sydney 02:30 on DST end fires once, at 02:30 AEST',
      zone: 'Australia/Sydney', schedule: '30 2 * * *', date: '2026-04-05', fires: ['2026-04-05T02:30:00+10:00'],
    },
    {
      label: 'a shifted gap time collapses into the real tick it lands on',
      zone: 'America/New_York', schedule: '30 2,3 * * *', date: '2026-03-08', fires: ['2026-03-08T03:30:00-04:00'],
    },
    {
      label: 'shifted gap times merge with real ones without duplicates',
      zone: 'America/New_York', schedule: '15,45 2,3 * * *', date: '2026-03-08',
      fires: ['2026-03-08T03:15:00-04:00', '2026-03-08T03:45:00-04:00'],
    },
    {
      label: 'a shifted gap time that lands after a real tick is ordered by instant (Lord Howe 30-minute gap)',
      zone: 'Australia/Lord_Howe', schedule: '20,40 2 * * *', date: '2026-10-04',
      fires: ['2026-10-04T02:40:00+11:00', '2026-10-04T02:50:00+11:00'],
    },
    {
      label: 'odd hours are not every hour: the repeated 01:00 fires once (EST)',
      zone: 'America/New_York', schedule: '0 1,3 * * *', date: '2026-11-01',
      fires: ['2026-11-01T01:00:00-05:00', '2026-11-01T03:00:00-05:00'],
    },
    {
      label: 'midnight in a midnight gap (Havana 2026-03-08) shifts to 01:00',
      zone: 'America/Havana', schedule: '@daily', date: '2026-03-08', fires: ['2026-03-08T01:00:00-04:00'],
    },
  ])('$label', ({ zone, schedule, date, fires }) => {
    for (const kind of ['interval', 'trigger'] as const) {
      const tt = timetable({ schedule, timezone: zone, timetable: kind });
      const slots = slotsOnLocalDate(tt, date);
      expect(slots.map((slot) => slot.logicalDate), kind).toEqual(fires);
      const [onlyOrFirst] = slots;
      if (kind === 'trigger' && onlyOrFirst !== undefined) expect(onlyOrFirst.runAfter).toBe(onlyOrFirst.logicalDate);
    }
  });
});

describe('S16: a fixed duration keeps absolute spacing across DST', () => {
  test.each([
    {
      label: 'New York spring forward',
      start: '2026-03-07T18:00:00-05:00',
      keys: ['2026-03-07T18:00:00-05:00', '2026-03-08T00:00:00-05:00', '2026-03-08T07:00:00-04:00', '2026-03-08T13:00:00-04:00'],
    },
    {
      label: 'New York fall back',
      start: '2026-10-31T18:00:00-04:00',
      keys: ['2026-10-31T18:00:00-04:00', '2026-11-01T00:00:00-04:00', '2026-11-01T05:00:00-05:00', '2026-11-01T11:00:00-05:00'],
    },
  ])('$label: every 6h', ({ start, keys }) => {
    const tt = timetable({ schedule: 'every 6h', timezone: 'America/New_York', start });
    const slots = [...tt.slotsBetween(0, Date.parse(start) + 18 * HOUR)];
    expect(slots.map((slot) => slot.date)).toEqual(keys);
    for (const slot of slots) expect(hoursOf(slot)).toBe(6);
    expect(tt.dailyKeys).toBe(false);
  });

  test('every 1d drifts off local midnight after spring forward instead of bending', () => {
    const tt = timetable({ schedule: 'every 1d', timezone: 'America/New_York', start: '2026-03-07' });
    expect([...tt.slotsBetween(0, tt.parseDate('2026-03-10'))].map((slot) => slot.date)).toEqual([
      '2026-03-07T00:00:00-05:00',
      '2026-03-08T00:00:00-05:00',
      '2026-03-09T01:00:00-04:00',
    ]);
  });
});

describe('Airflow day extensions on DST days (L, nL, n#k, @quarterly)', () => {
  const logicalDates = (schedule: string, zone: string, from: string, to: string): string[] => {
    const tt = timetable({ schedule, timezone: zone, start: '2026-01-01', timetable: 'trigger' });
    return [...tt.slotsBetween(tt.parseDate(from), tt.parseDate(to))].map((slot) => slot.logicalDate);
  };

  test.each([
    {
      label: 'the second Sunday at 02:30 in New York falls in the spring-forward gap: shifted to 03:30 EDT',
      schedule: '30 2 * * 0#2', zone: 'America/New_York', from: '2026-02-01', to: '2026-04-30',
      expected: ['2026-02-08T02:30:00-05:00', '2026-03-08T03:30:00-04:00', '2026-04-12T02:30:00-04:00'],
    },
    {
      label: 'the first Sunday of November at 01:30 in New York is ambiguous: its second (EST) occurrence',
      schedule: '30 1 * * SUN#1', zone: 'America/New_York', from: '2026-10-01', to: '2026-12-31',
      expected: ['2026-10-04T01:30:00-04:00', '2026-11-01T01:30:00-05:00', '2026-12-06T01:30:00-05:00'],
    },
    {
      label: 'the last Sunday at 01:30 in London: the March gap shifts it, the October repeat takes the later one',
      schedule: '30 1 * * 0L', zone: 'Europe/London', from: '2026-03-01', to: '2026-10-31',
      expected: [
        '2026-03-29T02:30:00+01:00', '2026-04-26T01:30:00+01:00', '2026-05-31T01:30:00+01:00', '2026-06-28T01:30:00+01:00',
        '2026-07-26T01:30:00+01:00', '2026-08-30T01:30:00+01:00', '2026-09-27T01:30:00+01:00', '2026-10-25T01:30:00+00:00',
      ],
    },
    {
      label: 'the last day of the month at 03:00 in New York, 2028 (a leap year)',
      schedule: '0 3 L * *', zone: 'America/New_York', from: '2028-01-01', to: '2028-05-01',
      expected: ['2028-01-31T03:00:00-05:00', '2028-02-29T03:00:00-05:00', '2028-03-31T03:00:00-04:00', '2028-04-30T03:00:00-04:00'],
    },
    {
      label: '@quarterly in New York crosses both transitions at local midnight',
      schedule: '@quarterly', zone: 'America/New_York', from: '2026-01-01', to: '2026-12-31',
      expected: ['2026-01-01T00:00:00-05:00', '2026-04-01T00:00:00-04:00', '2026-07-01T00:00:00-04:00', '2026-10-01T00:00:00-04:00'],
    },
    {
      label: 'odd days OR Mondays (croniter), not odd Mondays (Vixie)',
      schedule: '0 0 */2 * 1', zone: 'America/New_York', from: '2026-11-01', to: '2026-11-10',
      expected: ['2026-11-01T00:00:00-04:00', '2026-11-02T00:00:00-05:00', '2026-11-03T00:00:00-05:00', '2026-11-05T00:00:00-05:00', '2026-11-07T00:00:00-05:00', '2026-11-09T00:00:00-05:00'],
    },
    {
      label: 'hourly on the first Sunday of November in New York: 25 slots that day',
      schedule: '0 * * * 0#1', zone: 'America/New_York', from: '2026-11-01', to: '2026-11-01T23:59:00-05:00',
      expected: Array.from({ length: 25 }, (_, i) => new Date(Date.parse('2026-11-01T04:00:00Z') + i * HOUR).toISOString()),
    },
  ])('$label', ({ schedule, zone, from, to, expected }) => {
    const actual = logicalDates(schedule, zone, from, to);
    expect(actual.map((text) => Date.parse(text))).toEqual(expected.map((text) => Date.parse(text)));
    if (!expected[0]?.endsWith('Z')) expect(actual).toEqual(expected);
  });
});
