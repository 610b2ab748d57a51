import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Slot } from '../../projections/slot.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { parseSchedule, type CronSchedule } from '../../src/timetable/parse-schedule.js';
import { propertyRuns } from '../support/property-runs.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const schedules = [
  '@hourly', '@daily', '@weekly', '@monthly', '0 * * * *', '30 2 * * *', '30 1 * * *', '*/15 * * * *',
  '0 */6 * * *', '15,45 2,3 * * *', '20,40 2 * * *', '0 0 * * MON-FRI', '0 0 1 * MON', 'every 15m', 'every 6h', 'every 1d',
];
// DST on both hemispheres, 30-minute DST (Lord Howe), transitions at midnight
// (Havana, Santiago), odd offsets (Kolkata, Chatham) and none at all.
const zones = [
  'UTC', 'America/New_York', 'Australia/Sydney', 'Asia/Jakarta', 'Australia/Lord_Howe',
  'Europe/London', 'America/Havana', 'America/Santiago', 'Asia/Kolkata', 'Pacific/Chatham',
];
// Transition days of those zones in 2026, so that ranges often straddle one.
const transitions = [
  '2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-04-04T16:00:00Z', '2026-10-03T16:00:00Z',
  '2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-03-08T05:00:00Z', '2026-11-01T05:00:00Z',
  '2026-04-05T03:00:00Z', '2026-09-06T04:00:00Z', '2026-04-04T14:00:00Z', '2026-09-26T14:00:00Z',
].map((text) => Date.parse(text));

const near = fc
  .tuple(fc.constantFrom(...transitions), fc.integer({ min: -3 * DAY, max: 2 * DAY }))
  .map(([transition, shift]) => transition + shift);
const anywhere = fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') });

describe('timetable invariants (fast-check)', () => {
  test('slots increase strictly, interval slots are contiguous, keys round-trip', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schedules),
        fc.constantFrom(...zones),
        fc.constantFrom('interval', 'trigger') as fc.Arbitrary<'interval' | 'trigger'>,
        fc.oneof(near, anywhere),
        fc.integer({ min: 0, max: 6 * DAY }),
        (schedule, timezone, kind, startMs, span) => {
          const tt = createTimetable({ schedule, timezone, timetable: kind, start: new Date(startMs).toISOString(), end: null });
          const slots: Slot[] = [];
          for (const slot of tt.slotsBetween(startMs, startMs + span)) {
            slots.push(slot);
            if (slots.length === 300) break;
          }
          slots.forEach((slot, i) => {
            const ms = Date.parse(slot.logicalDate);
            expect(ms).toBeGreaterThanOrEqual(startMs);
            const following = slots[i + 1];
            if (following !== undefined) {
              expect(Date.parse(following.logicalDate)).toBeGreaterThan(ms);
              if (kind === 'interval') expect(slot.dataInterval.end).toBe(following.dataInterval.start);
              expect(tt.next(slot)).toEqual(following);
            }
            if (kind === 'trigger') {
              expect([slot.dataInterval.start, slot.dataInterval.end, slot.runAfter]).toEqual([slot.logicalDate, slot.logicalDate, slot.logicalDate]);
            } else {
              expect(slot.runAfter).toBe(slot.dataInterval.end);
            }
            expect(tt.keyOf(ms)).toBe(slot.date);
            expect(tt.parseDate(slot.date)).toBe(ms);
            expect(tt.slotAt(ms)).toEqual(slot);
            expect(tt.lastDue(Date.parse(slot.runAfter))).toEqual(slot);
            expect(tt.intervalFor(ms)).toEqual(slot.dataInterval);
          });
          const keys = new Set(slots.map((slot) => slot.date));
          expect(keys.size).toBe(slots.length);
        },
      ),
      propertyRuns(100),
    );
  }, 30_000);

  test('daily schedules have exactly one slot per local date', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), near, (timezone, startMs) => {
        const tt = createTimetable({ schedule: '@daily', timezone, timetable: 'interval', start: new Date(startMs).toISOString(), end: null });
        const dates = [...tt.slotsBetween(startMs, startMs + 5 * DAY)].map((slot) => slot.date);
        expect(dates.length).toBeGreaterThanOrEqual(4);
        dates.slice(1).forEach((date, i) => {
          const previous = Date.parse(`${dates[i] ?? ''}T00:00:00Z`);
          expect(Date.parse(`${date}T00:00:00Z`) - previous).toBe(DAY);
        });
      }),
      { numRuns: 100 },
    );
  });
});

