import fc from 'fast-check';
import { expect, test } from 'vitest';
import { createTimetable } from '../../src/timetable/create-timetable.js';

const DAY = 86_400_000;
const schedules = ['@hourly', '@daily', '@weekly', '@monthly', '30 2 * * *', '0 0 * * MON-FRI', '0 0 L * *', 'every 6h'];
const zones = ['UTC', 'America/New_York', 'Australia/Lord_Howe', 'America/Havana', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Apia'];

test('eachSlot visits what slotsBetween yields, slot for slot, with each slot tick, across transitions and ends', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...schedules),
      fc.constantFrom(...zones),
      fc.constantFrom('interval', 'trigger') as fc.Arbitrary<'interval' | 'trigger'>,
      fc.integer({ min: Date.parse('2005-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
      fc.integer({ min: 0, max: 200 * DAY }),
      fc.option(fc.integer({ min: 0, max: 300 * DAY })),
      (schedule, timezone, kind, startMs, span, endAfter) => {
        const start = new Date(startMs).toISOString();
        const end = endAfter === null ? null : new Date(startMs + endAfter).toISOString();
        const tt = createTimetable({ schedule, timezone, timetable: kind, start, end });
        const from = startMs - DAY;
        const to = startMs + span;
        const visited: unknown[] = [];
        tt.eachSlot(from, to, (date, logicalDate, runAfter, tick) => visited.push({ date, logicalDate, dataInterval: { start: logicalDate, end: runAfter }, runAfter, tick }));
        const yielded = [...tt.slotsBetween(from, to)].map((slot) => ({ ...slot, tick: Date.parse(slot.logicalDate) }));
        expect(visited).toEqual(yielded);
      },
    ),
    { numRuns: 80 },
  );
}, 60_000);

test('countSlots counts what eachSlot visits after a bound, across transitions, ends and whole-day skips', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...schedules, '15,45 */3 * * *', '*/20 9-17 * * *'),
      fc.constantFrom(...zones),
      fc.integer({ min: Date.parse('2005-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
      fc.integer({ min: -2 * DAY, max: 400 * DAY }),
      fc.integer({ min: 0, max: 900 * DAY }),
      fc.option(fc.integer({ min: 0, max: 1000 * DAY })),
      (schedule, timezone, startMs, after, span, endAfter) => {
        const start = new Date(startMs).toISOString();
        const end = endAfter === null ? null : new Date(startMs + endAfter).toISOString();
        const tt = createTimetable({ schedule, timezone, timetable: 'interval', start, end });
        const afterMs = startMs + after;
        const to = afterMs + span;
        let visited = 0;
        tt.eachSlot(afterMs + 1, to, () => (visited += 1));
        expect(tt.countSlots(afterMs, to)).toBe(visited);
      },
    ),
    { numRuns: 120 },
  );
}, 60_000);

test('countSlots counts what eachSlot visits around a transition: gaps, repeated walls, crons that fire every hour', () => {
  // Short ranges that start and end near a zone's offset change, for crons whose walls fall in its gap or its repeat.
  const transitions = ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z', '2011-12-30T10:00:00Z', '2021-09-26T14:00:00Z'];
  fc.assert(
    fc.property(
      fc.constantFrom('* * * * *', '*/7 * * * *', '30 * * * *', '30 1-3 * * *', '0,30 2 * * *', '15 2 * * 0', '*/20 0-4 * * MON-FRI', '0 3 * * *', '@daily'),
      fc.constantFrom(...zones),
      fc.constantFrom(...transitions),
      fc.integer({ min: -3 * DAY, max: DAY }),
      fc.integer({ min: 0, max: 4 * DAY }),
      (schedule, timezone, transition, before, span) => {
        const tt = createTimetable({ schedule, timezone, timetable: 'interval', start: '2000-01-01T00:00:00Z', end: null });
        const afterMs = Date.parse(transition) + before;
        let visited = 0;
        tt.eachSlot(afterMs + 1, afterMs + span, () => (visited += 1));
        expect(tt.countSlots(afterMs, afterMs + span)).toBe(visited);
      },
    ),
    { numRuns: 300 },
  );
}, 60_000);

test('slotKeyAt is the key of slotAt, on ticks, between them and outside start/end', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...schedules),
      fc.constantFrom(...zones),
      fc.integer({ min: Date.parse('2005-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
      fc.integer({ min: -5 * DAY, max: 60 * DAY }),
      fc.option(fc.integer({ min: 0, max: 30 * DAY })),
      (schedule, timezone, startMs, offset, endAfter) => {
        const end = endAfter === null ? null : new Date(startMs + endAfter).toISOString();
        const tt = createTimetable({ schedule, timezone, timetable: 'interval', start: new Date(startMs).toISOString(), end });
        const probe = startMs + offset;
        const tick = tt.slotAtOrBefore(probe);
        for (const ms of [probe, tick === undefined ? probe : Date.parse(tick.logicalDate)]) expect(tt.slotKeyAt(ms)).toBe(tt.slotAt(ms)?.date);
      },
    ),
    { numRuns: 150 },
  );
}, 60_000);
