import { describe, expect, test } from 'vitest';
import { buildCalendar, type CalendarInput } from '../../projections/views/calendar.js';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { GLYPHS, terminalCalendar } from '../../src/render/terminal-calendar.js';
import { openLedger } from '../../src/open-ledger.js';
import { join } from 'node:path';
import { tempDir } from '../support/run-cli.js';

const ESC = '\u001b[';
const row = (date: string, status: CalendarInput['status'], extra: Partial<CalendarInput> = {}): CalendarInput => ({ date, status, stalled: false, attempts: 1, error: null, ...extra });

describe('terminal calendar', () => {
  const calendar = buildCalendar({
    dates: [row('2026-11-02', 'success'), row('2026-11-03', 'failed'), row('2026-11-04', 'running', { stalled: true }), row('2026-11-05', 'cleared'), row('2026-11-06', 'missing'), row('2026-11-07', 'running')],
    notDue: ['2026-11-08'],
    dailyKeys: true,
    watermark: '2026-11-02',
    completeThrough: '2026-11-02',
  });

  test('without colour: no escape codes, a glyph per status in its day column, marks and a legend', () => {
    const text = terminalCalendar(calendar, { color: false, pipeline: 'etl_orders' });
    expect(text).not.toContain(ESC);
    const line = text.split('\n').find((l) => l.startsWith('2026-11')) ?? '';
    // Day 1 has no slot: two blanks, then one glyph and a space per day.
    expect(line.slice(8, 8 + 2 * 8).trimEnd()).toBe(`  ${['success', 'failed', 'stalled', 'cleared', 'missing', 'running', 'not-due'].map((s) => GLYPHS[s as keyof typeof GLYPHS]).join(' ')}`);
    expect(line).toContain('◀ watermark 2026-11-02, complete through 2026-11-02');
    for (const word of ['success', 'failed', 'running', 'stalled', 'cleared', 'missing', 'not yet due']) expect(text).toContain(word);
    expect(text).toContain('etl_orders: watermark 2026-11-02, complete through 2026-11-02');
  });

  test('with colour: picocolors escapes around each glyph', () => {
    const text = terminalCalendar(calendar, { color: true });
    expect(text).toContain(`${ESC}32m${GLYPHS.success}`);
    expect(text).toContain(`${ESC}31m${GLYPHS.failed}`);
  });

  test('folded histories say how many rows are hidden', () => {
    const months = Array.from({ length: 30 }, (_, i) => row(`${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`, 'success'));
    const text = terminalCalendar(buildCalendar({ dates: months, dailyKeys: true, watermark: null, completeThrough: null, maxRows: 12 }), { color: false });
    expect(text).toContain('… 18 earlier months hidden; choose the range with --from/--to');
    expect(text.split('\n').filter((l) => /^\d{4}-\d{2} /.test(l))).toHaveLength(12);
  });
});

describe('state draws the calendar', () => {
  async function setup() {
    const db = join(tempDir('runledger-cal-'), 'ledger.db');
    const ledger = await openLedger({ db, clock: () => Date.parse('2026-11-05T01:00:00+07:00') });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
    await ledger.succeed({ runId: run.runId });
    await ledger.close();
    return db;
  }
  async function state(db: string, args: string[], deps: { stdoutIsTTY: boolean; env?: Record<string, string> }) {
    let out = '';
    const code = await runCli(['--db', db, '--now', '2026-11-05T01:00:00+07:00', 'state', 'etl_orders', ...args], { stdout: (t) => (out += t), stderr: () => undefined, env: deps.env ?? {}, clock: () => 0, isTTY: deps.stdoutIsTTY, stdoutIsTTY: deps.stdoutIsTTY }, extraCommands);
    return { code, out };
  }

  test('on a terminal: the calendar in colour; with NO_COLOR: the same glyphs without escapes', async () => {
    const db = await setup();
    const tty = await state(db, [], { stdoutIsTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.out).toContain(ESC);
    expect(tty.out).toContain('2026-11');
    const plain = await state(db, [], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(plain.out).not.toContain(ESC);
    expect(plain.out).toMatch(/2026-11 {3}■ □ □ · ·/);
    expect(plain.out).toContain('◀ watermark 2026-11-02, complete through 2026-11-02');
  });

  test('piped: the table, unless --calendar asks for the calendar (without colour)', async () => {
    const db = await setup();
    const piped = await state(db, [], { stdoutIsTTY: false });
    expect(piped.out).toMatch(/^DATE\s+STATUS/);
    const asked = await state(db, ['--calendar'], { stdoutIsTTY: false });
    expect(asked.out).not.toContain(ESC);
    expect(asked.out).toContain('■');
    const table = await state(db, ['--table'], { stdoutIsTTY: true });
    expect(table.out).toMatch(/^DATE\s+STATUS/);
  });
});
