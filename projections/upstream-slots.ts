import type { Upstream } from '../events/types/pipeline-definition.js';
import type { DateStatus } from './date-state.js';
import type { PipelineControl } from './pipeline-control.js';
import type { PipelineState } from './pipeline-state.js';
import type { DataInterval, Slot } from './slot.js';

/**
 * What the mapping needs of an upstream pipeline's timetable, passed in so the mapping stays pure:
 * its slots whose logical dates lie in `[fromMs, toMs]` (ascending), and its slot at or before an instant.
 */
export type SlotSource = {
  slotsBetween(fromMs: number, toMs: number): Iterable<Slot>;
  slotAtOrBefore(ms: number): Slot | undefined;
};

/** An upstream slot a date waits for that is not done yet: the first one found names why the date is blocked. */
export type BlockedBy = {
  pipeline: string;
  date: string;
  status: DateStatus | 'missing' | 'skipped';
  /** Set when the upstream is paused: the reason its date does not run (no fleet run starts it until it is unpaused). */
  paused?: PipelineControl;
};

/** One upstream of a pipeline with what it takes to answer for it: its timetable's slots and its folded state. */
export type UpstreamView = { upstream: Upstream; source: SlotSource; state: PipelineState };

/**
 * True when two data intervals share an instant. Intervals are half-open, `[start, end)`; a zero-width
 * one (a trigger timetable's slot) is an instant, which overlaps the intervals it lies in and the
 * same instant.
 *
 * @example
 * intervalsOverlap({ start: '2026-11-03T00:00:00Z', end: '2026-11-04T00:00:00Z' },
 *   { start: '2026-11-03T06:00:00+07:00', end: '2026-11-03T07:00:00+07:00' }) // false: that hour ends at 00:00 UTC
 */
export function intervalsOverlap(a: DataInterval, b: DataInterval): boolean {
  return overlapMs(Date.parse(a.start), Date.parse(a.end), Date.parse(b.start), Date.parse(b.end));
}

function overlapMs(as: number, ae: number, bs: number, be: number): boolean {
  if (as === ae && bs === be) return as === bs;
  if (as === ae) return bs <= as && as < be;
  if (bs === be) return as <= bs && bs < ae;
  return as < be && bs < ae;
}

/**
 * The upstream slots a slot with data interval `interval` waits for, ascending. `overlap`: every slot of
 * the upstream whose data interval overlaps `interval`, compared by instant, so a daily pipeline in UTC
 * on an hourly one in Asia/Jakarta waits for the 24 hours of its UTC day. `previous`: the upstream's slot
 * just before the first of those (or, when none overlaps, the last slot that ended before `interval`);
 * none when the upstream has no such slot.
 *
 * @example
 * upstreamSlots('overlap', { start: '2026-11-03T00:00:00Z', end: '2026-11-04T00:00:00Z' }, hourlyJakarta).length // 24
 */
export function upstreamSlots(mapping: Upstream['mapping'], interval: DataInterval, source: SlotSource): Slot[] {
  const startMs = Date.parse(interval.start);
  const endMs = Date.parse(interval.end);
  // The slot at or before the start may reach into the interval; every later one that overlaps starts inside it.
  const first = source.slotAtOrBefore(startMs);
  const fromMs = first ? Date.parse(first.logicalDate) : startMs;
  const overlapping: Slot[] = [];
  for (const slot of source.slotsBetween(fromMs, endMs)) {
    if (overlapMs(Date.parse(slot.dataInterval.start), Date.parse(slot.dataInterval.end), startMs, endMs)) overlapping.push(slot);
  }
  if (mapping === 'overlap') return overlapping;
  const head = overlapping[0];
  if (head === undefined) {
    // Nothing overlaps (a gap in the upstream's schedule): the last slot that ended before the interval.
    return first && !overlapMs(Date.parse(first.dataInterval.start), Date.parse(first.dataInterval.end), startMs, endMs) ? [first] : [];
  }
  const before = source.slotAtOrBefore(Date.parse(head.logicalDate) - 1);
  return before ? [before] : [];
}

/**
 * True when an upstream slot's status lets its downstream dates run: `success`, or `skipped` (a date
 * marked as deliberately not run, where the ledger records that status).
 */
export function upstreamDone(status: string): boolean {
  return status === 'success' || status === 'skipped';
}

/**
 * The first upstream slot, in the order the upstreams were declared and then by date, that a slot with
 * data interval `interval` waits for and that is not done; null when every one is done (or there is none).
 *
 * @example
 * firstBlocking(slot.dataInterval, upstreams) // { pipeline: 'orders_raw', date: '2026-11-03T05:00:00+07:00', status: 'failed' }
 */
export function firstBlocking(interval: DataInterval, upstreams: readonly UpstreamView[]): BlockedBy | null {
  for (const view of upstreams) {
    for (const slot of upstreamSlots(view.upstream.mapping, interval, view.source)) {
      const status = view.state.dates.get(slot.date)?.status ?? 'missing';
      if (!upstreamDone(status)) return { pipeline: view.upstream.pipeline, date: slot.date, status, ...(view.state.paused ? { paused: view.state.paused } : {}) };
    }
  }
  return null;
}

/**
 * Every upstream slot a slot waits for, each with its pipeline, in declaration order then by date.
 *
 * @example
 * waitsFor(slot.dataInterval, upstreams).map((u) => `${u.pipeline} ${u.slot.date}`)
 */
export function waitsFor(interval: DataInterval, upstreams: ReadonlyArray<Pick<UpstreamView, 'upstream' | 'source'>>): Array<{ pipeline: string; slot: Slot }> {
  return upstreams.flatMap((view) => upstreamSlots(view.upstream.mapping, interval, view.source).map((slot) => ({ pipeline: view.upstream.pipeline, slot })));
}

/**
 * The slots of a downstream pipeline that wait for one upstream slot through `mapping`: the inverse of
 * `upstreamSlots`. Candidates are the downstream's slots that overlap the upstream slot or the one after
 * it (a `previous` mapping reaches one slot further), each checked with the forward mapping, so the two
 * directions can never disagree.
 *
 * @example
 * dependentSlots('overlap', hourSlot, hourlySource, dailySource).map((s) => s.date) // ['2026-11-02']
 */
export function dependentSlots(mapping: Upstream['mapping'], upstreamSlot: Slot, upstream: SlotSource, downstream: SlotSource): Slot[] {
  const startMs = Date.parse(upstreamSlot.dataInterval.start);
  let endMs = Date.parse(upstreamSlot.dataInterval.end);
  if (mapping === 'previous') {
    const [after] = upstream.slotsBetween(Date.parse(upstreamSlot.logicalDate) + 1, Number.POSITIVE_INFINITY);
    if (after) endMs = Math.max(endMs, Date.parse(after.dataInterval.end));
  }
  const first = downstream.slotAtOrBefore(startMs);
  const fromMs = first ? Date.parse(first.logicalDate) : startMs;
  const found: Slot[] = [];
  for (const slot of downstream.slotsBetween(fromMs, endMs)) {
    if (upstreamSlots(mapping, slot.dataInterval, upstream).some((u) => u.date === upstreamSlot.date)) found.push(slot);
  }
  return found;
}
