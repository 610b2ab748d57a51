import type { CronField, CronSchedule } from './parse-schedule.js';
import { utcFromFields, wallFields, type WallMs } from './zoned-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * Loop guard. Two restricted day fields are OR-ed (croniter), so the rarest
 * legal day is a fifth weekday of a February (`0 0 * 2 1#5`): about 28 years
 * of Februaries, under 2,000 steps. Hitting the guard means a bug, not bad
 * input (parseSchedule refuses schedules that never fire).
 */
const MAX_STEPS = 100_000;

/**
 * Finds matching local wall times of a cron expression by field jumping (month,
 * then day, hour, minute), never minute by minute. Knows nothing about zones.
 *
 * @example
 * const matcher = createCronMatcher(parseSchedule('30 2 * * *') as CronSchedule);
 * matcher.nextAtOrAfter(Date.UTC(2026, 2, 8)); // Date.UTC(2026, 2, 8, 2, 30)
 */
export type CronMatcher = {
  /** The earliest matching wall >= `wall` (rounded up to a minute). */
  nextAtOrAfter(wall: WallMs): WallMs;
  /** The latest matching wall <= `wall` (rounded down to a minute). */
  prevAtOrBefore(wall: WallMs): WallMs;
  /** Minutes of the day the cron fires at on a day it fires at all, ascending. */
  readonly times: readonly number[];
  /** True when every day of every month fires (`@hourly`, `@daily`, `30 2 * * *`): the next firing day is the next day. */
  readonly everyDay: boolean;
};

/** For each value v, the smallest allowed value >= v (or -1). */
function upTable(field: CronField, max: number): number[] {
  const table = new Array<number>(max + 2).fill(-1);
  for (let v = max; v >= 0; v--) table[v] = field.has[v] === true ? v : (table[v + 1] ?? -1);
  return table;
}

/** For each value v, the largest allowed value <= v (or -1). */
function downTable(field: CronField, max: number): number[] {
  const table = new Array<number>(max + 1).fill(-1);
  for (let v = 0; v <= max; v++) table[v] = field.has[v] === true ? v : v === 0 ? -1 : (table[v - 1] ?? -1);
  return table;
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcFromFields(year, month + 1, 0)).getUTCDate();
}

