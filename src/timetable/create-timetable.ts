import type { DataInterval, Slot } from '../../projections/slot.js';
import { LedgerError } from '../errors.js';
import { createCronMatcher, type CronMatcher } from './cron-matcher.js';
import { countCronTicks } from './count-cron-ticks.js';
import { parseDateText } from './parse-date.js';
import { parseSchedule, type Schedule } from './parse-schedule.js';
import { cronTicks, evenCronTicks, fixedTicks, type TickSource } from './tick-source.js';
import { SlotCursor } from './slot-cursor.js';
import type { SlotVisitor, Timetable, TimetableSpec } from './timetable.js';
import { instantFormatter, zoneClock, type ZoneClock } from './zoned-time.js';

/**
 * Date keys are `YYYY-MM-DD` only for crons that fire at most once a day at
 * local 00:00 (`@daily`, `@weekly`, `@monthly`, `@yearly`, `0 0 * * 1`, …).
 * Fixed durations never get daily keys, even `every 1d` from a midnight start:
 * absolute spacing drifts off midnight at the first DST change, and keys must
 * not change shape halfway through a pipeline's history.
 */
function usesDailyKeys(schedule: Schedule): boolean {
  return (
    schedule.kind === 'cron' &&
    schedule.minutes.values.length === 1 &&
    schedule.minutes.values[0] === 0 &&
    schedule.hours.values.length === 1 &&
    schedule.hours.values[0] === 0
  );
}

