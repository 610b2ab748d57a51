import type { StripBucket } from '../../projections/views/history-strip.js';
import type { TaskDateGrid } from '../../projections/views/task-date-grid.js';
import { STATUS_WORDS } from './calendar-html.js';
import { html, type Html } from './escape-html.js';

/**
 * The whole history in one row: a column per date, or per bucket of dates
 * coloured by the worst status inside; each links to the calendar narrowed
 * to its dates (`hrefOf` null: no links, as in a report).
 */
export function historyStripHtml(strip: readonly StripBucket[], total: number, hrefOf: (from: string, to: string) => string | null): Html {
  if (strip.length === 0) return html``;
  const per = strip[0]?.count ?? 1;
  const unit = strip[0]?.period?.unit;
  const cells = strip.map((b) => {
    const span = b.period ? `${b.period.label} (${grouped(b.count)} dates)` : b.from === b.to ? b.from : `${b.from} … ${b.to} (${b.count} dates)`;
    const title = `${span}: ${b.count > 1 ? 'worst ' : ''}${STATUS_WORDS[b.status]}${b.failed > 0 && b.count > 1 ? ` · ${b.failed} failed` : ''}`;
    // A period's column asks the calendar for its local dates, which page inside it.
    const href = b.period ? hrefOf(b.period.range.from, b.period.range.to) : hrefOf(b.from, b.to);
    return href ? html`<a class="s-${b.status}" href="${href}" data-from="${b.from}" data-to="${b.to}" title="${title}"></a>` : html`<i class="s-${b.status}" title="${title}"></i>`;
  });
  return html`<div class="hstrip" role="img" aria-label="whole history, ${String(total)} dates" data-dates="${String(total)}">${cells}</div><p class="muted small">Whole history: ${total.toLocaleString('en')} dates${unit !== undefined ? `, a ${unit} a column, each coloured by the worst status inside` : per > 1 ? `, ${per} a column, each coloured by the worst status inside` : ''}${hrefOf('', '') ? '; click a column to show its dates in the calendar' : ''}.</p>`;
}

/** A whole number with its thousands grouped, as `toLocaleString('en')` writes it, without asking Intl once per column. */
function grouped(n: number): string {
  return Number.isSafeInteger(n) && n >= 0 ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en');
}

/** Airflow's grid: a row per task, a column per recent date, each cell the task's state in that date's latest run. */
export function taskGridHtml(grid: TaskDateGrid, dateHref: (date: string) => string | null): Html {
  if (grid.dates.length === 0) return html`<p class="muted">No run has reported task states yet.</p>`;
  const head = grid.dates.map((d) => html`<th class="d" title="${d}"><span>${d.length > 10 ? d.slice(5, 16).replace('T', ' ') : d.slice(5)}</span></th>`);
  const rows = grid.rows.map(
    (row) => html`<tr><th class="mono task">${row.taskId}</th>${row.cells.map((c) => {
      const title = `${row.taskId} · ${c.date}: ${c.state ?? 'not reported'}${c.tryNumber && c.tryNumber > 1 ? ` · try ${c.tryNumber}` : ''}`;
      const href = dateHref(c.date);
      const cls = `t t-${c.state ?? 'none'}`;
      return html`<td>${href ? html`<a class="${cls}" href="${href}" title="${title}" data-task="${row.taskId}" data-date="${c.date}"></a>` : html`<i class="${cls}" title="${title}"></i>`}</td>`;
    })}</tr>`,
  );
  return html`<div class="tgrid-wrap"><table class="tgrid"><thead><tr><th>Task</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}
