import type { Slot } from '../../projections/slot.js';
import { createTimetable } from './create-timetable.js';
import type { SlotVisitor, Timetable, TimetableSpec } from './timetable.js';

/** One timetable of a pipeline's history: its spec without the end (the pipeline's end bounds every one) and when it began. */
export type TimetablePeriod = Omit<TimetableSpec, 'end'> & {
  /** The instant it took effect (RFC 3339); null for the first, which holds from its own start. */
  from: string | null;
};

/** A definition as far as its timetables go: the current one and those it replaced (`define --effective`). */
export type TimetableHistorySpec = TimetableSpec & {
  earlierTimetables?: ReadonlyArray<Omit<TimetableSpec, 'end'> & { until: string }> | undefined;
};

/**
 * The periods of a definition, oldest first: each earlier timetable until the instant the next took effect,
 * then the current one.
 *
 * @example
 * timetablePeriods(definition).map((p) => p.timezone) // ['UTC', 'Asia/Jakarta']
 */
export function timetablePeriods(spec: TimetableHistorySpec): TimetablePeriod[] {
  const earlier = spec.earlierTimetables ?? [];
  const periods: TimetablePeriod[] = [];
  let from: string | null = null;
  for (const t of earlier) {
    periods.push({ schedule: t.schedule, timetable: t.timetable, timezone: t.timezone, start: t.start, from });
    from = t.until;
  }
  periods.push({ schedule: spec.schedule, timetable: spec.timetable, timezone: spec.timezone, start: spec.start, from });
  return periods;
}

/** A period's timetable and the logical dates (epoch ms) whose slots are its own: [lo, hi). */
type Part = { timetable: Timetable; from: number; lo: number; hi: number };

/**
 * The timetable of a pipeline whose schedule, zone, start or kind changed from an instant on: the slots of
 * each period's timetable whose logical date falls in its period, one after the other. The boundary is by
 * logical date: a slot belongs to the timetable in force at its logical date, so the last slot under the old
 * timetable keeps its whole data interval even when that reaches past the change. A date key is never given
 * twice: when both timetables key by local date, the new one's first slots whose key is not after the old
 * one's last are left out (a zone change can name the same day again). With no change, the plain timetable.
 *
 * @example
 * const timetable = createTimetableHistory({ schedule: '@daily', timetable: 'interval', timezone: 'Asia/Jakarta',
 *   start: '2026-11-01T00:00:00Z', end: null,
 *   earlierTimetables: [{ schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-11-01T00:00:00Z', until: '2026-11-05T10:00:00Z' }] });
 * timetable.next(timetable.slotAt(Date.parse('2026-11-05T00:00:00Z'))!)?.date // '2026-11-06' (Jakarta's)
 */
export function createTimetableHistory(spec: TimetableHistorySpec): Timetable {
  const { end } = spec;
  const periods = timetablePeriods(spec);
  if (periods.length === 1) return createTimetable({ schedule: spec.schedule, timetable: spec.timetable, timezone: spec.timezone, start: spec.start, end });
  const parts: Part[] = [];
  for (const [index, period] of periods.entries()) {
    const timetable = createTimetable({ schedule: period.schedule, timetable: period.timetable, timezone: period.timezone, start: period.start, end });
    const from = period.from === null ? Number.NEGATIVE_INFINITY : Date.parse(period.from);
    const next = periods[index + 1];
    const hi = next?.from == null ? Number.POSITIVE_INFINITY : Date.parse(next.from);
    parts.push({ timetable, from, lo: from, hi: Math.max(hi, from) });
  }
  // A key is never given twice: after a change between day-keyed timetables, skip the new days not after the old last one.
  for (let index = 1; index < parts.length; index++) {
    const part = parts[index] as Part;
    const before = lastSlotBefore(parts, index);
    if (before === undefined || !before.dailyKeys || !part.timetable.dailyKeys) continue;
    part.lo = part.hi;
    for (const slot of part.timetable.slotsBetween(part.from, part.hi - 1)) {
      if (slot.date > before.key) {
        part.lo = Date.parse(slot.logicalDate);
        break;
      }
    }
  }
  return historyTimetable(spec, parts);
}

/** The key of the last slot of the parts before `index` (and whether its timetable keys by day), or undefined. */
function lastSlotBefore(parts: readonly Part[], index: number): { key: string; dailyKeys: boolean } | undefined {
  for (let i = index - 1; i >= 0; i--) {
    const part = parts[i] as Part;
    if (part.lo >= part.hi) continue;
    const slot = part.timetable.slotAtOrBefore(part.hi - 1);
    if (slot && Date.parse(slot.logicalDate) >= part.lo) return { key: slot.date, dailyKeys: part.timetable.dailyKeys };
  }
  return undefined;
}

