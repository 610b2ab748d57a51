import { indexAfter, type CronMatcher } from './cron-matcher.js';
import type { WallMs, ZoneClock } from './zoned-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * How many matching walls `w` of a cron lie in `(lo, hi]`: for a cron that fires every day, by arithmetic on days and a
 * search of the day's times at each end; else one `nextAtOrAfter` per firing day (a firing day fires at all its times).
 */
function countWalls(matcher: CronMatcher, lo: WallMs, hi: WallMs): number {
  if (hi <= lo) return 0;
  const { times } = matcher;
  // Matching walls at or before `x`: whole days times their count, plus the day's times at or before x's minute.
  const upTo = (x: WallMs): number => {
    const day = Math.floor(x / DAY);
    return day * times.length + indexAfter(times, (x - day * DAY) / MINUTE);
  };
  if (matcher.everyDay) return upTo(hi) - upTo(lo);
  let count = 0;
  for (let wall = matcher.nextAtOrAfter(lo + 1); wall <= hi; ) {
    const dayStart = Math.floor(wall / DAY) * DAY;
    const through = Math.min(hi, dayStart + DAY - 1);
    count += indexAfter(times, (through - dayStart) / MINUTE) - indexAfter(times, (wall - dayStart) / MINUTE - 1);
    wall = matcher.nextAtOrAfter(dayStart + DAY);
  }
  return count;
}

/**
 * How many ticks of a cron in a zone lie in `(afterMs, lastMs]`, the ticks being those of `cronTicks` (the Airflow and
 * pendulum rules: a wall in a spring-forward gap fires shifted forward by the gap unless that instant is a tick
 * already; an ambiguous wall fires at its second occurrence only, at both when the cron fires every hour), counted
 * per stretch of one offset without visiting a tick: each stretch's matching walls by arithmetic, then at each
 * transition the first occurrences of the repeated walls taken off (fall back) or the shifted walls of the gap added
 * (spring forward). 57 years of Berlin's minutes (114 transitions) cost some hundred offset lookups, not seconds.
 *
 * @example
 * countCronTicks(createCronMatcher(parseSchedule('30 2 * * *') as CronSchedule), zoneClock('America/New_York'), false,
 *   Date.parse('2026-03-07T12:00:00Z'), Date.parse('2026-03-09T12:00:00Z')) // 2: 02:30 on the gap's day fires at 03:30
 */
export function countCronTicks(matcher: CronMatcher, clock: ZoneClock, everyHour: boolean, afterMs: number, lastMs: number): number {
  if (lastMs <= afterMs) return 0;
  const matches = (wall: WallMs): boolean => matcher.nextAtOrAfter(wall) === wall;
  let count = 0;
  // The stretches of one offset from a day before the range (a gap's shifted ticks land up to a day after its
  // transition) to a day after it (a fall-back's dropped first occurrences lie up to a day before it).
  let at = afterMs - DAY;
  let offset = clock.offsetAt(at);
  while (at <= lastMs + DAY) {
    const until = clock.constantUntil(at);
    // This stretch's instants inside the range, as walls of its offset.
    const from = Math.max(at - 1, afterMs);
    const to = Math.min(until - 1, lastMs);
    if (to > from) count += countWalls(matcher, from + offset, to + offset);
    const next = clock.offsetAt(until);
    if (next < offset && !everyHour && until <= lastMs + DAY) {
      // Fall back: the walls in [until + next, until + offset) show twice; their first occurrences (instants before
      // `until`, with this stretch's offset) do not fire. Counted above inside the range, so taken off inside it.
      const lo = Math.max(afterMs + offset, until + next - 1);
      const hi = Math.min(lastMs + offset, until + offset - 1);
      count -= countWalls(matcher, lo, hi);
    } else if (next > offset && until <= lastMs) {
      // Spring forward: the walls in [until + offset, until + next) never show; each fires at wall - offset (inside
      // the gap's width after `until`), unless that instant is a tick already (the wall a gap later matches).
      const lo = Math.max(afterMs + offset, until + offset - 1);
      const hi = Math.min(lastMs + offset, until + next - 1);
      for (let wall = matcher.nextAtOrAfter(lo + 1); wall <= hi; wall = matcher.nextAtOrAfter(wall + MINUTE)) {
        if (!matches(wall + (next - offset))) count += 1;
      }
    }
    at = until;
    offset = next;
  }
  return count;
}
