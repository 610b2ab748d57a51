import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countCronTicks } from '../../src/timetable/count-cron-ticks.js';
import { createCronMatcher } from '../../src/timetable/cron-matcher.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { parseSchedule, type CronSchedule } from '../../src/timetable/parse-schedule.js';
import { cronTicks, evenCronTicks, type TickSource } from '../../src/timetable/tick-source.js';
import { zoneClock } from '../../src/timetable/zoned-time.js';
import { propertyRuns } from '../support/property-runs.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Zones the tz database gives one offset for all time, spelled as `zoneClock` knows them. */
const fixedZones = ['UTC', 'Etc/UTC', 'Etc/GMT+5', 'Etc/GMT-14', 'Etc/GMT+12', 'Etc/GMT-3', 'Etc/GMT+0', 'Etc/GMT-0'];
/** Zones with transitions (DST, or a change of standard offset): never arithmetic. */
const changingZones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'Africa/Monrovia', 'Asia/Jakarta'];

const cron = (source: string): CronSchedule => parseSchedule(source) as CronSchedule;
const even = (source: string, zone: string): TickSource | undefined => evenCronTicks(createCronMatcher(cron(source)), zoneClock(zone));

/** Day fields that allow every day, in the spellings a pipeline may use. */
const everyDayFields = fc.constantFrom('* * *', '1-31 * *', '? * *', '*/1 * *', '* 1-12 *', '* JAN-DEC *', '* * 0-6', '* * 1-7', '* * SUN-SAT', '1-31 1-12 0-6');

/** A cron firing every day every `step` minutes from minute `t0` (step divides the day, t0 < step), as five fields. */
const evenCron = fc
  .tuple(fc.constantFrom(1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 480, 720, 1440), fc.nat(), fc.boolean(), everyDayFields)
  .map(([step, seed, listed, days]) => {
    const t0 = seed % step;
    if (step <= 60) {
      const minutes = listed ? Array.from({ length: 60 / step }, (_, i) => t0 + i * step).join(',') : `${t0}-59/${step}`;
      return { source: `${minutes} ${step === 60 ? '*' : '*/1'} ${days}`, stepMs: step * MINUTE };
    }
    const hours = step / 60;
    const h0 = Math.floor(t0 / 60);
    const hourField = listed ? Array.from({ length: 24 / hours }, (_, i) => h0 + i * hours).join(',') : `${h0}-23/${hours}`;
    return { source: `${t0 % 60} ${hourField} ${days}`, stepMs: step * MINUTE };
  });

/** Day fields that restrict the days: a weekday, a day of the month, `L`, `n#k`, some months. */
const someDayFields = fc.tuple(
  fc.constantFrom('*', '1-31', '1', '15', 'L', '*/2', '1-15', '?'),
  fc.constantFrom('*', '1-12', '*/3', '2', 'JAN-JUN'),
  fc.constantFrom('*', '0-6', '1-7', '1', 'MON-FRI', '5L', '1#2', 'SAT,SUN'),
).map((fields) => fields.join(' '));

/** Any cron, half of them firing every day: even and uneven steps, lists, ranges, restricted days. */
const anyCron = fc
  .tuple(
    fc.constantFrom('0', '30', '*', '*/7', '*/15', '5-59/10', '0,30', '0,20', '15,45', '59', '1-59/2', '*/25'),
    fc.constantFrom('*', '0', '2', '*/2', '*/5', '*/6', '1-23/2', '0,12', '9-17', '0-23/8', '*/7'),
    fc.oneof(everyDayFields, someDayFields),
  )
  .map((fields) => fields.join(' '));

/** Instants from 1900 to 2200, and instants a minute, a millisecond or nothing off a tick. */
const instant = fc.integer({ min: Date.parse('1900-01-01T00:00:00Z'), max: Date.parse('2200-01-01T00:00:00Z') });
const offTick = fc.constantFrom(0, 1, -1, MINUTE, -MINUTE, HOUR - 1, DAY);

/** The arithmetic answers `cronTicks`'s: after and at-or-before, at an instant and at ticks around it. */
function expectSameTicks(fast: TickSource, slow: TickSource, ms: number, off: number): void {
  expect(fast.atOrBefore(ms)).toBe(slow.atOrBefore(ms));
  expect(fast.after(ms)).toBe(slow.after(ms));
  const near = slow.atOrBefore(ms) + off;
  expect(fast.atOrBefore(near)).toBe(slow.atOrBefore(near));
  expect(fast.after(near)).toBe(slow.after(near));
}

