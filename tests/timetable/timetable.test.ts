import { describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';
import type { Timetable, TimetableSpec } from '../../src/timetable/timetable.js';

function timetable(spec: Partial<TimetableSpec> = {}): Timetable {
  return createTimetable({ schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-01-01', end: null, ...spec });
}

const at = (text: string): number => Date.parse(text);

describe('slot shape by timetable kind', () => {
  test('interval: the slot covers [tick, next tick) and is due at the next tick', () => {
    expect(timetable({ timezone: 'Asia/Jakarta', start: '2026-11-02' }).first()).toEqual({
      date: '2026-11-02',
      logicalDate: '2026-11-02T00:00:00+07:00',
      dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' },
      runAfter: '2026-11-03T00:00:00+07:00',
    });
  });

  test('trigger: the slot is zero-width and due at its tick', () => {
    expect(timetable({ timezone: 'Asia/Jakarta', start: '2026-11-02', timetable: 'trigger' }).first()).toEqual({
      date: '2026-11-02',
      logicalDate: '2026-11-02T00:00:00+07:00',
      dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-02T00:00:00+07:00' },
      runAfter: '2026-11-02T00:00:00+07:00',
    });
  });
});

describe('date keys', () => {
  test.each([
    { label: '@daily', schedule: '@daily', dailyKeys: true },
    { label: '@weekly', schedule: '@weekly', dailyKeys: true },
    { label: '@monthly', schedule: '@monthly', dailyKeys: true },
    { label: '@yearly', schedule: '@yearly', dailyKeys: true },
    { label: 'midnight on Mondays', schedule: '0 0 * * 1', dailyKeys: true },
    { label: 'midnight on the 1st', schedule: '0 0 1 * *', dailyKeys: true },
    { label: '@hourly', schedule: '@hourly', dailyKeys: false },
    { label: 'daily at 02:00 (not midnight)', schedule: '0 2 * * *', dailyKeys: false },
    { label: 'twice in the midnight hour', schedule: '0,30 0 * * *', dailyKeys: false },
    { label: 'fixed durations never (they drift off midnight)', schedule: 'every 1d', dailyKeys: false },
  ])('$label: dailyKeys $dailyKeys', ({ schedule, dailyKeys }) => {
    expect(timetable({ schedule }).dailyKeys).toBe(dailyKeys);
  });

  test.each([
    { label: 'Jakarta daily key is the local date', schedule: '@daily', zone: 'Asia/Jakarta', ms: '2026-11-01T17:00:00Z', key: '2026-11-02' },
    { label: 'New York daily key', schedule: '@daily', zone: 'America/New_York', ms: '2026-11-01T04:00:00Z', key: '2026-11-01' },
    { label: 'hourly key carries the local offset', schedule: '@hourly', zone: 'Asia/Jakarta', ms: '2026-11-01T17:00:00Z', key: '2026-11-02T00:00:00+07:00' },
    { label: 'second 02:00 in Paris (CET)', schedule: '@hourly', zone: 'Europe/Paris', ms: '2025-10-26T01:00:00Z', key: '2025-10-26T02:00:00+01:00' },
  ])('$label: $key', ({ schedule, zone, ms, key }) => {
    const tt = timetable({ schedule, timezone: zone, start: '2025-01-01' });
    expect(tt.keyOf(at(ms))).toBe(key);
    expect(tt.parseDate(key)).toBe(at(ms));
    expect(tt.slotAt(at(ms))?.date).toBe(key);
  });

  test('Asia/Jakarta @daily: consecutive keys, +07:00 instants', () => {
    const tt = timetable({ timezone: 'Asia/Jakarta', start: '2026-10-30', end: '2026-11-02' });
    const slots = [...tt.slotsBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)];
    expect(slots.map((slot) => slot.date)).toEqual(['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02']);
    expect(slots.map((slot) => slot.logicalDate.slice(-6))).toEqual(['+07:00', '+07:00', '+07:00', '+07:00']);
  });
});

describe('start and end bounds', () => {
  test.each([
    { label: 'start on a tick is the first slot', start: '2026-01-01', first: '2026-01-01' },
    { label: 'start between ticks: the first tick after it', start: '2026-01-01T00:00:01Z', first: '2026-01-02' },
    { label: 'start late in the day', start: '2026-01-01T23:59:00Z', first: '2026-01-02' },
    { label: 'start as local wall time', start: '2026-01-01T12:00', first: '2026-01-02' },
  ])('@daily: $label', ({ start, first }) => {
    expect(timetable({ start }).first()?.date).toBe(first);
  });

  test.each([
    { label: 'weekly aligns to Sunday', schedule: '@weekly', start: '2026-01-01', first: '2026-01-04' },
    { label: 'monthly aligns to the 1st', schedule: '@monthly', start: '2026-01-15', first: '2026-02-01' },
    { label: 'every 6h starts exactly at start, aligned or not', schedule: 'every 6h', start: '2026-01-01T01:23:00Z', first: '2026-01-01T01:23:00+00:00' },
    { label: 'every 15m keeps seconds of start', schedule: 'every 15m', start: '2026-01-01T00:00:30Z', first: '2026-01-01T00:00:30+00:00' },
  ])('$label', ({ schedule, start, first }) => {
    expect(timetable({ schedule, start }).first()?.date).toBe(first);
  });

  test('end is inclusive: a slot whose logical date equals end is the last one', () => {
    const tt = timetable({ start: '2026-01-01', end: '2026-01-03' });
    const slots = [...tt.slotsBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)];
    expect(slots.map((slot) => slot.date)).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
    const last = slots[2];
    if (last === undefined) throw new Error('expected three slots');
    expect(tt.next(last)).toBeUndefined();
    expect(last.runAfter).toBe('2026-01-04T00:00:00+00:00');
  });

  test('end between ticks keeps the last tick before it', () => {
    const tt = timetable({ start: '2026-01-01', end: '2026-01-03T12:00:00Z' });
    expect([...tt.slotsBetween(0, Number.POSITIVE_INFINITY)].map((slot) => slot.date)).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
  });

  test('end before the first tick: no slots at all', () => {
    const tt = timetable({ start: '2026-01-01T00:00:01Z', end: '2026-01-01T12:00:00Z' });
    expect(tt.first()).toBeUndefined();
    expect([...tt.slotsBetween(0, Number.POSITIVE_INFINITY)]).toEqual([]);
    expect(tt.lastDue(at('2027-01-01T00:00:00Z'))).toBeUndefined();
  });

  test('slotsBetween clips to start and end and includes both range ends', () => {
    const tt = timetable({ start: '2026-01-05', end: '2026-01-10' });
    expect([...tt.slotsBetween(at('2026-01-01T00:00:00Z'), at('2026-01-07T00:00:00Z'))].map((s) => s.date)).toEqual([
      '2026-01-05', '2026-01-06', '2026-01-07',
    ]);
    expect([...tt.slotsBetween(at('2026-01-09T00:00:00Z'), at('2026-02-01T00:00:00Z'))].map((s) => s.date)).toEqual([
      '2026-01-09', '2026-01-10',
    ]);
  });

  test('slotsBetween is lazy: an open-ended minutely range yields its first slots at once', () => {
    const tt = timetable({ schedule: '* * * * *', start: '2000-01-01', end: null });
    const iterator = tt.slotsBetween(0, Number.POSITIVE_INFINITY)[Symbol.iterator]();
    expect(iterator.next().value?.date).toBe('2000-01-01T00:00:00+00:00');
    expect(iterator.next().value?.date).toBe('2000-01-01T00:01:00+00:00');
  });

  test('next walks the same slots as slotsBetween', () => {
    const tt = timetable({ schedule: '0 */6 * * *', timezone: 'Australia/Sydney', start: '2026-04-03', end: '2026-04-07' });
    const walked = [];
    for (let slot = tt.first(); slot !== undefined; slot = tt.next(slot)) walked.push(slot);
    expect(walked).toEqual([...tt.slotsBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)]);
    expect(walked).toHaveLength(17);
  });
});

