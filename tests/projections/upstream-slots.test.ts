import { describe, expect, test } from 'vitest';
import { dependencyOrder, findCycle, withDownstreams } from '../../projections/dependency-graph.js';
import { dependentSlots, firstBlocking, intervalsOverlap, upstreamSlots } from '../../projections/upstream-slots.js';
import { initialState } from '../../projections/pipeline-state.js';
import { createTimetable } from '../../src/timetable/create-timetable.js';

const hourlyJakarta = createTimetable({ schedule: '@hourly', timetable: 'interval', timezone: 'Asia/Jakarta', start: '2026-11-01', end: null });
const dailyUtc = createTimetable({ schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-11-01', end: null });
const dailyJakarta = createTimetable({ schedule: '@daily', timetable: 'interval', timezone: 'Asia/Jakarta', start: '2026-11-01', end: null });
const hourlyUtc = createTimetable({ schedule: '@hourly', timetable: 'interval', timezone: 'UTC', start: '2026-11-01', end: null });
const day = (tt: typeof dailyUtc, key: string) => tt.slotAt(tt.parseDate(key)) as NonNullable<ReturnType<typeof tt.slotAt>>;

describe('which upstream slots a slot waits for', () => {
  test('a daily UTC slot waits for the 24 Jakarta hours whose instants lie in its UTC day', () => {
    const slots = upstreamSlots('overlap', day(dailyUtc, '2026-11-03').dataInterval, hourlyJakarta);
    expect(slots).toHaveLength(24);
    expect(slots[0]?.date).toBe('2026-11-03T07:00:00+07:00');
    expect(slots.at(-1)?.date).toBe('2026-11-04T06:00:00+07:00');
  });

  test('an hourly UTC slot waits for the one Jakarta day covering its hour', () => {
    const hour = hourlyUtc.slotAt(Date.parse('2026-11-03T18:00:00Z'));
    expect(upstreamSlots('overlap', hour?.dataInterval ?? { start: '', end: '' }, dailyJakarta).map((s) => s.date)).toEqual(['2026-11-04']);
  });

  test('previous is the upstream slot just before the first overlapping one', () => {
    expect(upstreamSlots('previous', day(dailyUtc, '2026-11-03').dataInterval, hourlyJakarta).map((s) => s.date)).toEqual(['2026-11-03T06:00:00+07:00']);
    expect(upstreamSlots('previous', day(dailyUtc, '2026-11-03').dataInterval, dailyUtc).map((s) => s.date)).toEqual(['2026-11-02']);
  });

  test('an upstream that starts later, or has no slot before, gives nothing to wait for', () => {
    expect(upstreamSlots('previous', day(dailyUtc, '2026-11-01').dataInterval, dailyUtc)).toEqual([]);
    const late = createTimetable({ schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-12-01', end: null });
    expect(upstreamSlots('overlap', day(dailyUtc, '2026-11-03').dataInterval, late)).toEqual([]);
  });

  test.each([
    { label: 'touching intervals do not overlap', a: ['2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z'], b: ['2026-11-04T00:00:00Z', '2026-11-05T00:00:00Z'], overlap: false },
    { label: 'the same instant in two zones', a: ['2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z'], b: ['2026-11-03T23:00:00+07:00', '2026-11-04T00:00:00+07:00'], overlap: true },
    { label: 'an instant inside an interval', a: ['2026-11-03T05:00:00Z', '2026-11-03T05:00:00Z'], b: ['2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z'], overlap: true },
    { label: 'an instant at the end of an interval', a: ['2026-11-04T00:00:00Z', '2026-11-04T00:00:00Z'], b: ['2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z'], overlap: false },
  ])('$label', ({ a, b, overlap }) => {
    expect(intervalsOverlap({ start: a[0] as string, end: a[1] as string }, { start: b[0] as string, end: b[1] as string })).toBe(overlap);
  });

  test('the inverse mapping finds exactly the slots whose forward mapping names the upstream slot', () => {
    const hour = hourlyJakarta.slotAt(Date.parse('2026-11-03T06:00:00+07:00'));
    if (!hour) throw new Error('no hour');
    // 06:00 in Jakarta is 23:00 UTC the day before.
    expect(dependentSlots('overlap', hour, hourlyJakarta, dailyUtc).map((s) => s.date)).toEqual(['2026-11-02']);
    // It is the hour before the first hour of the UTC 3rd.
    expect(dependentSlots('previous', hour, hourlyJakarta, dailyUtc).map((s) => s.date)).toEqual(['2026-11-03']);
  });

  test('the first blocking slot is named with its status; done upstream slots block nothing', () => {
    const state = initialState('orders_raw');
    const upstreams = [{ upstream: { pipeline: 'orders_raw', mapping: 'overlap' as const }, source: hourlyJakarta, state }];
    const interval = day(dailyUtc, '2026-11-03').dataInterval;
    expect(firstBlocking(interval, upstreams)).toEqual({ pipeline: 'orders_raw', date: '2026-11-03T07:00:00+07:00', status: 'missing' });
    for (const slot of upstreamSlots('overlap', interval, hourlyJakarta)) {
      state.dates.set(slot.date, { status: 'success' } as never);
    }
    expect(firstBlocking(interval, upstreams)).toBeNull();
  });
});

describe('the dependency graph', () => {
  const up = (...names: string[]) => names.map((pipeline) => ({ pipeline, mapping: 'overlap' as const }));

  test('a cycle is named by the path that closes it', () => {
    expect(findCycle(new Map([['a', up('c')], ['b', up('a')], ['c', up('b')]]))).toEqual(['a', 'c', 'b', 'a']);
    expect(findCycle(new Map([['a', []], ['b', up('a')], ['c', up('a', 'b')]]))).toBeNull();
  });

  test('every pipeline comes after its upstreams, and downstreams are found transitively', () => {
    const graph = new Map([['report', up('clean')], ['clean', up('raw')], ['raw', []], ['other', []]]);
    const order = dependencyOrder(graph);
    expect(order.indexOf('raw')).toBeLessThan(order.indexOf('clean'));
    expect(order.indexOf('clean')).toBeLessThan(order.indexOf('report'));
    expect(withDownstreams(graph, 'raw')).toEqual(['raw', 'clean', 'report']);
  });
});
