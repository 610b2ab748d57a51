import type { DataInterval, Slot } from '../../projections/slot.js';

/** What a pipeline definition says about its schedule. */
export type TimetableSpec = {
  /** `@daily`, `@hourly`, `@weekly`, `@monthly`, `@yearly`, five-field cron, or `every 6h`. */
  schedule: string;
  /** `interval` (data-interval timetable, the default) or `trigger` (zero-width slots). */
  timetable: 'interval' | 'trigger';
  /** IANA zone, e.g. `Asia/Jakarta`. */
  timezone: string;
  /** First slot bound: the first tick at or after this instant (RFC 3339). */
  start: string;
  /** Last slot bound, inclusive (RFC 3339), or null for open-ended. */
  end: string | null;
};

/** One slot of `eachSlot`: its date key, logical date, end of its data interval (also its runAfter) and tick. */
export type SlotVisitor = (date: string, logicalDate: string, end: string, tick: number) => void;

/**
 * A pipeline's schedule turned into slots. All arguments and results in epoch ms
 * or the `Slot` data shape; nothing here reads a clock.
 */
export interface Timetable {
  readonly spec: TimetableSpec;
  /** True when date keys are `YYYY-MM-DD` (day-or-coarser schedules ticking at local midnight). */
  readonly dailyKeys: boolean;
  /** The slot whose logical date is exactly `logicalMs` (within start/end), else undefined. */
  slotAt(logicalMs: number): Slot | undefined;
  /** The date key of `slotAt(logicalMs)`, without building the slot (the table writer asks it on every append). */
  slotKeyAt(logicalMs: number): string | undefined;
  /**
   * The slot whose logical date is the latest at or before `ms`, within start/end (past the end: the last
   * slot), or undefined when the first slot starts after `ms`.
   */
  slotAtOrBefore(ms: number): Slot | undefined;
  /** The first slot of the pipeline (first tick at or after start), or undefined if end < start. */
  first(): Slot | undefined;
  /** The slot after `slot`, or undefined past `end`. */
  next(slot: Slot): Slot | undefined;
  /** Slots whose logical date lies in [fromMs, toMs], ascending, clipped to start/end. */
  slotsBetween(fromMs: number, toMs: number): Iterable<Slot>;
  /**
   * The slots of `slotsBetween`, handed to `visit` as their texts and tick
   * (epoch ms of the logical date) without building a `Slot`: for callers that
   * keep something else per slot (`pending` over ten years of hours).
   */
  eachSlot(fromMs: number, toMs: number, visit: SlotVisitor): void;
  /**
   * How many slots have a logical date in (afterMs, toMs], clipped to start/end, without building or
   * formatting any: arithmetic for fixed durations and for whole days of a daily-firing cron.
   */
  countSlots(afterMs: number, toMs: number): number;
  /** The latest slot whose runAfter is <= nowMs, or undefined when none is due yet. */
  lastDue(nowMs: number): Slot | undefined;
  /** The data interval the timetable gives an arbitrary logical date (used for off-schedule manual runs). */
  intervalFor(logicalMs: number): DataInterval;
  /** Parses a date key or an RFC 3339 instant to epoch ms; throws LedgerError('input.invalidDate') when invalid. */
  parseDate(text: string): number;
  /** The date key of a logical date. */
  keyOf(logicalMs: number): string;
  /** RFC 3339 with the zone's local offset, seconds precision (milliseconds only when non-zero). */
  formatInstant(ms: number): string;
}