describe('slotAt finds a slot only at an exact tick within bounds', () => {
  const tt = timetable({ schedule: '@hourly', start: '2026-01-01T05:00:00Z', end: '2026-01-02T00:00:00Z' });
  test.each([
    { label: 'exact tick', ms: '2026-01-01T06:00:00Z', date: '2026-01-01T06:00:00+00:00' },
    { label: 'first slot', ms: '2026-01-01T05:00:00Z', date: '2026-01-01T05:00:00+00:00' },
    { label: 'end is inclusive', ms: '2026-01-02T00:00:00Z', date: '2026-01-02T00:00:00+00:00' },
    { label: 'one ms off a tick', ms: '2026-01-01T06:00:00.001Z', date: undefined },
    { label: 'tick before start', ms: '2026-01-01T04:00:00Z', date: undefined },
    { label: 'tick after end', ms: '2026-01-02T01:00:00Z', date: undefined },
  ])('$label', ({ ms, date }) => {
    expect(tt.slotAt(at(ms))?.date).toBe(date);
  });
});

describe('lastDue: the latest slot whose runAfter has passed', () => {
  test.each([
    { label: 'interval: before the first slot is due', kind: 'interval', now: '2026-01-01T23:59:59Z', due: undefined },
    { label: 'interval: the first slot is due when its day is over', kind: 'interval', now: '2026-01-02T00:00:00Z', due: '2026-01-01' },
    { label: 'interval: mid-day, yesterday is the latest due', kind: 'interval', now: '2026-03-10T13:00:00Z', due: '2026-03-09' },
    { label: 'interval: capped at end', kind: 'interval', now: '2027-01-01T00:00:00Z', due: '2026-06-30' },
    { label: 'trigger: nothing before start', kind: 'trigger', now: '2025-12-31T23:59:59Z', due: undefined },
    { label: 'trigger: due at its own tick', kind: 'trigger', now: '2026-01-01T00:00:00Z', due: '2026-01-01' },
    { label: 'trigger: mid-day, today is the latest due', kind: 'trigger', now: '2026-03-10T13:00:00Z', due: '2026-03-10' },
    { label: 'trigger: capped at end', kind: 'trigger', now: '2027-01-01T00:00:00Z', due: '2026-06-30' },
  ] as const)('$label', ({ kind, now, due }) => {
    const tt = timetable({ timetable: kind, end: '2026-06-30' });
    expect(tt.lastDue(at(now))?.date).toBe(due);
  });

  test.each([
    { label: 'interval hourly in New York just after fall back', kind: 'interval', now: '2026-11-01T06:30:00Z', due: '2026-11-01T01:00:00-04:00' },
    { label: 'trigger hourly in New York just after fall back', kind: 'trigger', now: '2026-11-01T06:30:00Z', due: '2026-11-01T01:00:00-05:00' },
  ] as const)('$label', ({ kind, now, due }) => {
    const tt = timetable({ schedule: '@hourly', timezone: 'America/New_York', timetable: kind });
    expect(tt.lastDue(at(now))?.date).toBe(due);
  });

  test('a minutely schedule over 26 years finds the latest due slot across the spring gap', () => {
    const tt = timetable({ schedule: '* * * * *', timezone: 'Europe/Berlin', start: '2000-01-01' });
    const due = tt.lastDue(at('2026-03-29T01:00:30Z'));
    // 03:00 CEST is the first tick after the gap; the slot before it (01:59 CET) is the latest due.
    expect(due?.dataInterval).toEqual({ start: '2026-03-29T01:59:00+01:00', end: '2026-03-29T03:00:00+02:00' });
  });
});