export function createCronMatcher(schedule: CronSchedule): CronMatcher {
  const nextMinute = upTable(schedule.minutes, 59);
  const prevMinute = downTable(schedule.minutes, 59);
  const nextHour = upTable(schedule.hours, 23);
  const prevHour = downTable(schedule.hours, 23);
  const { daysOfMonth, daysOfWeek, months, dayMatch, lastDayOfMonth, nthWeekdays } = schedule;
  const times = schedule.hours.values.flatMap((hour) => schedule.minutes.values.map((minute) => hour * 60 + minute));
  const everyDay = months.values.length === 12 && daysOfMonth.values.length === 31 && daysOfWeek.values.length === 7 && !lastDayOfMonth && nthWeekdays === null;

  function dayMatches(year: number, month: number, day: number): boolean {
    const domOk = daysOfMonth.has[day] === true || (lastDayOfMonth && day === daysInMonth(year, month));
    if (dayMatch === 'both' && !domOk) return false;
    if (dayMatch === 'either' && domOk) return true;
    const epochDay = Math.floor(utcFromFields(year, month, day) / DAY);
    // 1970-01-01 was a Thursday (4).
    const weekday = (((epochDay + 4) % 7) + 7) % 7;
    if (nthWeekdays === null) return daysOfWeek.has[weekday] === true;
    // `n#k`: the k-th such weekday of the month; `nL` (-1): the last one, no week later in this month.
    const allowed = nthWeekdays[weekday] ?? [];
    return allowed.includes(Math.ceil(day / 7)) || (allowed.includes(-1) && day + 7 > daysInMonth(year, month));
  }

  // When every day fires, a match is a day's start plus one of `times`: plain arithmetic on the wall
  // value, no calendar fields (the slow steps of a long walk, around each DST transition, ask often).
  function nextEveryDay(wall: WallMs): WallMs {
    const minuteWall = Math.ceil(wall / MINUTE) * MINUTE;
    const dayStart = Math.floor(minuteWall / DAY) * DAY;
    const minute = (minuteWall - dayStart) / MINUTE;
    const later = times[indexAfter(times, minute - 1)];
    return later !== undefined ? dayStart + later * MINUTE : dayStart + DAY + (times[0] as number) * MINUTE;
  }

  function prevEveryDay(wall: WallMs): WallMs {
    const minuteWall = Math.floor(wall / MINUTE) * MINUTE;
    const dayStart = Math.floor(minuteWall / DAY) * DAY;
    const minute = (minuteWall - dayStart) / MINUTE;
    const earlier = times[indexAfter(times, minute) - 1];
    return earlier !== undefined ? dayStart + earlier * MINUTE : dayStart - DAY + (times[times.length - 1] as number) * MINUTE;
  }

  function nextAtOrAfter(wall: WallMs): WallMs {
    if (everyDay) return nextEveryDay(wall);
    let { year, month, day, hour, minute } = wallFields(Math.ceil(wall / MINUTE) * MINUTE);
    const nextDay = (): void => {
      day += 1;
      if (day > daysInMonth(year, month)) {
        day = 1;
        month += 1;
        if (month > 12) {
          month = 1;
          year += 1;
        }
      }
      hour = 0;
      minute = 0;
    };
    for (let step = 0; step < MAX_STEPS; step++) {
      if (months.has[month] !== true) {
        month += 1;
        if (month > 12) {
          month = 1;
          year += 1;
        }
        day = 1;
        hour = 0;
        minute = 0;
        continue;
      }
      if (!dayMatches(year, month, day)) {
        nextDay();
        continue;
      }
      const h = nextHour[hour] ?? -1;
      if (h < 0) {
        nextDay();
        continue;
      }
      if (h !== hour) {
        hour = h;
        minute = 0;
      }
      const m = nextMinute[minute] ?? -1;
      if (m < 0) {
        if (hour === 23) nextDay();
        else {
          hour += 1;
          minute = 0;
        }
        continue;
      }
      return utcFromFields(year, month, day, hour, m);
    }
    throw new Error(`cron matcher: no match for '${schedule.source}' after ${MAX_STEPS} steps`);
  }

  function prevAtOrBefore(wall: WallMs): WallMs {
    if (everyDay) return prevEveryDay(wall);
    let { year, month, day, hour, minute } = wallFields(Math.floor(wall / MINUTE) * MINUTE);
    const prevDay = (): void => {
      day -= 1;
      if (day < 1) {
        month -= 1;
        if (month < 1) {
          month = 12;
          year -= 1;
        }
        day = daysInMonth(year, month);
      }
      hour = 23;
      minute = 59;
    };
    for (let step = 0; step < MAX_STEPS; step++) {
      if (months.has[month] !== true) {
        day = 1;
        prevDay();
        continue;
      }
      if (!dayMatches(year, month, day)) {
        prevDay();
        continue;
      }
      const h = prevHour[hour] ?? -1;
      if (h < 0) {
        prevDay();
        continue;
      }
      if (h !== hour) {
        hour = h;
        minute = 59;
      }
      const m = prevMinute[minute] ?? -1;
      if (m < 0) {
        if (hour === 0) prevDay();
        else {
          hour -= 1;
          minute = 59;
        }
        continue;
      }
      return utcFromFields(year, month, day, hour, m);
    }
    throw new Error(`cron matcher: no match for '${schedule.source}' after ${MAX_STEPS} steps`);
  }

  return { nextAtOrAfter, prevAtOrBefore, times, everyDay };
}

/**
 * The index of the first entry of the ascending `times` greater than `minute`
 * (`times.length` when none is), by binary search.
 *
 * @example
 * indexAfter([0, 30, 60], 30); // 2
 */
export function indexAfter(times: readonly number[], minute: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= minute) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
