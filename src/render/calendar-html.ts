import { CELL_STATUSES, type CalendarCell, type CalendarView, type CellStatus, type ExtraKind } from '../../projections/views/calendar.js';
import { html, join, type Html } from './escape-html.js';

/** Words for each cell status, shared by the legend, tooltips and the terminal calendar. */
export const STATUS_WORDS: Record<CellStatus, string> = {
  success: 'success',
  skipped: 'skipped',
  failed: 'failed',
  up_for_retry: 'up for retry',
  running: 'running',
  stalled: 'stalled (lease expired)',
  interrupted: 'interrupted',
  cleared: 'cleared',
  missing: 'missing',
  'not-due': 'not yet due',
};

/** Words for why a key shares a cell. */
export const EXTRA_WORDS: Record<ExtraKind, string> = {
  'repeated-hour': 'repeated hour (clocks went back)',
  'off-schedule': 'off-schedule run',
  'same-hour': 'another slot in this hour',
};

/** A cell's tooltip (kept short: a report holds thousands). */
function cellTitle(cell: { date: string; status: CellStatus; watermark?: boolean; completeThrough?: boolean; attempts?: number; error?: string | null; note?: string | null; blocked?: string | undefined }): string {
  return [
    `${cell.date}: ${STATUS_WORDS[cell.status]}`,
    cell.attempts && cell.attempts > 1 ? `${cell.attempts} attempts` : '',
    cell.watermark ? 'watermark' : '',
    cell.completeThrough ? 'complete through' : '',
    cell.note ?? '',
    cell.error ?? '',
    cell.blocked ?? '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * A calendar cell: a link to its date page when the output has them; the
 * keys that share its position (a repeated hour, an off-schedule run) are a
 * mark in its corner, coloured by their worst status, and lines of its tooltip.
 */
function calendarCellHtml(cell: CalendarCell, dateHref: ((date: string) => string | null) | undefined): Html {
  const marks = [cell.watermark || cell.extras.some((e) => e.watermark) ? 'wm' : '', cell.completeThrough || cell.extras.some((e) => e.completeThrough) ? 'ct' : '', cell.offSchedule ? 'off' : '', cell.blocked ? 'blocked' : ''].filter(Boolean).join(' ');
  const title = [cell.offSchedule ? `${cellTitle(cell)} · off-schedule run` : cellTitle(cell), ...extraLines(cell.extras)].join('\n');
  const extra = cell.extras.find((e) => e.kind !== 'same-hour');
  const mark = extra ? html`<b class="x s-${extra.status}" data-extra="${extra.kind}"></b>` : html``;
  const href = dateHref?.(cell.date) ?? null;
  const classes = `c s-${cell.status}${marks ? ` ${marks}` : ''}`;
  return href
    ? html`<a class="${classes}" data-date="${cell.date}" title="${title}" data-extras="${String(cell.extras.length)}" href="${href}">${mark}</a>`
    : html`<i class="${classes}" data-date="${cell.date}" title="${title}" data-extras="${String(cell.extras.length)}">${mark}</i>`;
}

/** Slots of one hour a tooltip lists one by one; past it they are counted by status (a minutely hour had 60 lines). */
const SAME_HOUR_LISTED = 3;

/**
 * The tooltip lines of the keys that share a cell: each repeated hour and off-schedule run, and the other slots of the
 * hour one by one while there are few, else as one line counting them by status (their date pages list them).
 */
function extraLines(extras: CalendarCell['extras']): string[] {
  const sameHour = extras.filter((e) => e.kind === 'same-hour');
  const listed = sameHour.length <= SAME_HOUR_LISTED ? extras : extras.filter((e) => e.kind !== 'same-hour');
  const lines = listed.map((e) => `also ${cellTitle(e)} · ${EXTRA_WORDS[e.kind]}`);
  if (listed.length === extras.length) return lines;
  const byStatus = new Map<CellStatus, number>();
  for (const e of sameHour) byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + 1);
  const counts = CELL_STATUSES.filter((s) => byStatus.has(s)).map((s) => `${byStatus.get(s)} ${STATUS_WORDS[s]}`);
  const marks = [...sameHour.filter((e) => e.watermark).map((e) => `watermark ${e.date}`), ...sameHour.filter((e) => e.completeThrough).map((e) => `complete through ${e.date}`)];
  return [`also ${sameHour.length} more slots in this hour, ${sameHour[0]?.date} … ${sameHour.at(-1)?.date}: ${[...counts, ...marks].join(', ')}`, ...lines];
}

/** The legend: a swatch per status, and how the watermark and complete-through are marked. */
export function legendHtml(): Html {
  return html`<div class="legend">${CELL_STATUSES.map((s) => html`<span><i class="c s-${s}"></i>${STATUS_WORDS[s]}</span>`)}<span><i class="c s-none wm"></i>watermark</span><span><i class="c s-none ct"></i>complete through</span><span><i class="c s-none"><b class="x s-running"></b></i>a repeated hour or an off-schedule run shares the cell</span><span><i class="c s-missing blocked"></i>waits for upstream</span></div>`;
}

/** Links to the calendar pages beside the one shown (null where there is none, or the output cannot link). */
export type CalendarNav = { older: string | null; newer: string | null; latest: string | null };

const NO_NAV: CalendarNav = { older: null, newer: null, latest: null };

/** `nav`: the pages beside this one; `dateHref`: where a cell links (its date page), null or absent for no link. */
export type CalendarHtmlOptions = { nav?: CalendarNav; dateHref?: (date: string) => string | null };

/**
 * The calendar as HTML: a row per month (31 day columns) or per local day (24
 * hour columns); a slot-less column is an empty cell so days line up. Older
 * rows left out are counted, and linked to when `nav` has their page; each
 * cell links to its date page when `dateHref` gives one.
 */
export function calendarHtml(calendar: CalendarView, options: CalendarHtmlOptions = {}): Html {
  const nav = options.nav ?? NO_NAV;
  const head = Array.from({ length: calendar.columns }, (_, i) => {
    const label = calendar.layout === 'month' ? i + 1 : i;
    return html`<span>${label % 5 === 0 || (calendar.layout === 'month' && label === 1) ? String(label) : ''}</span>`;
  });
  const rows = calendar.rows.map((row) => {
    const cells: Html[] = [];
    let column = 0;
    for (const cell of row.cells) {
      for (; column < cell.column; column++) cells.push(html`<i class="c s-none"></i>`);
      cells.push(calendarCellHtml(cell, options.dateHref));
      column = Math.max(column, cell.column + 1);
    }
    return html`<div class="cal-row"><span class="lbl">${row.label}</span>${cells}</div>`;
  });
  const olderText = `${calendar.hiddenRows} older ${calendar.layout === 'month' ? 'month' : 'day'}${calendar.hiddenRows === 1 ? '' : 's'} not shown`;
  const hidden =
    calendar.hiddenRows > 0
      ? html`<p class="muted pager">${nav.older ? html`<a href="${nav.older}" rel="prev" data-page="older">${olderText}: show them</a>` : `${olderText}.`}</p>`
      : html``;
  const newer = nav.newer || nav.latest
    ? html`<p class="pager">${nav.newer ? html`<a href="${nav.newer}" rel="next" data-page="newer">Newer ${calendar.layout === 'month' ? 'months' : 'days'}</a>` : html``}${nav.newer && nav.latest ? ' · ' : ''}${nav.latest ? html`<a href="${nav.latest}" data-page="latest">Latest</a>` : html``}</p>`
    : html``;
  return html`<div class="cal cal-${calendar.layout}">${hidden}<div class="cal-row cal-head"><span class="lbl">${calendar.layout === 'month' ? 'month / day' : 'day / hour'}</span>${head}</div>${join(rows)}${newer}</div>${legendHtml()}`;
}
