import { describe, expect, test } from 'vitest';
import { buildCalendar, type CalendarInput } from '../../projections/views/calendar.js';
import { statusStrip } from '../../projections/views/status-strip.js';
import { calendarOf } from '../../src/views/load-pages.js';
import { fixtureLedger } from './fixture-ledger.js';

const row = (date: string, status: CalendarInput['status'], extra: Partial<CalendarInput> = {}): CalendarInput => ({ date, status, stalled: false, attempts: status === 'missing' ? 0 : 1, error: null, ...extra });

describe('calendar view model', () => {
  test.each(['s2-generations', 's5-watermark-monotonic', 's6-complete-through', 's7-pending-reasons', 's8-clear-fences-running'])(
    'the %s fixture: one cell per date key with its state status, the watermark and complete-through marked',
    async (name) => {
      const { ledger, expected } = fixtureLedger(name);
      const pipeline = (await ledger.pipelines())[0]?.pipeline ?? '';
      const state = await ledger.state({ pipeline });
      const { timetable } = await ledger.pipeline(pipeline);
      const calendar = calendarOf(timetable, state, ledger.now(), undefined, false);
      const cells = calendar.rows.flatMap((r) => r.cells.flatMap((c) => [c, ...c.extras])).filter((c) => c.status !== 'not-due');
      expect(Object.fromEntries(cells.map((c) => [c.date, c.status === 'stalled' ? 'running' : c.status]))).toEqual(
        Object.fromEntries(state.dates.map((d) => [d.date, d.status])),
      );
      expect(cells.filter((c) => c.watermark).map((c) => c.date)).toEqual(expected.watermark ? [expected.watermark] : []);
      expect(cells.filter((c) => c.completeThrough).map((c) => c.date)).toEqual(expected.completeThrough ? [expected.completeThrough] : []);
    },
  );

  test('a daily pipeline gets a row per month with the day of the month as column, and the rest of the month not yet due', async () => {
    const { ledger } = fixtureLedger('s6-complete-through');
    const state = await ledger.state({ pipeline: 'etl_orders' });
    const { timetable } = await ledger.pipeline('etl_orders');
    const calendar = calendarOf(timetable, state, ledger.now(), undefined, false);
    expect(calendar.layout).toBe('month');
    expect(calendar.rows.map((r) => r.label)).toEqual(['2026-11']);
    const cells = calendar.rows[0]?.cells ?? [];
    expect(cells.slice(0, 3).map((c) => [c.date, c.column, c.status])).toEqual([
      ['2026-11-02', 1, 'success'],
      ['2026-11-03', 2, 'cleared'],
      ['2026-11-04', 3, 'success'],
    ]);
    // 11-05 .. 11-30 are not due at 2026-11-05T01:00+07:00.
    expect(cells.slice(3).every((c) => c.status === 'not-due')).toBe(true);
    expect(cells.at(-1)?.date).toBe('2026-11-30');
  });

  test('an hourly pipeline gets a row per local day with the hour as column; the repeated hour of a 25-hour DST day is kept on its cell', () => {
    const keys = ['2026-10-25T00:00:00+02:00', '2026-10-25T01:00:00+02:00', '2026-10-25T02:00:00+02:00', '2026-10-25T02:00:00+01:00', '2026-10-25T03:00:00+01:00', '2026-10-26T00:00:00+01:00'];
    const calendar = buildCalendar({ dates: keys.map((k) => row(k, 'success')), dailyKeys: false, watermark: keys.at(-1) ?? null, completeThrough: keys.at(-1) ?? null });
    expect(calendar.layout).toBe('day');
    expect(calendar.columns).toBe(24);
    expect(calendar.rows.map((r) => [r.label, r.cells.map((c) => c.column)])).toEqual([
      ['2026-10-25', [0, 1, 2, 3]],
      ['2026-10-26', [0]],
    ]);
    expect(calendar.rows[0]?.cells[2]?.extras.map((e) => [e.date, e.kind])).toEqual([['2026-10-25T02:00:00+01:00', 'repeated-hour']]);
  });

  test('long histories keep the most recent rows and say how many are hidden; counts cover them all', () => {
    const dates = Array.from({ length: 40 }, (_, i) => row(`2026-${String(Math.floor(i / 2) % 12 + 1).padStart(2, '0')}-0${(i % 2) + 1}`, i % 2 ? 'failed' : 'success'));
    dates.sort((a, b) => a.date.localeCompare(b.date));
    const calendar = buildCalendar({ dates, dailyKeys: true, watermark: null, completeThrough: null, maxRows: 3 });
    expect(calendar.rows.map((r) => r.label)).toEqual(['2026-10', '2026-11', '2026-12']);
    expect(calendar.hiddenRows).toBe(9);
    expect(calendar.counts.success + calendar.counts.failed).toBe(40);
  });

  test('a running key whose lease expired is stalled; a failed one carries its error', () => {
    const calendar = buildCalendar({
      dates: [row('2026-11-02', 'running', { stalled: true }), row('2026-11-03', 'failed', { error: 'boom' }), row('2026-11-04', 'running')],
      dailyKeys: true,
      watermark: null,
      completeThrough: null,
    });
    expect(calendar.rows[0]?.cells.map((c) => [c.status, c.error])).toEqual([
      ['stalled', null],
      ['failed', 'boom'],
      ['running', null],
    ]);
    expect(statusStrip([row('2026-11-02', 'running', { stalled: true }), row('2026-11-03', 'failed', { error: 'boom' })], 1)).toEqual([{ date: '2026-11-03', status: 'failed', error: 'boom', note: null }]);
  });
});
