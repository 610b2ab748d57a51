import { indexAfter, type CronMatcher } from './cron-matcher.js';
import type { TickSource } from './tick-source.js';
import type { InstantFormatter, ZoneClock } from './zoned-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
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