describe('evenCronTicks: arithmetic ticks where the cron gives evenly spaced instants', () => {
  test('zones with one offset for all time say so; zones with transitions do not', () => {
    expect(zoneClock('UTC').fixedOffset).toBe(0);
    expect(zoneClock('Etc/UTC').fixedOffset).toBe(0);
    expect(zoneClock('Etc/GMT+5').fixedOffset).toBe(-5 * HOUR);
    expect(zoneClock('Etc/GMT-14').fixedOffset).toBe(14 * HOUR);
    expect(Object.is(zoneClock('Etc/GMT+0').fixedOffset, 0)).toBe(true);
    for (const zone of changingZones) expect(zoneClock(zone).fixedOffset).toBeUndefined();
  });

  test('an evenly spaced cron in a fixed zone gets the arithmetic, and answers exactly what cronTicks does', () => {
    fc.assert(
      fc.property(evenCron, fc.constantFrom(...fixedZones), instant, offTick, ({ source, stepMs }, zone, ms, off) => {
        const fast = even(source, zone);
        expect(fast?.stepMs).toBe(stepMs);
        expectSameTicks(fast as TickSource, cronTicks(cron(source), zoneClock(zone)), ms, off);
      }),
      propertyRuns(400),
    );
  }, 60_000);

  test('whatever cron and zone get the arithmetic, it answers exactly what cronTicks does', () => {
    let taken = 0;
    fc.assert(
      fc.property(anyCron, fc.constantFrom(...fixedZones, ...changingZones), instant, offTick, (source, zone, ms, off) => {
        const fast = even(source, zone);
        if (fast === undefined) return;
        taken += 1;
        expectSameTicks(fast, cronTicks(cron(source), zoneClock(zone)), ms, off);
      }),
      propertyRuns(400),
    );
    expect(taken).toBeGreaterThan(0);
  }, 60_000);

  test('countSlots by division equals the count of cronTicks per stretch of one offset', () => {
    fc.assert(
      fc.property(
        evenCron,
        fc.constantFrom(...fixedZones),
        fc.integer({ min: Date.parse('1950-01-01T00:00:00Z'), max: Date.parse('2150-01-01T00:00:00Z') }),
        fc.oneof(fc.integer({ min: -DAY, max: 3 * DAY }), fc.integer({ min: 0, max: 1000 * DAY })),
        offTick,
        ({ source }, zone, afterMs, span, off) => {
          const schedule = cron(source);
          const clock = zoneClock(zone);
          const timetable = createTimetable({ schedule: source, timezone: zone, timetable: 'interval', start: '1900-01-01T00:00:00Z', end: null });
          const lastMs = cronTicks(schedule, clock).atOrBefore(afterMs + span) + off;
          const expected = countCronTicks(createCronMatcher(schedule), clock, schedule.everyHour, afterMs, lastMs);
          expect(timetable.countSlots(afterMs, lastMs)).toBe(expected);
        },
      ),
      propertyRuns(200),
    );
  }, 60_000);

  test.each([
    ['@daily', 'Europe/Berlin', 'a zone with DST'],
    ['@hourly', 'Asia/Jakarta', 'a zone whose offset changed in its history'],
    ['@daily', 'Asia/Kolkata', 'a zone without DST today but with other offsets before'],
    ['0 0 * * 1', 'UTC', 'a weekday restriction'],
    ['0 0 1 * *', 'UTC', 'a day-of-month restriction'],
    ['@monthly', 'UTC', 'a monthly preset'],
    ['0 0 * 1-6 *', 'UTC', 'a month restriction'],
    ['0 0 L * *', 'UTC', 'the last day of the month'],
    ['0 0 1-31 * 1', 'UTC', 'every day of month OR Mondays (every day, but said by a restriction)'],
    ['*/7 * * * *', 'UTC', 'a step that does not divide the hour'],
    ['0 */5 * * *', 'UTC', 'a step that does not divide the day'],
    ['0,20 * * * *', 'UTC', 'uneven minutes'],
    ['0 9-17 * * *', 'Etc/GMT-3', 'office hours only'],
  ])('%s in %s keeps cronTicks (%s)', (source, zone) => {
    expect(even(source, zone)).toBeUndefined();
    // And the timetable built on it keeps the answers of cronTicks.
    const ticks = cronTicks(cron(source), zoneClock(zone));
    const timetable = createTimetable({ schedule: source, timezone: zone, timetable: 'trigger', start: '2020-01-01T00:00:00Z', end: null });
    for (const at of ['2026-03-29T00:30:00Z', '2026-10-25T01:30:00Z', '2026-11-05T12:00:00Z']) {
      const ms = Date.parse(at);
      expect(Date.parse(timetable.slotAtOrBefore(ms)?.logicalDate ?? '')).toBe(ticks.atOrBefore(ms));
    }
  });

  test('@daily and @hourly in UTC are arithmetic, a day and an hour apart from midnight', () => {
    const daily = even('@daily', 'UTC') as TickSource;
    expect(daily.stepMs).toBe(DAY);
    expect(daily.atOrBefore(Date.parse('2026-11-05T12:00:00Z'))).toBe(Date.parse('2026-11-05T00:00:00Z'));
    expect(daily.after(Date.parse('2026-11-05T00:00:00Z'))).toBe(Date.parse('2026-11-06T00:00:00Z'));
    expect(daily.atOrBefore(Date.parse('1969-12-31T23:59:59.999Z'))).toBe(Date.parse('1969-12-31T00:00:00Z'));
    expect(even('@hourly', 'UTC')?.stepMs).toBe(HOUR);
    // Etc/GMT-14 is UTC+14: its midnight is 10:00 UTC the day before.
    expect(even('@daily', 'Etc/GMT-14')?.atOrBefore(Date.parse('2026-11-05T12:00:00Z'))).toBe(Date.parse('2026-11-05T10:00:00Z'));
  });
});
