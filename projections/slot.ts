/**
 * One slot of a pipeline's timetable, as plain data. Timetables (in `src/`)
 * compute slots; projections only read them, so they stay pure.
 *
 * Every instant is RFC 3339 with the pipeline zone's local offset, e.g.
 * `2026-11-02T00:00:00+07:00`. Compare instants with `Date.parse`, never as strings
 * (offsets differ across DST).
 *
 * @example
 * const slot: Slot = { date: '2026-11-02', logicalDate: '2026-11-02T00:00:00+07:00',
 *   dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' },
 *   runAfter: '2026-11-03T00:00:00+07:00' };
 */
export type Slot = {
  /** The date key the user sees: `YYYY-MM-DD` or RFC 3339 with offset. */
  date: string;
  /** Start of the data interval; identifies the slot. */
  logicalDate: string;
  dataInterval: DataInterval;
  /** The instant from which the slot is due. */
  runAfter: string;
};

export type DataInterval = { start: string; end: string };