function parseBound(text: string, name: 'start' | 'end', clock: ZoneClock): number {
  try {
    return parseDateText(text, clock);
  } catch (error) {
    if (error instanceof LedgerError) {
      throw new LedgerError(error.code, `timetable ${name}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/**
 * Builds the timetable of a pipeline: validates zone, schedule and bounds
 * (throwing `input.unknownZone`, `input.invalidSchedule`, `input.invalidDate`
 * or `input.invalidTimetable`) and answers slot questions in epoch ms.
 *
 * @example
 * const timetable = createTimetable({ schedule: '@daily', timetable: 'interval',
 *   timezone: 'Asia/Jakarta', start: '2026-11-01', end: null });
 * timetable.first()?.date; // '2026-11-01'
 * timetable.lastDue(Date.parse('2026-11-03T00:00:00+07:00'))?.date; // '2026-11-02'
 */
export function createTimetable(spec: TimetableSpec): Timetable {
  if (spec.timetable !== 'interval' && spec.timetable !== 'trigger') {
    throw new LedgerError(
      'input.invalidTimetable',
      `timetable '${String(spec.timetable)}' is unknown; use 'interval' (data intervals, the default) or 'trigger' (zero-width slots)`,
    );
  }
  const clock = zoneClock(spec.timezone);
  const schedule = parseSchedule(spec.schedule);
  const startMs = parseBound(spec.start, 'start', clock);
  const endMs = spec.end === null ? Number.POSITIVE_INFINITY : parseBound(spec.end, 'end', clock);
  const matcher = schedule.kind === 'cron' ? createCronMatcher(schedule) : null;
  // A cron whose ticks are evenly spaced instants (a daily or hourly cron in UTC) is answered by arithmetic.
  const ticks: TickSource =
    schedule.kind === 'cron' ? (evenCronTicks(matcher as CronMatcher, clock) ?? cronTicks(schedule, clock)) : fixedTicks(schedule.stepMs, startMs);
  const { stepMs } = ticks;
  // Evenly spaced ticks step by `ticks.after` (arithmetic), as fixed durations do; the cursor's walk over walls is for the others.
  const cursorMatcher = stepMs === undefined ? matcher : null;
  const dailyKeys = usesDailyKeys(schedule);
  const isInterval = spec.timetable === 'interval';
  const formatter = instantFormatter(clock);
  const format = formatter.instant;
  // In a zone of one offset the wall is a sum, without the clock's offset lookup (status keys every running date).
  const { fixedOffset } = clock;
  const keyOf = (ms: number): string =>
    dailyKeys ? formatter.wallDate(fixedOffset === undefined ? clock.wallOf(ms) : ms + fixedOffset) : format(ms);
  const inBounds = (ms: number): boolean => ms >= startMs && ms <= endMs;

  function slotOf(tick: number, nextTick: number): Slot {
    const logicalDate = format(tick);
    const end = isInterval ? format(nextTick) : logicalDate;
    // A key finer than a day is the logical date's own text: formatted once, not twice.
    return { date: dailyKeys ? keyOf(tick) : logicalDate, logicalDate, dataInterval: { start: logicalDate, end }, runAfter: end };
  }

  /** The slot at a known tick; undefined outside start/end. */
  function slotAtTick(tick: number): Slot | undefined {
    return inBounds(tick) ? slotOf(tick, isInterval ? ticks.after(tick) : tick) : undefined;
  }

  function logicalMsOf(slot: Slot): number {
    // Slots carry RFC 3339 with an offset, which Date.parse reads exactly; the
    // strict parser is only the fallback that explains a malformed one.
    const ms = Date.parse(slot.logicalDate);
    return Number.isNaN(ms) ? parseDateText(slot.logicalDate, clock) : ms;
  }

  const firstTick = ticks.after(startMs - 1);

  function* slotsBetween(fromMs: number, toMs: number): Generator<Slot> {
    const last = Math.min(toMs, endMs);
    const cursor = new SlotCursor(cursorMatcher, ticks, clock, formatter);
    // Each tick is formatted once: it ends one interval and starts the next.
    for (cursor.moveTo(ticks.after(Math.max(fromMs, startMs) - 1)); cursor.tick <= last; ) {
      const text = cursor.text;
      const date = dailyKeys ? cursor.day : text;
      cursor.advance();
      const end = isInterval ? cursor.text : text;
      yield { date, logicalDate: text, dataInterval: { start: text, end }, runAfter: end };
    }
  }

  function eachSlot(fromMs: number, toMs: number, visit: SlotVisitor): void {
    const last = Math.min(toMs, endMs);
    const cursor = new SlotCursor(cursorMatcher, ticks, clock, formatter);
    for (cursor.moveTo(ticks.after(Math.max(fromMs, startMs) - 1)); cursor.tick <= last; ) {
      const tick = cursor.tick;
      const text = cursor.text;
      const date = dailyKeys ? cursor.day : text;
      cursor.advance();
      visit(date, text, isInterval ? cursor.text : text, tick);
    }
  }

  function countSlots(afterMs: number, toMs: number): number {
    const last = Math.min(toMs, endMs);
    const first = ticks.after(Math.max(afterMs, startMs - 1));
    if (first > last) return 0;
    if (schedule.kind !== 'cron') return Math.floor((ticks.atOrBefore(last) - first) / schedule.stepMs) + 1;
    if (stepMs !== undefined) {
      // Evenly spaced cron ticks: `first` and the whole steps after it through `last` (by a remainder, exact).
      // Math.floor of a quotient already whole: the same number, made a small integer (V8 boxes a division's result, and
      // a status row's behind, missing and total then each held a boxed number until the table was printed).
      const span = last - first;
      return Math.floor((span - (span % stepMs)) / stepMs) + 1;
    }
    return countCronTicks(matcher as CronMatcher, clock, schedule.everyHour, first - 1, last);
  }

  function lastDue(nowMs: number): Slot | undefined {
    // For interval slots, runAfter is the next tick, so the due slot is the one
    // before the latest tick that has passed.
    const latestPassed = ticks.atOrBefore(nowMs);
    let tick = isInterval ? ticks.atOrBefore(latestPassed - 1) : latestPassed;
    if (tick > endMs) tick = ticks.atOrBefore(endMs);
    return tick < startMs ? undefined : slotAtTick(tick);
  }

  function intervalFor(logicalMs: number): DataInterval {
    if (!isInterval) return { start: format(logicalMs), end: format(logicalMs) };
    const tick = ticks.atOrBefore(logicalMs);
    return { start: format(tick), end: format(ticks.after(tick)) };
  }

  function slotAtOrBefore(ms: number): Slot | undefined {
    const tick = ticks.atOrBefore(Math.min(ms, endMs));
    return tick < startMs ? undefined : slotAtTick(tick);
  }

  return {
    spec,
    dailyKeys,
    slotAtOrBefore,
    slotAt: (logicalMs) => (ticks.atOrBefore(logicalMs) === logicalMs ? slotAtTick(logicalMs) : undefined),
    slotKeyAt: (logicalMs) => (inBounds(logicalMs) && ticks.atOrBefore(logicalMs) === logicalMs ? keyOf(logicalMs) : undefined),
    first: () => slotAtTick(firstTick),
    next: (slot) => slotAtTick(ticks.after(Math.max(logicalMsOf(slot), startMs - 1))),
    slotsBetween,
    eachSlot,
    countSlots,
    lastDue,
    intervalFor,
    parseDate: (text) => parseDateText(text, clock),
    keyOf,
    formatInstant: format,
  };
}
