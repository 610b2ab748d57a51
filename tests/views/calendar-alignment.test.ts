import { describe, expect, test } from 'vitest';
import { buildCalendar, STATUS_SEVERITY } from '../../projections/views/calendar.js';
import { terminalCalendar } from '../../src/render/terminal-calendar.js';
import { calendarOf } from '../../src/views/load-pages.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

/**
 * A cell's column is its wall-clock position: an off-schedule run and the
 * repeated hour of a fall-back day are marked on the cell they share, and
 * nothing after them moves — in the view model and in the terminal calendar.
 */
describe('calendars that align', () => {
  test('an off-schedule manual run in a daily pipeline leaves November 30 cells, 11-27 under day 27', async () => {
    const now = Date.parse('2026-12-01T00:00:00+07:00');
    const ledger = openMemoryLedger({ clock: () => now });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
    for (const date of ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28']) {
      const run = await ledger.start({ pipeline: 'etl_orders', date });
      await ledger.succeed({ runId: run.runId });
    }
    await ledger.start({ pipeline: 'etl_orders', date: '2026-11-26T12:00:00+07:00', runType: 'manual' });
    const state = await ledger.state({ pipeline: 'etl_orders' });
    const { timetable } = await ledger.pipeline('etl_orders');
    const calendar = calendarOf(timetable, state, now, undefined, false);
    const november = calendar.rows.find((r) => r.label === '2026-11');
    expect(november?.cells).toHaveLength(29); // 11-02 .. 11-30
    expect(november?.cells.map((c) => c.column)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    const cell = (date: string) => november?.cells.find((c) => c.date === date);
    expect(cell('2026-11-27')?.column).toBe(26);
    expect(cell('2026-11-26')?.extras).toEqual([expect.objectContaining({ date: '2026-11-26T12:00:00+07:00', kind: 'off-schedule', status: 'running' })]);

    const line = terminalCalendar(calendar, { color: false }).split('\n').find((l) => l.startsWith('2026-11')) ?? '';
    // Label 8 characters, then two per day: day 27 starts at 8 + 2 × 26.
    expect(line.slice(8 + 2 * 25, 8 + 2 * 25 + 2)).toBe('■+');
    expect(line.slice(8 + 2 * 26, 8 + 2 * 26 + 2)).toBe('■ ');
    expect(line.slice(8 + 2 * 28, 8 + 2 * 28 + 1)).toBe('□');
  });

  test('an hourly pipeline in America/New_York keeps 24 cells on 2026-11-01; the repeated 01:00 is marked on its cell', async () => {
    const now = Date.parse('2026-11-02T00:00:00-05:00');
    const ledger = openMemoryLedger({ clock: () => now });
    await ledger.define({ pipeline: 'ny_hourly', schedule: '@hourly', start: '2026-11-01T00:00:00-04:00', timezone: 'America/New_York' });
    const state = await ledger.state({ pipeline: 'ny_hourly' });
    expect(state.dates.filter((d) => d.date.startsWith('2026-11-01'))).toHaveLength(25);
    const { timetable } = await ledger.pipeline('ny_hourly');
    const calendar = calendarOf(timetable, state, now, undefined, false);
    const day = calendar.rows.find((r) => r.label === '2026-11-01');
    expect(day?.cells.map((c) => c.column)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(day?.cells[1]?.date).toBe('2026-11-01T01:00:00-04:00');
    expect(day?.cells[1]?.extras.map((e) => [e.date, e.kind])).toEqual([['2026-11-01T01:00:00-05:00', 'repeated-hour']]);
    expect(day?.cells[2]?.date).toBe('2026-11-01T02:00:00-05:00');

    const line = terminalCalendar(calendar, { color: false }).split('\n').find((l) => l.startsWith('2026-11-01')) ?? '';
    expect(line.slice(11, 11 + 2 * 24).replace(/ +$/, '')).toBe(`□ □+${'□ '.repeat(22).trimEnd()}`);
  });

  test('schedules finer than an hour share the hour cell, coloured by the worst status inside', () => {
    const row = (date: string, status: 'success' | 'failed') => ({ date, status, stalled: false, attempts: 1, error: null });
    const calendar = buildCalendar({ dates: [row('2026-11-01T00:00:00Z', 'success'), row('2026-11-01T00:15:00Z', 'failed'), row('2026-11-01T01:00:00Z', 'success')], dailyKeys: false, watermark: null, completeThrough: null });
    expect(calendar.rows[0]?.cells.map((c) => [c.column, c.status, c.extras.map((e) => e.kind)])).toEqual([
      [0, 'failed', ['same-hour']],
      [1, 'success', []],
    ]);
    expect(STATUS_SEVERITY.failed).toBeGreaterThan(STATUS_SEVERITY.missing);
  });
});
