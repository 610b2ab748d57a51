import { indexAfter, type CronMatcher } from './cron-matcher.js';
import type { TickSource } from './tick-source.js';
import type { InstantFormatter, ZoneClock } from './zoned-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const DAY_MINUTES = 1440;
/** Away from a transition by more than this, a wall maps to exactly one instant (a zone's offsets differ by under a day). */
const MARGIN = 2 * DAY;

/**
 * A walk over a timetable's ticks, in order, with each tick's RFC 3339 text:
 * the same ticks as `ticks.after` and the same text as `formatInstant`, at a
 * fraction of the cost. Between a zone's offset transitions it steps in UTC
 * (next matching wall minus the constant offset) instead of resolving every
 * wall through the zone rules, and writes a text as the day's `YYYY-MM-DD`
 * joined to a cached time-and-offset text. Within two days of a transition,
 * and for the first tick after one, it asks `ticks.after` and the formatter,
 * so every DST rule stays where it lives.
 *
 * A class, not a closure: its numbers live in unboxed fields, so a step over
 * ten years of hours allocates nothing but each tick's text.
 *
 * @example
 * const cursor = new SlotCursor(createCronMatcher(schedule), ticks, clock, instantFormatter(clock));
 * for (cursor.moveTo(first); cursor.tick <= last; cursor.advance()) use(cursor.text);
 */
export class SlotCursor {
  /** The current tick (epoch ms). */
  tick = Number.NaN;
  /** Its RFC 3339 text with the zone's offset. */
  text = '';
  /** Its local `YYYY-MM-DD` (the date key of daily-key timetables). */
  day = '';

  // The stepping offset is `offset` on [stableFrom - MARGIN, stableUntil); empty until the first slow step.
  private stableFrom = Number.POSITIVE_INFINITY;
  private stableUntil = Number.NEGATIVE_INFINITY;
  private offset = 0;
  // The zone's offset is `textOffset` on [textFrom, textUntil); `textMinutes` is it in minutes, or -1 when
  // it has seconds (LMT) or is not known yet.
  private textFrom = Number.POSITIVE_INFINITY;
  private textUntil = Number.NEGATIVE_INFINITY;
  private textOffset = 0;
  private textMinutes = -1;
  /** Time-and-offset texts of `textMinutes` by minute of the local day. */
  private suffixes: (string | undefined)[] = [];
  private dayIndex = Number.NaN;

  /** `matcher`: the cron's, or null for fixed durations (which step by `ticks.after`). */
  constructor(
    private readonly matcher: CronMatcher | null,
    private readonly ticks: TickSource,
    private readonly clock: ZoneClock,
    private readonly formatter: InstantFormatter,
  ) {}

  /** Puts the cursor on `tick`, which must be a tick of the timetable. */
  moveTo(tick: number): void {
    this.tick = tick;
    this.write(tick);
  }

  /** Moves the cursor to the next tick. */
  advance(): void {
    this.step();
    this.write(this.tick);
  }

