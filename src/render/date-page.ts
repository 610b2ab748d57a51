import { formatMetrics } from '../format/format-table.js';
import { formatDuration } from '../../projections/views/run-rows.js';
import type { DatePage } from '../views/page-models.js';
import { badge } from './badge.js';
import { STATUS_WORDS } from './calendar-html.js';
import { html, type Html } from './escape-html.js';
import type { Links } from './links.js';
import { timeHtml } from './time-html.js';

/**
 * A date page: where a calendar cell leads. Its state, every attempt, and of
 * the latest run its tasks, its events and the end of its output log.
 */
export function dateBody(page: DatePage, links: Links): Html {
  const d = page.definition;
  const zone = d.timezone;
  const row = page.row;
  const latest = page.runs[0];
  const runLink = (runId: string) => {
    const href = links.run(d.pipeline, runId);
    return href ? html`<a href="${href}">${runId}</a>` : html`${runId}`;
  };
  const facts = html`<div class="facts"><span><b>Status</b> ${badge(page.status)}</span><span><b>Attempts</b> ${row?.attempts ?? 0}</span>${row ? html`<span><b>Data interval</b> <span class="mono">${row.dataInterval.start} → ${row.dataInterval.end}</span></span>` : html``}${row?.offSchedule ? html`<span><b>Off-schedule</b> a manual run of a date that is no slot</span>` : html``}${page.watermark === page.date ? html`<span><b>Watermark</b> this date</span>` : html``}${page.completeThrough === page.date ? html`<span><b>Complete through</b> this date</span>` : html``}</div>`;
  const runs = page.runs.length
    ? html`<table class="runs"><thead><tr><th>Run</th><th>Attempt</th><th>Type</th><th>Status</th><th>Started</th><th>Duration</th><th>Actor</th><th>Metrics / error</th></tr></thead><tbody>${page.runs.map(
        (r) => html`<tr><td class="mono">${runLink(r.runId)}</td><td class="num">${r.attempt}</td><td>${r.runType}${r.forced ? ' (forced)' : ''}</td><td>${badge(r.shownStatus)}</td><td class="mono">${timeHtml(r.startedAt, zone)}</td><td class="num">${r.durationMs === null ? '—' : formatDuration(r.durationMs)}</td><td class="wrap">${r.actor}</td><td>${r.error ? html`<span class="err">${r.error}</span>` : html`<span class="mono">${formatMetrics(r.metrics)}</span>`}</td></tr>`,
      )}</tbody></table>`
    : html`<p>No run of this date yet${page.status === 'not-due' ? '; it is not due' : ''}.</p>`;
  const tasks = page.grid && page.grid.tasks.length
    ? html`<table><thead><tr><th>Task</th><th>State</th><th>Tries</th><th>Updated</th><th>Note</th></tr></thead><tbody>${page.grid.tasks.map(
        (t) => html`<tr><td class="mono">${t.taskId}</td><td>${badge(t.state ?? 'not reported')}</td><td class="num">${t.tryNumber ?? 0}</td><td class="mono">${t.updatedAt ? timeHtml(t.updatedAt, zone) : '—'}</td><td>${t.error ? html`<span class="err">${t.error}</span>` : html``}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">${(d.tasks?.length ?? 0) > 0 ? 'No task state reported yet.' : 'This pipeline declares no tasks.'}</p>`;
  const events = page.events.length
    ? html`<table><thead><tr><th>Position</th><th>When</th><th>Who</th><th>Event</th><th>Detail</th></tr></thead><tbody>${page.events.map(
        (e) => html`<tr><td class="num">${e.position}</td><td class="mono">${timeHtml(e.recordedAt, zone)}</td><td class="wrap">${e.metadata.actor}</td><td>${e.type}</td><td class="mono err-wrap">${JSON.stringify(e.data)}${e.metadata.reason ? html` — ${e.metadata.reason}` : html``}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No events.</p>`;
  const log = page.log === null
    ? html`<p class="muted">${latest ? 'The latest run has no outcome yet, so no output log.' : 'No run, so no output log.'}</p>`
    : page.log.problem
      ? html`<p class="muted">${page.log.problem}</p>`
      : html`<p class="muted mono">${page.log.path ?? ''}${page.log.cut ? ' (its last 32 KB)' : ''}</p><pre class="log">${page.log.text}</pre>`;
  return html`<section class="date-page"><h1><a href="${links.pipeline(d.pipeline)}">${d.pipeline}</a> <span class="mono">${page.date}</span></h1>
<p class="muted">${STATUS_WORDS[page.status]}</p>${facts}
<h2>Attempts</h2>${runs}
<h2>Tasks of the latest run</h2>${tasks}
<h2>Output log of the latest run</h2>${log}
<h2>Events of the latest run${latest ? html` <span class="mono">${latest.runId}</span>` : html``}</h2>${events}</section>`;
}