/**
 * Day fields read from first principles: the last day of a month is the one
 * whose next day is in another month; the k-th weekday is found by counting
 * that weekday's days from the 1st; the last weekday by looking a week ahead.
 */
function oracleDayMatches(schedule: CronSchedule, year: number, month: number, day: number): boolean {
  const at = (d: number): Date => new Date(Date.UTC(year, month - 1, d));
  const weekday = at(day).getUTCDay();
  const isLastDay = at(day + 1).getUTCMonth() !== month - 1;
  const dom = schedule.daysOfMonth.has[day] === true || (schedule.lastDayOfMonth && isLastDay);
  let dow: boolean;
  if (schedule.nthWeekdays === null) {
    dow = schedule.daysOfWeek.has[weekday] === true;
  } else {
    let k = 0;
    for (let d = 1; d <= day; d++) if (at(d).getUTCDay() === weekday) k += 1;
    const isLastOfKind = at(day + 7).getUTCMonth() !== month - 1;
    const wanted = schedule.nthWeekdays[weekday] ?? [];
    dow = wanted.includes(k) || (wanted.includes(-1) && isLastOfKind);
  }
  return schedule.dayMatch === 'either' ? dom || dow : dom && dow;
}

/**
 * An independent, brute-force reading of S16: list every UTC minute, read its
 * local wall time straight from Intl, then apply the rules to the cron's
 * matching wall minutes. Slow (minute by minute) but obviously right.
 */
function oracleTicks(schedule: CronSchedule, zone: string, fromMs: number, toMs: number): number[] {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
  });
  const wallOf = (ms: number): number => {
    const parts = format.formatToParts(ms);
    const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'));
  };
  const instantsByWall = new Map<number, number[]>();
  const walls: Array<[number, number]> = [];
  for (let ms = Math.floor(fromMs / MINUTE) * MINUTE - DAY; ms <= toMs + DAY; ms += MINUTE) {
    const wall = wallOf(ms);
    walls.push([ms, wall]);
    instantsByWall.set(wall, [...(instantsByWall.get(wall) ?? []), ms]);
  }
  const matches = (wall: number): boolean => {
    const date = new Date(wall);
    const day = oracleDayMatches(schedule, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
    return (
      day &&
      schedule.months.has[date.getUTCMonth() + 1] === true &&
      schedule.hours.has[date.getUTCHours()] === true &&
      schedule.minutes.has[date.getUTCMinutes()] === true
    );
  };
  const ticks = new Set<number>();
  const firstWall = walls[0]?.[1] ?? 0;
  const lastWall = walls[walls.length - 1]?.[1] ?? 0;
  for (let wall = firstWall + 2 * HOUR; wall <= lastWall - 2 * HOUR; wall += MINUTE) {
    if (!matches(wall)) continue;
    const instants = instantsByWall.get(wall) ?? [];
    if (instants.length === 0) {
      // In a gap: the offset in force just before the jump decides the shift.
      const before = walls.findIndex(([, w], i) => w < wall && (walls[i + 1]?.[1] ?? 0) > wall);
      const [ms, w] = walls[before] ?? [0, 0];
      ticks.add(wall - (w - ms));
    } else if (instants.length === 1 || schedule.everyHour) {
      instants.forEach((ms) => ticks.add(ms));
    } else {
      ticks.add(Math.max(...instants));
    }
  }
  return [...ticks].filter((ms) => ms >= fromMs && ms <= toMs).sort((a, b) => a - b);
}

