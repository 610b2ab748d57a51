import { createCronMatcher, type CronMatcher } from './cron-matcher.js';
import type { CronSchedule } from './parse-schedule.js';
import type { WallMs, ZoneClock } from './zoned-time.js';

const MINUTE = 60_000;
const MINUTES_PER_DAY = 1440;

/**
 * The ticks of a schedule as a strictly increasing set of instants, navigable
 * from any instant in O(1) cron matches (no iteration from the start).
 *
 * @example
 * const ticks = cronTicks(parseSchedule('0 * * * *') as CronSchedule, zoneClock('UTC'));
 * ticks.after(Date.parse('2026-01-01T00:10:00Z')); // Date.parse('2026-01-01T01:00:00Z')
 */
export type TickSource = {
  /** The earliest tick strictly after `ms`. */
  after(ms: number): number;
  /** The latest tick at or before `ms`. */
  atOrBefore(ms: number): number;
  /**
   * The spacing when the ticks are evenly spaced (every `stepMs` from a tick, forever, both ways), so that counting
   * them is a division; undefined when they are not.
   */
  readonly stepMs: number | undefined;
};

/**
 * Ticks of a cron evaluated on local wall time, mapped to instants with the
 * Airflow/pendulum rules:
 * - a wall time in a spring-forward gap fires shifted forward by the gap;
 * - an ambiguous wall time fires once, at its second (standard-time) occurrence,
 *   unless the cron fires every hour, then it fires at both occurrences.
 * The result is treated as a set: a shifted gap time equal to a real tick
 * collapses into it, and order is by instant, not by wall time.
 */
export function cronTicks(schedule: CronSchedule, clock: ZoneClock): TickSource {
  const matcher = createCronMatcher(schedule);

  function ticksOfWall(wall: WallMs): readonly number[] {
    const { instants, gap } = clock.resolveWall(wall);
    if (gap || instants.length < 2 || schedule.everyHour) return instants;
    return instants.slice(-1);
  }

  // Wall order and instant order only disagree within |offset change| of a DST
  // transition (a gap time shifted past later walls; both occurrences of an
  // ambiguous hour). So each search starts that far before the wall of `ms`,
  // and after its first hit keeps looking that far beyond it; away from
  // transitions the window is zero and the first hit is the answer.
  function after(ms: number): number {
    let wall = clock.wallOf(ms) - clock.shiftNear(ms);
    let best: number | undefined;
    let stopWall = Number.POSITIVE_INFINITY;
    for (;;) {
      wall = matcher.nextAtOrAfter(wall);
      if (wall > stopWall) break;
      for (const tick of ticksOfWall(wall)) {
        if (tick > ms && (best === undefined || tick < best)) best = tick;
      }
      if (best !== undefined && stopWall === Number.POSITIVE_INFINITY) {
        const window = clock.shiftNear(wall);
        if (window === 0) break;
        stopWall = wall + window;
      }
      wall += MINUTE;
    }
    if (best === undefined) throw new Error(`cron ticks: nothing after ${ms}`);
    return best;
  }

  function atOrBefore(ms: number): number {
    let wall = clock.wallOf(ms) + clock.shiftNear(ms);
    let best: number | undefined;
    let stopWall = Number.NEGATIVE_INFINITY;
    for (;;) {
      wall = matcher.prevAtOrBefore(wall);
      if (wall < stopWall) break;
      for (const tick of ticksOfWall(wall)) {
        if (tick <= ms && (best === undefined || tick > best)) best = tick;
      }
      if (best !== undefined && stopWall === Number.NEGATIVE_INFINITY) {
        const window = clock.shiftNear(wall);
        if (window === 0) break;
        stopWall = wall - window;
      }
      wall -= MINUTE;
    }
    if (best === undefined) throw new Error(`cron ticks: nothing at or before ${ms}`);
    return best;
  }

  return { after, atOrBefore, stepMs: undefined };
}

/**
 * The ticks of `cronTicks` by arithmetic, when that is exactly what they are: a cron that fires every day at times
 * of day evenly spaced around the clock (`@daily`, `@hourly`, every 15 minutes, at half past every second hour; not
 * every 7 minutes, whose hours end on a 4-minute step, nor `0 0 * * 1`) in a zone with one offset for all time (UTC, Etc/GMT+5), where
 * every wall shows once, at wall minus that offset, so the ticks are the times' walls minus the offset, a whole step
 * apart. Undefined for any other cron or zone: those keep `cronTicks`, which resolves each wall through the zone.
 *
 * @example
 * evenCronTicks(createCronMatcher(parseSchedule('@daily') as CronSchedule), zoneClock('UTC'))?.stepMs; // 86_400_000
 * evenCronTicks(createCronMatcher(parseSchedule('@daily') as CronSchedule), zoneClock('Europe/Berlin')); // undefined
 */
export function evenCronTicks(matcher: CronMatcher, clock: ZoneClock): TickSource | undefined {
  const offset = clock.fixedOffset;
  if (offset === undefined || !matcher.everyDay) return undefined;
  const { times } = matcher;
  const first = times[0];
  const stepMinutes = MINUTES_PER_DAY / times.length;
  if (first === undefined || !Number.isInteger(stepMinutes)) return undefined;
  // n times 1440/n apart, the last a step before the next day's first: no other gap.
  for (let i = 1; i < times.length; i++) if (times[i] !== first + i * stepMinutes) return undefined;
  return evenTicks(stepMinutes * MINUTE, first * MINUTE - offset);
}

/**
 * `originMs + k * stepMs` for every integer k, by a remainder rather than a floored quotient: a remainder of doubles
 * is exact, so the answer is exact for every integer instant (a quotient rounds up to the next integer for an
 * instant a millisecond before a tick far enough from the origin).
 */
function evenTicks(stepMs: number, originMs: number): TickSource {
  const atOrBefore = (ms: number): number => {
    const past = (ms - originMs) % stepMs;
    return ms - (past < 0 ? past + stepMs : past);
  };
  return { atOrBefore, after: (ms) => atOrBefore(ms) + stepMs, stepMs };
}

/**
 * Ticks of a fixed duration: `originMs + k * stepMs` for every integer k, pure
 * ms arithmetic, so DST never bends the spacing.
 *
 * @example
 * fixedTicks(21_600_000, Date.parse('2026-03-08T00:00:00-05:00')).after(Date.parse('2026-03-08T05:00:00Z'));
 * // Date.parse('2026-03-08T11:00:00Z')
 */
export function fixedTicks(stepMs: number, originMs: number): TickSource {
  const atOrBefore = (ms: number): number => originMs + Math.floor((ms - originMs) / stepMs) * stepMs;
  return { atOrBefore, after: (ms) => atOrBefore(ms) + stepMs, stepMs };
}
