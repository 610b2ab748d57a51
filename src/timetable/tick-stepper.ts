import { createCronMatcher } from './cron-matcher.js';
import type { Schedule } from './parse-schedule.js';
import type { TickSource } from './tick-source.js';
import type { ZoneClock } from './zoned-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Away from a transition by more than this, a wall maps to exactly one instant (offsets stay within ±14 h). */
const MARGIN = 2 * DAY;

/**
 * The tick after a tick, for walking a range: the same answers as
 * `ticks.after`, but between a zone's offset transitions it steps in UTC
 * (next matching wall minus the constant offset) instead of resolving every
 * wall through the zone rules. Within two days of a transition, and for the
 * first tick after one, it asks `ticks.after`, so every DST rule stays where
 * it lives.
 *
 * @example
 * const next = tickStepper(schedule, ticks, clock);
 * for (let tick = first; tick <= last; tick = next(tick)) …
 */
export function tickStepper(schedule: Schedule, ticks: TickSource, clock: ZoneClock): (tick: number) => number {
  if (schedule.kind !== 'cron') return (tick) => ticks.after(tick);
  const matcher = createCronMatcher(schedule);
  // Minutes of the day the cron fires at on a day it fires at all, ascending.
  const times = schedule.hours.values.flatMap((hour) => schedule.minutes.values.map((minute) => hour * 60 + minute));
  // Every day of every month fires (`@daily`, `@hourly`, `30 2 * * *`): the next firing day is the next day.
  const everyDay =
    schedule.months.values.length === 12 &&
    schedule.daysOfMonth.values.length === 31 &&
    schedule.daysOfWeek.values.length === 7 &&
    !schedule.lastDayOfMonth &&
    schedule.nthWeekdays === null;
  const firstTime = (times[0] as number) * MINUTE;
  // The offset is `offset` on [stableFrom - MARGIN, stableUntil); empty until the first slow step.
  let stableFrom = Number.POSITIVE_INFINITY;
  let stableUntil = Number.NEGATIVE_INFINITY;
  let offset = 0;
  return (tick) => {
    if (tick >= stableFrom) {
      // The tick's wall matched, so its day is a firing day: the next time that day is the next tick, else the matcher finds the next day.
      const wall = tick + offset;
      const dayStart = Math.floor(wall / DAY) * DAY;
      const later = nextTime(times, (wall - dayStart) / MINUTE);
      const nextDay = later !== undefined ? dayStart + later * MINUTE : everyDay ? dayStart + DAY + firstTime : matcher.nextAtOrAfter(dayStart + DAY);
      const candidate = nextDay - offset;
      if (candidate + MARGIN < stableUntil) return candidate;
    }
    const next = ticks.after(tick);
    stableFrom = next;
    stableUntil = clock.constantUntil(next - MARGIN);
    offset = clock.offsetAt(next);
    return next;
  };
}

/** The first entry of the ascending `times` greater than `minute`, by binary search. */
function nextTime(times: readonly number[], minute: number): number | undefined {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= minute) lo = mid + 1;
    else hi = mid;
  }
  return times[lo];
}
