import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Slot } from '../../projections/slot.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { formatInstant, instantFormatter, zoneClock } from '../../src/timetable/zoned-time.js';

const DAY = 86_400_000;
const schedules = ['@hourly', '@daily', '@weekly', '@monthly', '30 2 * * *', '30 1 * * *', '*/15 * * * *', '0 */6 * * *', '15,45 2,3 * * *', '0 0 * * MON-FRI', '0 0 1 * MON', 'every 6h'];
const zones = ['UTC', 'America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'Europe/London', 'America/Havana', 'America/Santiago', 'Pacific/Chatham', 'Europe/Berlin', 'Asia/Kolkata'];

/** The slot walk the timetable had before the fast path: one `next` (one full zone resolution) per slot. */
function slowWalk(tt: ReturnType<typeof createTimetable>, fromMs: number, toMs: number): Slot[] {
  const out: Slot[] = [];
  for (let slot = tt.slotAt(fromMs) ?? tt.first(); slot && Date.parse(slot.logicalDate) <= toMs; slot = tt.next(slot)) {
    if (Date.parse(slot.logicalDate) >= fromMs) out.push(slot);
  }
  return out;
}

describe('fast slot enumeration', () => {
  test('slotsBetween over months, across several transitions, equals the slot-by-slot walk', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schedules),
        fc.constantFrom(...zones),
        fc.constantFrom('interval', 'trigger') as fc.Arbitrary<'interval' | 'trigger'>,
        fc.integer({ min: Date.parse('1995-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
        fc.integer({ min: 0, max: 400 * DAY }),
        (schedule, timezone, kind, startMs, span) => {
          const start = new Date(startMs).toISOString();
          const tt = createTimetable({ schedule, timezone, timetable: kind, start, end: null });
          const fast = [...tt.slotsBetween(startMs, startMs + span)].slice(0, 3000);
          const slow = slowWalk(createTimetable({ schedule, timezone, timetable: kind, start, end: null }), startMs, startMs + span).slice(0, 3000);
          expect(fast).toEqual(slow);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);

  test('the cached formatter writes what formatInstant writes, LMT offsets and milliseconds included', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones, 'Asia/Kathmandu', 'America/Sao_Paulo', 'Africa/Monrovia'),
        fc.integer({ min: Date.parse('1800-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }),
        (zone, ms) => {
          const clock = zoneClock(zone);
          expect(instantFormatter(clock).instant(ms)).toBe(formatInstant(ms, zone));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('constantUntil names a transition, and the offset does not change before it', () => {
    const clock = zoneClock('America/New_York');
    const from = Date.parse('2026-01-10T00:00:00Z');
    const until = clock.constantUntil(from);
    expect(until).toBe(Date.parse('2026-03-08T07:00:00Z'));
    expect(clock.offsetAt(until - 1)).toBe(clock.offsetAt(from));
    expect(clock.offsetAt(until)).not.toBe(clock.offsetAt(from));
    expect(zoneClock('UTC').constantUntil(from)).toBeGreaterThan(from + 300 * DAY);
  });
});
