import type { Timetable } from './timetable.js';
import { utcFromFields, zoneClock } from './zoned-time.js';

const BARE_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The inclusive upper bound of a `--to`, in epoch ms. A bare `YYYY-MM-DD` on a
 * pipeline whose keys are instants (hourly, `every 6h`, `30 2 * * *`) means
 * through the end of that local day: every slot whose logical date falls on
 * it, 24 hourly slots (23 or 25 on a DST day). On day-keyed pipelines a bare
 * date is the key itself, and full instants keep their exact meaning.
 *
 * @example
 * parseRangeEnd(hourlyNewYork, '2026-11-01'); // Date.parse('2026-11-02T00:00:00-05:00') - 1
 * parseRangeEnd(dailyNewYork, '2026-11-01');  // Date.parse('2026-11-01T00:00:00-04:00')
 */
export function parseRangeEnd(timetable: Timetable, text: string): number {
  const at = timetable.parseDate(text);
  const bare = BARE_DATE.exec(text.trim());
  if (timetable.dailyKeys || bare === null) return at;
  const [, year, month, day] = bare;
  // The day ends where the next one begins: its first midnight (a midnight in a gap is shifted, like every wall time).
  const { instants } = zoneClock(timetable.spec.timezone).resolveWall(utcFromFields(Number(year), Number(month), Number(day) + 1));
  const nextMidnight = instants[0];
  return nextMidnight === undefined ? at : nextMidnight - 1;
}

/**
 * The inclusive lower bound of a `--from`, in epoch ms. A bare date on an
 * instant-keyed pipeline is the first instant of that local day, so a day
 * whose midnight repeats (America/Havana, 2026-11-01) starts at its first
 * midnight and no slot falls between two whole-day ranges. Elsewhere it is
 * `parseDate`'s reading (a day-keyed pipeline's key is its slot).
 *
 * @example
 * parseRangeStart(hourlyHavana, '2026-11-01'); // Date.parse('2026-11-01T00:00:00-04:00')
 */
export function parseRangeStart(timetable: Timetable, text: string): number {
  const at = timetable.parseDate(text);
  const bare = BARE_DATE.exec(text.trim());
  if (timetable.dailyKeys || bare === null) return at;
  const [, year, month, day] = bare;
  const { instants } = zoneClock(timetable.spec.timezone).resolveWall(utcFromFields(Number(year), Number(month), Number(day)));
  return instants[0] ?? at;
}