function historyTimetable(spec: TimetableHistorySpec, parts: readonly Part[]): Timetable {
  const last = parts[parts.length - 1] as Part;
  const firstPart = parts[0] as Part;
  /** The part in force at an instant (its period holds it, skipped days included). */
  const partAt = (ms: number): Part => {
    for (let i = parts.length - 1; i > 0; i--) if (ms >= (parts[i] as Part).from) return parts[i] as Part;
    return firstPart;
  };
  const own = (part: Part, ms: number) => ms >= part.lo && ms < part.hi;
  const logical = (slot: Slot) => Date.parse(slot.logicalDate);
  const firstOf = (index: number): Slot | undefined => {
    const part = parts[index] as Part;
    if (part.lo >= part.hi) return undefined;
    for (const slot of part.timetable.slotsBetween(part.lo, part.hi - 1)) return slot;
    return undefined;
  };
  const firstFrom = (index: number): Slot | undefined => {
    for (let i = index; i < parts.length; i++) {
      const slot = firstOf(i);
      if (slot) return slot;
    }
    return undefined;
  };
  const slotAtOrBefore = (ms: number): Slot | undefined => {
    for (let i = parts.indexOf(partAt(ms)); i >= 0; i--) {
      const part = parts[i] as Part;
      if (part.lo >= part.hi) continue;
      const slot = part.timetable.slotAtOrBefore(Math.min(ms, part.hi - 1));
      if (slot && logical(slot) >= part.lo) return slot;
    }
    return undefined;
  };
  function* slotsBetween(fromMs: number, toMs: number): Generator<Slot> {
    for (const part of parts) {
      const lo = Math.max(fromMs, part.lo);
      const hi = Math.min(toMs, part.hi - 1);
      if (lo <= hi) yield* part.timetable.slotsBetween(lo, hi);
    }
  }
  const eachSlot = (fromMs: number, toMs: number, visit: SlotVisitor): void => {
    for (const part of parts) {
      const lo = Math.max(fromMs, part.lo);
      const hi = Math.min(toMs, part.hi - 1);
      if (lo <= hi) part.timetable.eachSlot(lo, hi, visit);
    }
  };
  const parseDate = (text: string): number => {
    // The current zone's reading validates (and is the answer for a text that is no slot of any period).
    const current = last.timetable.parseDate(text);
    let owner: number | undefined;
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i] as Part;
      let ms: number;
      try {
        ms = i === parts.length - 1 ? current : part.timetable.parseDate(text);
      } catch {
        continue;
      }
      if (own(part, ms) && part.timetable.slotKeyAt(ms) === text) return ms;
      if (owner === undefined && ms >= part.from && ms < part.hi) owner = ms;
    }
    return owner ?? current;
  };
  return {
    spec: { schedule: last.timetable.spec.schedule, timetable: last.timetable.spec.timetable, timezone: last.timetable.spec.timezone, start: firstPart.timetable.spec.start, end: spec.end },
    dailyKeys: parts.every((part) => part.timetable.dailyKeys),
    slotAt: (ms) => {
      const part = partAt(ms);
      return own(part, ms) ? part.timetable.slotAt(ms) : undefined;
    },
    slotKeyAt: (ms) => {
      const part = partAt(ms);
      return own(part, ms) ? part.timetable.slotKeyAt(ms) : undefined;
    },
    slotAtOrBefore,
    first: () => firstFrom(0),
    next: (slot) => {
      const ms = logical(slot);
      const part = partAt(ms);
      const index = parts.indexOf(part);
      if (ms < part.lo) return firstFrom(index);
      const next = part.timetable.next(slot);
      return next && logical(next) < part.hi ? next : firstFrom(index + 1);
    },
    slotsBetween,
    eachSlot,
    countSlots: (afterMs, toMs) => {
      let n = 0;
      for (const part of parts) {
        const after = Math.max(afterMs, part.lo - 1);
        const to = Math.min(toMs, part.hi - 1);
        if (after < to) n += part.timetable.countSlots(after, to);
      }
      return n;
    },
    lastDue: (nowMs) => {
      // The due slots are a prefix, as in one timetable (the walks of pending and catchup rely on it): a new slot is due once
      // every slot before it is, so the old timetable's last interval, which may reach past the change, ends first.
      let due: Slot | undefined;
      for (const [index, part] of parts.entries()) {
        if (firstOf(index) === undefined) continue;
        let slot = part.timetable.lastDue(nowMs);
        if (slot && logical(slot) >= part.hi) slot = part.timetable.slotAtOrBefore(part.hi - 1);
        if (!slot || logical(slot) < part.lo) return due;
        due = slot;
        const next = part.timetable.next(slot);
        if (next && logical(next) < part.hi) return due;
      }
      return due;
    },
    intervalFor: (ms) => partAt(ms).timetable.intervalFor(ms),
    parseDate,
    keyOf: (ms) => partAt(ms).timetable.keyOf(ms),
    formatInstant: (ms) => partAt(ms).timetable.formatInstant(ms),
  };
}
