import { describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { parseSchedule, type CronSchedule } from '../../src/timetable/parse-schedule.js';

function cron(source: string): CronSchedule {
  const schedule = parseSchedule(source);
  if (schedule.kind !== 'cron') throw new Error(`expected a cron for ${source}`);
  return schedule;
}

function fields(source: string): string {
  const s = cron(source);
  return [s.minutes, s.hours, s.daysOfMonth, s.months, s.daysOfWeek].map((f) => f.values.join(',')).join(' | ');
}

const allHours = Array.from({ length: 24 }, (_, i) => i).join(',');
const allDays = Array.from({ length: 31 }, (_, i) => i + 1).join(',');
const allMonths = '1,2,3,4,5,6,7,8,9,10,11,12';
const allWeekdays = '0,1,2,3,4,5,6';

describe('presets expand to their cron', () => {
  test.each([
    { label: '@hourly', source: '@hourly', expected: `0 | ${allHours} | ${allDays} | ${allMonths} | ${allWeekdays}` },
    { label: '@daily', source: '@daily', expected: `0 | 0 | ${allDays} | ${allMonths} | ${allWeekdays}` },
    { label: '@midnight is @daily', source: '@midnight', expected: `0 | 0 | ${allDays} | ${allMonths} | ${allWeekdays}` },
    { label: '@weekly is Sunday midnight', source: '@weekly', expected: `0 | 0 | ${allDays} | ${allMonths} | 0` },
    { label: '@monthly', source: '@monthly', expected: `0 | 0 | 1 | ${allMonths} | ${allWeekdays}` },
    { label: '@yearly', source: '@yearly', expected: `0 | 0 | 1 | 1 | ${allWeekdays}` },
    { label: '@annually is @yearly', source: '@annually', expected: `0 | 0 | 1 | 1 | ${allWeekdays}` },
    { label: 'presets ignore case', source: '@DAILY', expected: `0 | 0 | ${allDays} | ${allMonths} | ${allWeekdays}` },
  ])('$label', ({ source, expected }) => {
    expect(fields(source)).toBe(expected);
  });
});

describe('five-field cron expands ranges, steps, lists and names', () => {
  test.each([
    { label: 'step over all minutes', source: '*/15 * * * *', field: 0, expected: '0,15,30,45' },
    { label: 'list', source: '1,15 * * * *', field: 0, expected: '1,15' },
    { label: 'stepped range', source: '0-30/10 * * * *', field: 0, expected: '0,10,20,30' },
    { label: 'start with step runs to the end', source: '5/20 * * * *', field: 0, expected: '5,25,45' },
    { label: 'hour range', source: '0 9-17 * * *', field: 1, expected: '9,10,11,12,13,14,15,16,17' },
    { label: 'month name', source: '0 0 1 JAN *', field: 3, expected: '1' },
    { label: 'month name range, any case', source: '0 0 1 mar-may *', field: 3, expected: '3,4,5' },
    { label: 'weekday name range', source: '0 0 * * MON-FRI', field: 4, expected: '1,2,3,4,5' },
    { label: '7 is Sunday', source: '0 0 * * 7', field: 4, expected: '0' },
    { label: 'range ending at 7 folds into Sunday', source: '0 0 * * 5-7', field: 4, expected: '0,5,6' },
    { label: 'weekday step', source: '0 0 * * */2', field: 4, expected: '0,2,4,6' },
    { label: 'mixed list of ranges and names', source: '0 0 * * SUN,3-4', field: 4, expected: '0,3,4' },
    { label: 'tabs and repeated spaces separate fields', source: '0\t6  * * *', field: 1, expected: '6' },
  ])('$label: $source', ({ source, field, expected }) => {
    expect(fields(source).split(' | ')[field]).toBe(expected);
  });

  test.each([
    { label: 'both day fields restricted: either matches', source: '0 0 1 * MON', dayMatch: 'either' },
    { label: 'weekday is *: day-of-month decides', source: '0 0 1 * *', dayMatch: 'both' },
    { label: 'day-of-month is *: weekday decides', source: '0 0 * * MON', dayMatch: 'both' },
    { label: 'a stepped star is restricted (croniter, not Vixie)', source: '0 0 */2 * MON', dayMatch: 'either' },
    { label: 'a stepped range is restricted', source: '0 0 1-31/2 * 1', dayMatch: 'either' },
    { label: 'a stepped star weekday is restricted', source: '0 0 15 * */2', dayMatch: 'either' },
    { label: 'every weekday, with a star in day-of-month: unrestricted', source: '0 0 */2 * 0-6', dayMatch: 'both' },
    { label: 'every day, with a star in day-of-week: unrestricted', source: '0 0 1-31 * */2', dayMatch: 'both' },
    { label: 'every day, no star in day-of-week: restricted (croniter)', source: '0 0 1-31 * 1', dayMatch: 'either' },
    { label: '? is *', source: '0 0 ? * MON', dayMatch: 'both' },
    { label: 'L and a weekday', source: '0 0 L * 5', dayMatch: 'either' },
    { label: 'L and *', source: '0 0 L * *', dayMatch: 'both' },
    { label: 'n#k and *', source: '0 0 * * 1#1', dayMatch: 'both' },
  ])('$label', ({ source, dayMatch }) => {
    expect(cron(source).dayMatch).toBe(dayMatch);
  });

  test.each([
    { label: 'hour *', source: '0 * * * *', everyHour: true },
    { label: 'step 1 over hours', source: '0 */1 * * *', everyHour: true },
    { label: 'full hour range', source: '30 0-23 * * *', everyHour: true },
    { label: 'every second hour', source: '0 */2 * * *', everyHour: false },
    { label: 'fixed hour', source: '30 1 * * *', everyHour: false },
  ])('$label fires every hour: $everyHour', ({ source, everyHour }) => {
    expect(cron(source).everyHour).toBe(everyHour);
  });
});

describe('Quartz-style day extensions, as Airflow accepts them', () => {
  test.each([
    { label: 'L alone', source: '0 3 L * *', last: true, dom: '' },
    { label: 'L in a list', source: '0 3 1,15,L * *', last: true, dom: '1,15' },
    { label: 'a range up to L', source: '0 3 28-L * *', last: false, dom: '28,29,30,31' },
    { label: 'lower-case l', source: '0 3 l * *', last: true, dom: '' },
  ])('day-of-month $label: $source', ({ source, last, dom }) => {
    expect(cron(source).lastDayOfMonth).toBe(last);
    expect(cron(source).daysOfMonth.values.join(',')).toBe(dom);
  });

  test.each([
    { label: 'last Friday (nL)', source: '0 0 * * 5L', nth: { 5: [-1] } },
    { label: "last Friday (croniter's Ln)", source: '0 0 * * L5', nth: { 5: [-1] } },
    { label: 'last Friday by name', source: '0 0 * * FRIL', nth: { 5: [-1] } },
    { label: 'first Monday', source: '0 0 * * 1#1', nth: { 1: [1] } },
    { label: 'first Monday by name', source: '0 0 * * mon#1', nth: { 1: [1] } },
    { label: 'a list of them', source: '0 0 * * 1#1,1#3,5L', nth: { 1: [1, 3], 5: [-1] } },
    { label: '7 is Sunday', source: '0 0 * * 7#2', nth: { 0: [2] } },
    { label: 'a weekday range with #', source: '0 0 * * 1-3#2', nth: { 1: [2], 2: [2], 3: [2] } },
  ])('day-of-week $label: $source', ({ source, nth }) => {
    const expected = Array.from({ length: 7 }, (_, weekday) => (nth as Record<number, number[]>)[weekday] ?? []);
    expect(cron(source).nthWeekdays).toEqual(expected);
  });

  test('plain weekdays have no nth table', () => {
    expect(cron('0 0 * * 1-5').nthWeekdays).toBeNull();
    expect(cron('0 0 * * 1-5').lastDayOfMonth).toBe(false);
  });
});

describe('fixed durations', () => {
  test.each([
    { label: 'minutes', source: 'every 15m', stepMs: 15 * 60_000 },
    { label: 'hours', source: 'every 6h', stepMs: 6 * 3_600_000 },
    { label: 'days', source: 'every 1d', stepMs: 86_400_000 },
    { label: 'no space, upper case', source: 'EVERY 2H', stepMs: 2 * 3_600_000 },
  ])('$label: $source', ({ source, stepMs }) => {
    expect(parseSchedule(source)).toEqual({ kind: 'every', source, stepMs });
  });
});

describe('malformed schedules are refused naming the bad field', () => {
  test.each([
    { label: 'hour out of range', source: '0 25 * * *', message: "hour field '25' is out of range 0-23" },
    { label: 'minute out of range', source: '60 * * * *', message: "minute field '60' is out of range 0-59" },
    { label: 'day-of-month 0', source: '0 0 0 * *', message: "day-of-month field '0' is out of range 1-31" },
    { label: 'month 13', source: '0 0 1 13 *', message: "month field '13' is out of range 1-12" },
    { label: 'weekday 8', source: '0 0 * * 8', message: "day-of-week field '8' is out of range 0-7" },
    { label: 'unknown month name', source: '0 0 1 JANUARY *', message: "month field 'JANUARY' has 'JANUARY'" },
    { label: 'weekday name in month field', source: '0 0 1 MON *', message: "month field 'MON'" },
    { label: 'step 0', source: '*/0 * * * *', message: "minute field '*/0' has step '0'" },
    { label: 'backwards range', source: '0 0 * * FRI-MON', message: "day-of-week field 'FRI-MON' has range 'FRI-MON' running backwards" },
    { label: 'empty list item', source: '1,,2 * * * *', message: "minute field '1,,2' has an empty list item" },
    { label: 'Quartz LW', source: '0 0 LW * *', message: "day-of-month field 'LW' has 'LW'; of the Quartz extensions only a bare L" },
    { label: 'Quartz nearest weekday', source: '0 0 15W * *', message: "day-of-month field '15W'" },
    { label: 'L offset', source: '0 0 L-3 * *', message: "day-of-month field 'L-3'" },
    { label: 'bare L in day-of-week', source: '0 0 * * L', message: 'write the weekday before it (5L is the last Friday' },
    { label: 'sixth week', source: '0 0 * * 1#6', message: 'the week number after # is 1 to 5' },
    { label: 'week 0', source: '0 0 * * 1#0', message: 'the week number after # is 1 to 5' },
    { label: 'weekday 8 with #', source: '0 0 * * 8#1', message: "day-of-week field '8#1' is out of range 0-7" },
    { label: 'plain weekdays mixed with n#k', source: '0 0 * * 1#1,3', message: "mixes plain weekdays with n#k or nL, which Airflow's cron library refuses" },
    { label: 'six fields (seconds)', source: '0 0 0 * * *', message: 'got 6 fields; seconds (and years) are not supported: slots are whole minutes' },
    { label: 'seven fields (years)', source: '0 0 0 * * * 2026', message: 'got 7 fields' },
    { label: 'Jenkins H', source: 'H * * * *', message: "'H' (Jenkins' hashed value) is not supported" },
    { label: 'Jenkins H with a step', source: '0 H/4 * * *', message: "'H' (Jenkins' hashed value)" },
    { label: 'Jenkins H with a range', source: 'H(0-29) * * * *', message: "'H' (Jenkins' hashed value)" },
    { label: '@once has no slots', source: '@once', message: "unknown preset '@once'" },
    { label: 'four fields', source: '0 0 * *', message: 'expected 5 fields' },
    { label: 'empty', source: '  ', message: 'it is empty' },
    { label: 'unknown preset', source: '@reboot', message: "unknown preset '@reboot'" },
    { label: 'never fires (30 February)', source: '0 0 30 2 *', message: 'never fire' },
    { label: 'seconds are not a duration unit', source: 'every 30s', message: "unit m, h or d" },
    { label: 'zero duration', source: 'every 0h', message: 'at least 1h' },
    { label: 'duration without a number', source: 'every hour', message: "'every <n><unit>'" },
  ])('$label: $source', ({ source, message }) => {
    let thrown: unknown;
    try {
      parseSchedule(source);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LedgerError);
    const error = thrown as LedgerError;
    expect(error.code).toBe('input.invalidSchedule');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`schedule '${source}': `);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('\n');
  });

  test('the message tells the fix', () => {
    expect(() => parseSchedule('0 25 * * *')).toThrow(
      "schedule '0 25 * * *': hour field '25' is out of range 0-23; use a five-field cron like '0 2 * * *', a preset like @daily, or 'every 6h'",
    );
  });
});
