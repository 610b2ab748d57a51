import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Slot } from '../../projections/slot.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import { createTimetableHistory, type TimetableHistorySpec } from '../../src/timetable/timetable-history.js';

const utcToJakarta: TimetableHistorySpec = {
  schedule: '@daily',
  timetable: 'interval',
  timezone: 'Asia/Jakarta',
  start: '2026-11-01T00:00:00Z',
  end: null,
  earlierTimetables: [{ schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-11-01T00:00:00Z', until: '2026-11-05T10:00:00Z' }],
};

const walk = (timetable: ReturnType<typeof createTimetableHistory>, n: number): Slot[] => {
  const out: Slot[] = [];
  for (let slot = timetable.first(); slot && out.length < n; slot = timetable.next(slot)) out.push(slot);
  return out;
};

describe('a timetable history: each period its own slots, by logical date', () => {
  test('UTC days until the change, Jakarta days from it; the straddling UTC day keeps its whole interval', () => {
    const timetable = createTimetableHistory(utcToJakarta);
    expect(walk(timetable, 7).map((s) => [s.date, s.dataInterval.start, s.dataInterval.end])).toEqual([
      ['2026-11-01', '2026-11-01T00:00:00+00:00', '2026-11-02T00:00:00+00:00'],
      ['2026-11-02', '2026-11-02T00:00:00+00:00', '2026-11-03T00:00:00+00:00'],
      ['2026-11-03', '2026-11-03T00:00:00+00:00', '2026-11-04T00:00:00+00:00'],
      ['2026-11-04', '2026-11-04T00:00:00+00:00', '2026-11-05T00:00:00+00:00'],
      ['2026-11-05', '2026-11-05T00:00:00+00:00', '2026-11-06T00:00:00+00:00'],
      ['2026-11-06', '2026-11-06T00:00:00+07:00', '2026-11-07T00:00:00+07:00'],
      ['2026-11-07', '2026-11-07T00:00:00+07:00', '2026-11-08T00:00:00+07:00'],
    ]);
    // A key names its own period's slot.
    expect(timetable.slotAt(timetable.parseDate('2026-11-05'))?.logicalDate).toBe('2026-11-05T00:00:00+00:00');
    expect(timetable.slotAt(timetable.parseDate('2026-11-06'))?.logicalDate).toBe('2026-11-06T00:00:00+07:00');
    // Jakarta's midnight of 11-05 falls under the old timetable: no slot there.
    expect(timetable.slotAt(Date.parse('2026-11-05T00:00:00+07:00'))).toBeUndefined();
    expect(timetable.lastDue(Date.parse('2026-11-06T12:00:00Z'))?.date).toBe('2026-11-05');
    // Jakarta's 11-06 ends at 17:00 UTC of 11-06, after UTC's 11-05 ended: due in order.
    expect(timetable.lastDue(Date.parse('2026-11-06T16:00:00Z'))?.date).toBe('2026-11-05');
    expect(timetable.lastDue(Date.parse('2026-11-07T12:00:00Z'))?.date).toBe('2026-11-06');
    expect(timetable.dailyKeys).toBe(true);
    expect(timetable.spec).toMatchObject({ timezone: 'Asia/Jakarta', start: '2026-11-01T00:00:00Z' });
  });

  test('a date key is never given twice: after a move west, the days not after the old last one are left out', () => {
    // Jakarta until 20:00 UTC of 11-04 (03:00 on 11-05 in Jakarta): its last day is 11-05; UTC's 11-05 would repeat it.
    const timetable = createTimetableHistory({
      schedule: '@daily',
      timetable: 'interval',
      timezone: 'UTC',
      start: '2026-11-01T00:00:00Z',
      end: null,
      earlierTimetables: [{ schedule: '@daily', timetable: 'interval', timezone: 'Asia/Jakarta', start: '2026-11-01T00:00:00+07:00', until: '2026-11-04T20:00:00Z' }],
    });
    const keys = walk(timetable, 7).map((s) => s.date);
    expect(keys).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']);
    expect(new Set(keys).size).toBe(keys.length);
    expect(timetable.slotAt(timetable.parseDate('2026-11-05'))?.logicalDate).toBe('2026-11-05T00:00:00+07:00');
    expect(timetable.slotAt(Date.parse('2026-11-05T00:00:00Z'))).toBeUndefined();
  });

  test('one timetable without earlier ones is the plain timetable', () => {
    const { earlierTimetables: _, ...plain } = utcToJakarta;
    const a = createTimetableHistory(plain);
    const b = createTimetable(plain);
    expect(walk(a, 5)).toEqual([...b.slotsBetween(Number.NEGATIVE_INFINITY, Date.parse('2026-11-05T23:00:00Z'))].slice(0, 5));
  });

  const SCHEDULES = ['@daily', '0 6 * * *', 'every 12h', '@hourly', '@weekly'];
  const ZONES = ['UTC', 'Asia/Jakarta', 'America/New_York', 'Pacific/Kiritimati'];
  const period = fc.record({ schedule: fc.constantFrom(...SCHEDULES), timezone: fc.constantFrom(...ZONES), trigger: fc.boolean(), hours: fc.integer({ min: 1, max: 200 }) });

  test('walking, ranges, counts, lookups and the last due slot agree, and every key is unique', () => {
    fc.assert(
      fc.property(fc.array(period, { minLength: 2, maxLength: 4 }), fc.integer({ min: 0, max: 400 }), (periods, nowHours) => {
        let at = Date.parse('2026-03-01T00:00:00Z');
        const spec = (p: (typeof periods)[number]) => ({ schedule: p.schedule, timetable: p.trigger ? ('trigger' as const) : ('interval' as const), timezone: p.timezone, start: '2026-03-01T00:00:00Z' });
        const earlier = periods.slice(0, -1).map((p) => ({ ...spec(p), until: new Date((at += p.hours * 3_600_000)).toISOString() }));
        const timetable = createTimetableHistory({ ...spec(periods[periods.length - 1] as (typeof periods)[number]), end: null, earlierTimetables: earlier });
        // Past every change and past the latest "now" asked below.
        const toMs = at + 20 * 86_400_000;
        const walked: Slot[] = [];
        for (let slot = timetable.first(); slot && Date.parse(slot.logicalDate) <= toMs; slot = timetable.next(slot)) walked.push(slot);
        expect(new Set(walked.map((s) => s.date)).size).toBe(walked.length);
        expect([...timetable.slotsBetween(Number.NEGATIVE_INFINITY, toMs)]).toEqual(walked);
        const visited: string[] = [];
        timetable.eachSlot(Number.NEGATIVE_INFINITY, toMs, (date) => visited.push(date));
        expect(visited).toEqual(walked.map((s) => s.date));
        expect(timetable.countSlots(Number.NEGATIVE_INFINITY, toMs)).toBe(walked.length);
        for (const slot of walked) {
          const ms = Date.parse(slot.logicalDate);
          expect(timetable.slotAt(ms)).toEqual(slot);
          expect(timetable.slotKeyAt(ms)).toBe(slot.date);
          expect(timetable.slotAt(timetable.parseDate(slot.date))).toEqual(slot);
          expect(timetable.slotAtOrBefore(ms)).toEqual(slot);
        }
        // The last due slot ends the longest prefix of slots whose run-after has passed (due slots are a prefix).
        const nowMs = Date.parse('2026-03-01T00:00:00Z') + nowHours * 3_600_000;
        const notDue = walked.findIndex((s) => Date.parse(s.runAfter) > nowMs);
        expect(timetable.lastDue(nowMs)).toEqual(notDue === -1 ? walked.at(-1) : walked[notDue - 1]);
      }),
      { numRuns: 15 },
    );
  });
});
