import { createColors } from 'picocolors';
import { CELL_STATUSES, type CalendarView, type CellStatus } from '../../projections/views/calendar.js';
import { STATUS_WORDS } from './calendar-html.js';

/** One glyph per status, so the calendar reads without colour. */
export const GLYPHS: Record<CellStatus, string> = {
  success: '■',
  skipped: '–',
  failed: '✗',
  up_for_retry: '↻',
  running: '▶',
  stalled: '!',
  interrupted: '‖',
  cleared: '○',
  missing: '□',
  'not-due': '·',
};

type Colors = ReturnType<typeof createColors>;

function paint(colors: Colors, status: CellStatus, text: string): string {
  switch (status) {
    case 'success':
      return colors.green(text);
    case 'skipped':
      return colors.magentaBright(text);
    case 'failed':
      return colors.red(text);
    case 'up_for_retry':
      return colors.yellowBright(text);
    case 'running':
      return colors.blue(text);
    case 'stalled':
      return colors.magenta(text);
    case 'interrupted':
      return colors.gray(text);
    case 'cleared':
      return colors.cyan(text);
    case 'missing':
      return colors.yellow(text);
    case 'not-due':
      return colors.dim(text);
    default: {
      const unknown: never = status;
      return String(unknown);
    }
  }
}

/**
 * The calendar for a terminal: a row per month (a column per day) or per
 * local day (a column per hour), a glyph per status, colour only when asked
 * (a TTY with `NO_COLOR` unset), the watermark and complete-through marked on
 * their rows, a legend, and a line saying how many older rows are hidden.
 *
 * @example
 * ctx.out(terminalCalendar(buildCalendar({ dates, dailyKeys: true, watermark, completeThrough }), { color: false }))
 */
export function terminalCalendar(calendar: CalendarView, options: { color: boolean; pipeline?: string }): string {
  const colors = createColors(options.color);
  const lines: string[] = [];
  const labelWidth = calendar.layout === 'month' ? 8 : 11;
  if (calendar.hiddenRows > 0) {
    const unit = calendar.layout === 'month' ? 'month' : 'day';
    lines.push(colors.dim(`… ${calendar.hiddenRows} earlier ${unit}${calendar.hiddenRows === 1 ? '' : 's'} hidden; choose the range with --from/--to`));
  }
  const head = Array.from({ length: calendar.columns }, (_, i) => {
    const label = calendar.layout === 'month' ? i + 1 : i;
    return (calendar.layout === 'month' && label === 1) || label % 5 === 0 ? String(label).padEnd(2) : '  ';
  }).join('');
  lines.push(colors.dim(`${(calendar.layout === 'month' ? 'day' : 'hour').padEnd(labelWidth)}${head}`.trimEnd()));
  for (const row of calendar.rows) {
    let text = '';
    let column = 0;
    const marks: string[] = [];
    for (const cell of row.cells) {
      for (; column < cell.column; column++) text += '  ';
      let glyph = paint(colors, cell.status, GLYPHS[cell.status]);
      if (cell.watermark || cell.completeThrough) glyph = colors.bold(colors.underline(glyph));
      // A repeated hour or an off-schedule run keeps to its cell: a '+' in the cell's second character.
      const extra = cell.extras.find((e) => e.kind !== 'same-hour');
      text += `${glyph}${extra ? paint(colors, extra.status, '+') : ' '}`;
      column = Math.max(column, cell.column + 1);
      for (const key of [cell, ...cell.extras]) {
        if (key.watermark) marks.push(`watermark ${key.date}`);
        if (key.completeThrough) marks.push(`complete through ${key.date}`);
      }
    }
    lines.push(`${row.label.padEnd(labelWidth)}${text.trimEnd()}${marks.length ? `   ◀ ${marks.join(', ')}` : ''}`);
  }
  lines.push('');
  lines.push(CELL_STATUSES.map((s) => `${paint(colors, s, GLYPHS[s])} ${STATUS_WORDS[s]}`).join('  '));
  if (calendar.rows.some((r) => r.cells.some((c) => c.extras.some((e) => e.kind !== 'same-hour')))) {
    lines.push('+ after a cell: a repeated hour (clocks went back) or an off-schedule run shares it; `state --json` lists each');
  }
  const shown = CELL_STATUSES.filter((s) => s !== 'not-due' && calendar.counts[s] > 0).map((s) => `${calendar.counts[s]} ${s === 'up_for_retry' ? 'up for retry' : s}`);
  lines.push(
    `${options.pipeline ? `${options.pipeline}: ` : ''}watermark ${calendar.watermark ?? 'none'}, complete through ${calendar.completeThrough ?? 'none'}${shown.length ? ` (${shown.join(', ')})` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}
