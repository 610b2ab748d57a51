import type { Timetable } from './timetable.js';

/**
 * A timetable that remembers what `status` asks it (its first slot, the last due one, the slot of a
 * complete-through key and how many slots follow it), so pipelines that share a timetable and a "now" (a fleet of
 * `@daily` pipelines) pay for each answer once, not once each. Its answers are the timetable's own,
 * shared: callers must not change a slot they get. Keep one for one question's "now", not for a process.
 *
 * @example
 * const timetable = memoTimetable(createTimetable(spec)); timetable.lastDue(nowMs) === timetable.lastDue(nowMs) // true
 */
export function memoTimetable(timetable: Timetable): Timetable {
  const lastDue = new Map<number, ReturnType<Timetable['lastDue']>>();
  const slotAt = new Map<number, ReturnType<Timetable['slotAt']>>();
  const parsed = new Map<string, number>();
  // By the two instants, numbers both (a text key made two numbers into text for every pipeline asking).
  const counted = new Map<number, Map<number, number>>();
  let first: { slot: ReturnType<Timetable['first']> } | undefined;
  // The last question of each kind and its answer: a fleet's rows ask the same ones in a row, and a lookup by two
  // numbers hashes both.
  let lastNow = Number.NaN;
  let lastDueSlot: ReturnType<Timetable['lastDue']>;
  let lastAfter = Number.NaN;
  let lastTo = Number.NaN;
  let lastCount = 0;
  return {
    ...timetable,
    first() {
      first ??= { slot: timetable.first() };
      return first.slot;
    },
    lastDue(nowMs) {
      if (nowMs === lastNow) return lastDueSlot;
      if (!lastDue.has(nowMs)) lastDue.set(nowMs, timetable.lastDue(nowMs));
      lastNow = nowMs;
      lastDueSlot = lastDue.get(nowMs);
      return lastDueSlot;
    },
    slotAt(logicalMs) {
      if (!slotAt.has(logicalMs)) slotAt.set(logicalMs, timetable.slotAt(logicalMs));
      return slotAt.get(logicalMs);
    },
    parseDate(text) {
      let ms = parsed.get(text);
      if (ms === undefined) {
        ms = timetable.parseDate(text);
        parsed.set(text, ms);
      }
      return ms;
    },
    countSlots(afterMs, toMs) {
      if (afterMs === lastAfter && toMs === lastTo) return lastCount;
      let byEnd = counted.get(afterMs);
      if (byEnd === undefined) {
        byEnd = new Map();
        counted.set(afterMs, byEnd);
      }
      let n = byEnd.get(toMs);
      if (n === undefined) {
        n = timetable.countSlots(afterMs, toMs);
        byEnd.set(toMs, n);
      }
      lastAfter = afterMs;
      lastTo = toMs;
      lastCount = n;
      return n;
    },
  };
}
