import { CELL_STATUSES, type CalendarView, type CellStatus } from '../../projections/views/calendar.js';
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

/** One cell: its status as a class, the date as a data attribute, and a tooltip (kept short: a report holds thousands). */
export function cellHtml(cell: { date: string; status: CellStatus; watermark?: boolean; completeThrough?: boolean; attempts?: number; error?: string | null; note?: string | null }): Html {
  const marks = [cell.watermark ? 'wm' : '', cell.completeThrough ? 'ct' : ''].filter(Boolean).join(' ');
  const title = [
    `${cell.date}: ${STATUS_WORDS[cell.status]}`,
    cell.attempts && cell.attempts > 1 ? `${cell.attempts} attempts` : '',
    cell.watermark ? 'watermark' : '',
    cell.completeThrough ? 'complete through' : '',
    cell.note ?? '',
    cell.error ?? '',
  ]
    .filter(Boolean)
    .join(' · ');
  return html`<i class="c s-${cell.status}${marks ? ` ${marks}` : ''}" data-date="${cell.date}" title="${title}"></i>`;
}

/** The legend: a swatch per status, and how the watermark and complete-through are marked. */
export function legendHtml(): Html {
  return html`<div class="legend">${CELL_STATUSES.map((s) => html`<span><i class="c s-${s}"></i>${STATUS_WORDS[s]}</span>`)}<span><i class="c s-none wm"></i>watermark</span><span><i class="c s-none ct"></i>complete through</span></div>`;
}

/** Links to the calendar pages beside the one shown (null where there is none, or the output cannot link). */
export type CalendarNav = { older: string | null; newer: string | null; latest: string | null };

/**
 * The calendar as HTML: a row per month (31 day columns) or per local day (24
 * hour columns); a slot-less column is an empty cell so days line up. Older
 * rows left out are counted, and linked to when `nav` has their page.
 */
export function calendarHtml(calendar: CalendarView, nav: CalendarNav = { older: null, newer: null, latest: null }): Html {
  const head = Array.from({ length: calendar.columns }, (_, i) => {
    const label = calendar.layout === 'month' ? i + 1 : i;
    return html`<span>${label % 5 === 0 || (calendar.layout === 'month' && label === 1) ? String(label) : ''}</span>`;
  });
  const rows = calendar.rows.map((row) => {
    const cells: Html[] = [];
    let column = 0;
    for (const cell of row.cells) {
      for (; column < cell.column; column++) cells.push(html`<i class="c s-none"></i>`);
      cells.push(cellHtml(cell));
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
