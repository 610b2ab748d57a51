import fc from 'fast-check';
import { expect, test } from 'vitest';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { memoTimetable } from '../../src/timetable/memo-timetable.js';
import { propertyRuns } from '../support/property-runs.js';

const DAY = 86_400_000;
const base = Date.parse('2026-11-05T12:00:00Z');
/** A few instants, so that questions repeat: in a row (the one-entry memo), and after others (the maps). */
const instant = fc.constantFrom(base, base + 1, base - DAY, base + 36 * DAY, Date.parse('2026-01-01T00:00:00Z'));
const question = fc.oneof(
  instant.map((now) => ['lastDue', now] as const),
  // Status counts from no complete-through as from Number.MIN_SAFE_INTEGER.
  fc.tuple(fc.oneof(instant, fc.constant(Number.MIN_SAFE_INTEGER)), instant).map(([a, b]) => ['countSlots', a, b] as const),
  instant.map((ms) => ['slotAt', ms - (ms % DAY)] as const),
  fc.constant(['first'] as const),
);

test('a memo timetable answers every question as its timetable does, asked in any order and again', () => {
  fc.assert(
    fc.property(fc.constantFrom('@daily', '@hourly', '0 0 * * 1', '30 2 * * *'), fc.constantFrom('UTC', 'Europe/Berlin'), fc.array(question, { maxLength: 40 }), (schedule, timezone, questions) => {
      const plain = createTimetable({ schedule, timezone, timetable: 'interval', start: '2026-01-01', end: null });
      const memo = memoTimetable(plain);
      for (const q of questions) {
        if (q[0] === 'lastDue') expect(memo.lastDue(q[1])).toEqual(plain.lastDue(q[1]));
        else if (q[0] === 'countSlots') expect(memo.countSlots(q[1], q[2])).toBe(plain.countSlots(q[1], q[2]));
        else if (q[0] === 'slotAt') expect(memo.slotAt(q[1])).toEqual(plain.slotAt(q[1]));
        else expect(memo.first()).toEqual(plain.first());
      }
    }),
    propertyRuns(100),
  );
});
