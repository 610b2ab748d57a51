import type { RangeInput } from '../ledger/ledger-types.js';
import { terminalCalendar } from '../render/terminal-calendar.js';
import { calendarOf, pageTime } from '../views/load-pages.js';
import type { CliContext } from './cli-context.js';

/** Most recent rows `state` draws without --from/--to: a year of months, or a month of days. */
const MONTH_ROWS = 12;
const DAY_ROWS = 31;

/**
 * `state` as a calendar: the same dates as the table, laid out a month (or a
 * local day) per row; colour only on a terminal with NO_COLOR unset.
 *
 * @example
 * await printStateCalendar(ctx, { pipeline: 'etl_orders' })
 */
export async function printStateCalendar(ctx: CliContext, input: RangeInput): Promise<void> {
  const text = await ctx.withLedger(false, async (ledger) => {
    const time = await pageTime(ledger, input.asOf);
    const { timetable } = await ledger.pipeline(input.pipeline, input.asOf);
    const state = await ledger.state(input);
    const chosen = input.from !== undefined || input.to !== undefined;
    const maxRows = chosen ? undefined : timetable.dailyKeys ? MONTH_ROWS : DAY_ROWS;
    const calendar = calendarOf(timetable, state, time.nowMs, maxRows, input.to !== undefined);
    const noColor = (ctx.deps.env['NO_COLOR'] ?? '') !== '';
    return terminalCalendar(calendar, { color: ctx.deps.stdoutIsTTY === true && !noColor, pipeline: input.pipeline });
  });
  // Its own colours: the calendar holds glyphs, dates and counts, no writer's text.
  ctx.outVerbatim(text);
}