describe('intervalFor an arbitrary (off-schedule) logical date', () => {
  test.each([
    { label: 'interval: off-schedule instant gets the enclosing slot', kind: 'interval', ms: '2026-03-10T13:00:00Z', interval: { start: '2026-03-10T00:00:00+00:00', end: '2026-03-11T00:00:00+00:00' } },
    { label: 'interval: a tick gets its own slot', kind: 'interval', ms: '2026-03-10T00:00:00Z', interval: { start: '2026-03-10T00:00:00+00:00', end: '2026-03-11T00:00:00+00:00' } },
    { label: 'interval: before start still follows the schedule', kind: 'interval', ms: '2025-12-25T06:00:00Z', interval: { start: '2025-12-25T00:00:00+00:00', end: '2025-12-26T00:00:00+00:00' } },
    { label: 'trigger: zero-width at the instant itself', kind: 'trigger', ms: '2026-03-10T13:00:00Z', interval: { start: '2026-03-10T13:00:00+00:00', end: '2026-03-10T13:00:00+00:00' } },
  ] as const)('$label', ({ kind, ms, interval }) => {
    expect(timetable({ timetable: kind }).intervalFor(at(ms))).toEqual(interval);
  });

  test('every 6h: the interval is measured from start', () => {
    const tt = timetable({ schedule: 'every 6h', start: '2026-01-01T01:00:00Z' });
    expect(tt.intervalFor(at('2026-01-02T12:00:00Z'))).toEqual({ start: '2026-01-02T07:00:00+00:00', end: '2026-01-02T13:00:00+00:00' });
  });
});

describe('bad specs are refused with input.* codes (exit code 2)', () => {
  test.each([
    { label: 'unknown zone', spec: { timezone: 'Europe/Atlantis' }, code: 'input.unknownZone', message: "timezone 'Europe/Atlantis'" },
    { label: 'malformed cron', spec: { schedule: '0 25 * * *' }, code: 'input.invalidSchedule', message: "hour field '25'" },
    { label: 'invalid start date', spec: { start: '2026-02-30' }, code: 'input.invalidDate', message: "timetable start: '2026-02-30' is not a valid date" },
    { label: 'invalid end date', spec: { end: '2026-13-01' }, code: 'input.invalidDate', message: "timetable end: '2026-13-01' is not a valid date" },
    { label: 'unknown kind', spec: { timetable: 'cron' as 'interval' }, code: 'input.invalidTimetable', message: "timetable 'cron' is unknown" },
  ])('$label', ({ spec, code, message }) => {
    let thrown: unknown;
    try {
      timetable(spec);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LedgerError);
    expect((thrown as LedgerError).code).toBe(code);
    expect((thrown as LedgerError).exitCode).toBe(2);
    expect((thrown as LedgerError).message).toContain(message);
  });

  test('parseDate refuses an impossible date', () => {
    expect(() => timetable().parseDate('2026-02-30')).toThrow("'2026-02-30' is not a valid date: February 2026 has 28 days");
  });
});