  /**
   * Counts the ticks from the current one through `last` (inclusive), leaving the cursor past `last` (on the first
   * tick after it, or, when the count ended by arithmetic, at `last + 1`) with its text not written. Nothing is formatted: where the zone's offset holds and
   * the cron fires at the same times every day, whole days are counted by arithmetic.
   */
  countThrough(last: number): number {
    let count = 0;
    const perDay = this.matcher?.everyDay === true ? this.matcher.times.length : 0;
    while (this.tick <= last) {
      count += 1;
      if (perDay > 0 && this.tick >= this.stableFrom) {
        // A window that ends at `constantUntil`'s look-ahead horizon, not at a transition (the offset after it is the
        // same on both sides of it), goes on: without this, UTC's 400-day windows each ended in two days of slow steps
        // (30 ms for 57 years of minutes, counted on every page view).
        while (
          this.stableUntil - MARGIN <= last &&
          this.stableUntil > this.stableFrom &&
          Number.isFinite(this.stableUntil) &&
          this.clock.offsetAt(this.stableUntil - 1) === this.offset &&
          this.clock.offsetAt(this.stableUntil) === this.offset
        ) {
          this.stableUntil = this.clock.constantUntil(this.stableUntil);
        }
        // Every day of a constant offset holds the same `perDay` ticks: skip whole days that stay inside it.
        const days = Math.min(Math.floor((last - this.tick) / DAY), Math.floor((this.stableUntil - MARGIN - 1 - this.tick) / DAY));
        if (days >= 1) {
          count += days * perDay;
          this.tick += days * DAY;
        }
        if (last + MARGIN < this.stableUntil) {
          // The rest (under a day, inside the window): the day's times after this tick's wall through `last`'s, by two
          // searches instead of a step each (a column of a strip ending at 23:59 stepped 1,439 minutes).
          const { times } = this.matcher as CronMatcher;
          const dayStart = Math.floor((this.tick + this.offset) / DAY) * DAY;
          const from = (this.tick + this.offset - dayStart) / MINUTE;
          const through = (last + this.offset - dayStart) / MINUTE;
          count += indexAfter(times, Math.min(through, DAY_MINUTES - 0.5)) - indexAfter(times, from);
          if (through >= DAY_MINUTES) count += indexAfter(times, through - DAY_MINUTES);
          this.tick = last + 1;
          return count;
        }
      }
      if (this.ticks.countBetween !== undefined && this.matcher !== null && !(this.tick >= this.stableFrom && this.tick + MARGIN < this.stableUntil)) {
        // Within two days of a transition each step resolves an hour of walls: count the stretch up to two days past
        // it by resolving each of its walls once instead (57 years of Berlin's minutes took 25 s a step at a time).
        const transition = this.clock.constantUntil(this.tick - MARGIN);
        if (transition <= this.tick + MARGIN && this.clock.offsetAt(transition - 1) !== this.clock.offsetAt(transition)) {
          const end = Math.min(last, transition + MARGIN);
          count += this.ticks.countBetween(this.tick, end);
          if (end >= last) {
            this.tick = last + 1;
            return count;
          }
          // The next tick, two days past the transition (a plain step there), and a window to be found from it.
          this.tick = this.ticks.after(end);
          this.stableFrom = Number.POSITIVE_INFINITY;
          this.stableUntil = Number.NEGATIVE_INFINITY;
          continue;
        }
      }
      this.step();
    }
    return count;
  }

  /** Moves `tick` to the next tick without writing its text. */
  private step(): void {
    const tick = this.tick;
    let next = Number.NaN;
    if (this.matcher !== null && tick >= this.stableFrom) {
      // The tick's wall matched, so its day is a firing day: the next time that day is the next tick, else the next firing day's first.
      const { times, everyDay } = this.matcher;
      const offset = this.offset;
      const wall = tick + offset;
      const dayStart = Math.floor(wall / DAY) * DAY;
      const later = times[indexAfter(times, (wall - dayStart) / MINUTE)];
      const nextWall =
        later !== undefined
          ? dayStart + later * MINUTE
          : everyDay
            ? dayStart + DAY + (times[0] as number) * MINUTE
            : this.matcher.nextAtOrAfter(dayStart + DAY);
      const candidate = nextWall - offset;
      if (candidate + MARGIN < this.stableUntil) next = candidate;
    }
    if (Number.isNaN(next)) {
      next = this.ticks.after(tick);
      if (this.matcher !== null) {
        this.stableFrom = next;
        this.stableUntil = this.clock.constantUntil(next - MARGIN);
        this.offset = this.clock.offsetAt(next);
      }
    }
    this.tick = next;
  }

  /** Sets `text` and `day` of a tick: from cached pieces while the offset holds, else from the formatter. */
  private write(tick: number): void {
    if (tick < this.textFrom || tick >= this.textUntil) {
      const offset = this.clock.offsetAt(tick);
      this.textFrom = tick;
      this.textUntil = this.clock.constantUntil(tick);
      if (offset !== this.textOffset || this.textMinutes === -1) {
        this.textOffset = offset;
        // Historic offsets with seconds (LMT) are left to the formatter, which rounds them.
        this.textMinutes = offset % MINUTE === 0 ? offset / MINUTE : -1;
        this.suffixes = [];
      }
    }
    const wall = tick + this.textOffset;
    if (this.textMinutes === -1 || wall % MINUTE !== 0) {
      this.text = this.formatter.instant(tick);
      this.day = this.formatter.wallDate(wall);
      this.dayIndex = Number.NaN;
      return;
    }
    const dayIndex = Math.floor(wall / DAY);
    if (dayIndex !== this.dayIndex) {
      this.day = this.formatter.wallDate(wall);
      this.dayIndex = dayIndex;
    }
    const minute = (wall - dayIndex * DAY) / MINUTE;
    let suffix = this.suffixes[minute];
    if (suffix === undefined) {
      suffix = this.formatter.timeText(minute * MINUTE, this.textMinutes);
      this.suffixes[minute] = suffix;
    }
    this.text = this.day + suffix;
  }
}