describe('cron ticks agree with a brute-force reading of S16', () => {
  const crons = [
    '0 * * * *', '30 2 * * *', '30 1 * * *', '*/20 * * * *', '15,45 2,3 * * *', '20,40 2 * * *', '0 0 * * *', '0 1,3 * * *', '45 0-2 * * *',
    // Day extensions whose days are DST days somewhere: the US changes on the second Sunday of March and the
    // first of November, Europe on the last Sundays of March and October.
    '30 2 * * 0#2', '0 * * * 0#1', '30 1 * * 0L', '30 0-3 * * SUNL', '0 1 L * *', '0 0 */2 * 0', '30 2 8,L * SUN',
  ];
  const oracleZones = ['America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Havana', 'America/Santiago', 'Europe/London', 'Pacific/Chatham'];

  test('for schedules and zones around 2026 transitions', () => {
    fc.assert(
      fc.property(fc.constantFrom(...crons), fc.constantFrom(...oracleZones), near, (source, zone, fromMs) => {
        const toMs = fromMs + 2 * DAY;
        const tt = createTimetable({ schedule: source, timezone: zone, timetable: 'trigger', start: '2025-01-01', end: null });
        const actual = [...tt.slotsBetween(fromMs, toMs)].map((slot) => Date.parse(slot.logicalDate));
        expect(actual).toEqual(oracleTicks(parseSchedule(source) as CronSchedule, zone, fromMs, toMs));
      }),
      // The oracle formats every minute of four days: the costliest run of the file.
      propertyRuns(40),
    );
  }, 60_000);
});

describe('day fields agree with a day-by-day reading over years', () => {
  const dayCrons = [
    '@quarterly', '0 3 L * *', '0 0 * * 5L', '0 0 * * 1#1', '0 0 */2 * 1', '0 0 1-31/2 * MON', '0 0 15,L * *', '0 0 L 2 *',
    '0 0 * 2 1#5', '0 0 29 2 *', '0 0 31 * *', '0 0 L * 5', '0 0 * * 1#1,5L', '0 0 13 * FRI', '0 0 ? * 0#5', '0 0 1-7 * */2',
  ];
  // 2024 and 2028 are leap years; 2100 is not (a century), 2000 is.
  const dayStart = fc.oneof(
    fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2030, 11, 31) }),
    fc.integer({ min: Date.UTC(2099, 0, 1), max: Date.UTC(2100, 11, 1) }),
    fc.integer({ min: Date.UTC(1999, 10, 1), max: Date.UTC(2000, 3, 1) }),
  ).map((ms) => Math.floor(ms / DAY) * DAY);

  test('in UTC, every matching day from a random start over 400 days, and nothing else', () => {
    fc.assert(
      fc.property(fc.constantFrom(...dayCrons), dayStart, (source, fromMs) => {
        const schedule = parseSchedule(source) as CronSchedule;
        const toMs = fromMs + 400 * DAY;
        const tt = createTimetable({ schedule: source, timezone: 'UTC', timetable: 'trigger', start: '1999-01-01', end: null });
        const actual = [...tt.slotsBetween(fromMs, toMs)].map((slot) => Date.parse(slot.logicalDate));
        const expected: number[] = [];
        for (let ms = fromMs; ms <= toMs; ms += DAY) {
          const date = new Date(ms);
          if (schedule.months.has[date.getUTCMonth() + 1] !== true) continue;
          if (!oracleDayMatches(schedule, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())) continue;
          const tick = ms + (schedule.hours.values[0] ?? 0) * HOUR + (schedule.minutes.values[0] ?? 0) * MINUTE;
          if (tick <= toMs) expected.push(tick);
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  test('backwards search agrees with forwards search (lastDue is the previous tick)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...dayCrons), dayStart, fc.constantFrom(...zones), (source, fromMs, timezone) => {
        const tt = createTimetable({ schedule: source, timezone, timetable: 'trigger', start: '1999-01-01', end: null });
        const slots = [...tt.slotsBetween(fromMs, fromMs + 200 * DAY)];
        for (const slot of slots) {
          expect(tt.lastDue(Date.parse(slot.logicalDate))).toEqual(slot);
          expect(tt.lastDue(Date.parse(slot.logicalDate) - 1)?.date).not.toBe(slot.date);
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
