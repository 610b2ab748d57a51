import type { AuditEntry } from '../../projections/views/pipeline-history.js';
import { timetableHistoryText } from '../../projections/views/timetable-history-text.js';
import { healthOf, HEALTHS } from '../../projections/views/overview-filter.js';
import { formatDuration, shownRunStatus } from '../../projections/views/run-rows.js';
import { PENDING_REASONS, reasonWords } from '../../projections/pending.js';
import type { StripCell } from '../../projections/views/status-strip.js';
import type { SchedulerHealthView } from '../../projections/views/scheduler-health.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { clearedBecause, waitsForText } from '../../projections/views/cleared-because.js';
import { pausedText, retiredText } from '../../projections/pipeline-control.js';
import { formatMetrics } from '../format/format-table.js';
import { inZone } from '../format/zoned-instant.js';
import type { AuditPage, OverviewPage, Page, PageTime, PipelinePage, RunPage, VerifyPage } from '../views/page-models.js';
import { badge } from './badge.js';
import type { Links } from './links.js';
import { calendarHtml, STATUS_WORDS, type CalendarNav } from './calendar-html.js';
import { dateBody } from './date-page.js';
import { historyStripHtml, taskGridHtml } from './history-views.js';
import { escapeHtml, html, join, type Html } from './escape-html.js';
import { APP_CSS } from './page-assets.js';
import { timeHtml } from './time-html.js';
import { watermarkChart } from './watermark-chart.js';
import { poolWaitText } from '../../projections/views/pool-wait.js';
import { retryOverdueSince, type OverdueRetry } from '../../projections/overdue-retry.js';


export type { Links } from './links.js';

/** Links of `serve`: real addresses, keeping the page's as-of point. */
export function servedLinks(asOfParam: string | null, currentPath: string): Links {
  const q = asOfParam === null ? '' : `?as_of=${encodeURIComponent(asOfParam)}`;
  return {
    overview: () => `/${q}`,
    pipeline: (name) => `/pipelines/${encodeURIComponent(name)}${q}`,
    pipelinePage: (name, params) => {
      const search = new URLSearchParams(asOfParam === null ? {} : { as_of: asOfParam });
      for (const [key, value] of Object.entries(params)) search.set(key, value);
      const text = search.toString();
      return `/pipelines/${encodeURIComponent(name)}${text ? `?${text}` : ''}`;
    },
    run: (pipeline, runId) => `/pipelines/${encodeURIComponent(pipeline)}/runs/${encodeURIComponent(runId)}${q}`,
    date: (pipeline, date) => `/pipelines/${encodeURIComponent(pipeline)}/dates/${encodeURIComponent(date)}${q}`,
    pipelineRange: (name, from, to) => `/pipelines/${encodeURIComponent(name)}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${asOfParam === null ? '' : `&as_of=${encodeURIComponent(asOfParam)}`}`,
    audit: () => `/audit${q}`,
    verify: () => `/verify`,
    graph: () => '/graph',
    asOf: (position) => `${currentPath}?as_of=${position}`,
  };
}

/** Links inside one report file: anchors. */
export const reportLinks: Links = {
  overview: () => '#overview',
  pipeline: (name) => `#pipeline-${name}`,
  pipelinePage: () => null,
  run: () => null,
  date: () => null,
  pipelineRange: () => null,
  audit: () => '#audit',
  verify: () => '#verify',
  graph: () => null,
  asOf: () => null,
};

/** A page's body (the `<main>` content) from its model. */
export function pageBody(page: Page, links: Links): Html {
  switch (page.kind) {
    case 'overview':
      return overviewBody(page, links);
    case 'pipeline':
      return pipelineBody(page, links);
    case 'run':
      return runBody(page, links);
    case 'audit':
      return auditBody(page, links);
    case 'verify':
      return verifyBody(page);
    case 'date':
      return dateBody(page, links);
    default: {
      const unknown: never = page;
      throw new Error(`pageBody: unknown page ${JSON.stringify(unknown)}`);
    }
  }
}

export type ShellOptions = {
  title: string;
  links: Links;
  time: PageTime;
  /** `served`: loads /assets/app.css and /assets/app.js; `file`: CSS inlined, no script. */
  mode: 'served' | 'file';
  /** The as-of text to show in the banner (the query as given). */
  asOfText: string | null;
  /** Where "back to now" points. */
  nowHref?: string;
  generatedAt?: string;
  /** The pipeline a pipeline or run page shows: its live updates follow that pipeline only. */
  pipeline?: string;
};

/**
 * The page around a body: header with navigation, the banner that says a page
 * shows the past, `<main id="main">` (what live updates replace) and a footer
 * with the ledger position the page reflects.
 */
export function pageShell(body: Html, options: ShellOptions): string {
  const { start, end } = pageShellParts(options);
  return `${start}${body.html}${end}`;
}

/** The page around a body as the text before it and the text after it, for output written as it is made (`report --html`). */
export function pageShellParts(options: ShellOptions): { start: string; end: string } {
  const served = options.mode === 'served';
  const past = options.time.asOf !== null;
  const head = served
    ? html`<link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/app.css"><script src="/assets/app.js" defer></script>`
    : { html: `<style>${APP_CSS}</style>` };
  const banner = past
    ? html`<div class="past" role="status"><b>This page shows the past:</b> the ledger as it stood at ${options.asOfText ?? ''} (up to event ${options.time.position}, ${inZone(new Date(options.time.nowMs).toISOString(), 'UTC')}). Later events are not shown and the page does not update.${options.nowHref ? html` <a href="${options.nowHref}">Show now</a>` : html``}</div>`
    : html``;
  const graph = options.links.graph();
  const nav = html`<header><span class="brand">runledger</span><a href="${options.links.overview()}">Overview</a><a href="${options.links.audit()}">Audit</a><a href="${options.links.verify()}">Verify</a>${graph === null ? html`` : html`<a href="${graph}">Graph</a>`}${served ? html`<span id="live">${past ? 'past view' : 'connecting…'}</span><button id="zone" type="button" hidden>Times: pipeline zone</button>` : html``}</header>`;
  const footer = html`<footer>Ledger position ${options.time.position} · ${past ? 'as of' : 'now'} ${inZone(new Date(options.time.nowMs).toISOString(), 'UTC')}${options.generatedAt ? ` · report written ${inZone(options.generatedAt, 'UTC')}` : ''}</footer>`;
  return {
    start: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${html`${options.title}`.html}</title>${head.html}</head>
<body data-live="${served && !past ? '1' : '0'}" data-position="${options.time.position}"${options.pipeline === undefined ? '' : html` data-pipeline="${options.pipeline}"`.html}>${nav.html}${banner.html}<main id="main">`,
    end: `</main>${footer.html}</body></html>
`,
  };
}

/** A pipeline page's line for its pause or retirement (empty when it has neither). */
function controlHtml(page: PipelinePage): Html {
  const parts = [page.retired ? html`<p class="retired" data-fact="retired">${retiredText(page.retired)}</p>` : html``, page.paused ? html`<p class="paused" data-fact="paused">${pausedText(page.paused)}</p>` : html``];
  return html`<div data-part="control">${parts}</div>`;
}

/** What a pending row adds to its reason: the attempt a retry waits for, the slot a depends-on-past date waits for, the upstream slot a blocked date waits for, a cascade's cause. */
function pendingDetail(p: PipelinePage['pending']['pending'][number], zone: string, overdue: (nextAt: string) => string | null): string {
  // The error has a column of its own, as in the CLI's pending table; the detail says why the date waits.
  const since = p.retry?.nextAt ? overdue(p.retry.nextAt) : null;
  const late = since === null ? '' : `; overdue since ${inZone(since, zone)}: nobody started it (the runner that waited for it is gone)`;
  const own = p.retry ? `attempt ${p.retry.attempt} of ${p.retry.of}${p.retry.nextAt ? `, next at ${inZone(p.retry.nextAt, zone)}` : ''}${late}` : p.previous ? `waits for ${p.previous}` : '';
  // Most rows (a missing slot) have no detail: no array is made for them.
  if (!p.blockedBy && !p.cause) return own;
  return [own, p.blockedBy ? waitsForText(p.blockedBy) : '', p.cause ? clearedBecause(p.cause) : ''].filter(Boolean).join('; ');
}

/** "2 retries overdue since …" for the overview's pending cell (the oldest first). */
function overdueText(overdue: readonly OverdueRetry[], zone: string): string {
  const oldest = overdue.reduce((a, b) => (a.overdueSince <= b.overdueSince ? a : b));
  return `${overdue.length} ${overdue.length === 1 ? 'retry' : 'retries'} overdue since ${inZone(oldest.overdueSince, zone)} (${oldest.date} first): nobody started ${overdue.length === 1 ? 'it' : 'them'}`;
}

function overviewBody(page: OverviewPage, links: Links): Html {
  const parts = overviewParts(page, links);
  if (parts === null) return html`<h1>Pipelines</h1><p>No pipelines yet; define one with <code>runledger define</code>.</p>`;
  return { html: `${parts.head}${page.rows.map(parts.row).join('')}${parts.tail}` };
}

/** Rows of the overview in one piece of `pageBodyChunks` (about 2 KB each: a piece stays well under 128 KB). */
const OVERVIEW_ROWS_PER_CHUNK = 32;

/**
 * A page's body as pieces whose concatenation is `pageBody(page, links).html`: the overview a few rows at a time
 * (1,000 pipelines are 2.3 MB of rows, whose one string, with every row's held until the join, outlived several
 * collections of the young generation at each build), a pipeline page a part at a time (`pipelineParts`), any
 * other page in one piece.
 *
 * @example
 * const bytes = Buffer.concat([...pageBodyChunks(page, links)].map((text) => Buffer.from(text)));
 */
export function* pageBodyChunks(page: Page, links: Links): Generator<string> {
  if (page.kind === 'pipeline') {
    yield* pipelineParts(page, links);
    return;
  }
  const parts = page.kind === 'overview' ? overviewParts(page, links) : null;
  if (page.kind !== 'overview' || parts === null) {
    yield pageBody(page, links).html;
    return;
  }
  yield parts.head;
  for (let i = 0; i < page.rows.length; i += OVERVIEW_ROWS_PER_CHUNK) yield page.rows.slice(i, i + OVERVIEW_ROWS_PER_CHUNK).map(parts.row).join('');
  yield parts.tail;
}

/** The overview's text before its rows, a row's text and the text after them; null for a ledger with no pipelines. */
function overviewParts(page: OverviewPage, links: Links): { head: string; row: (row: OverviewPage['rows'][number]) => string; tail: string } | null {
  if (page.rows.length === 0 && (page.total ?? 0) === 0) return null;
  const row = ({ status: s, strip }: OverviewPage['rows'][number]): string => {
    const reasons = PENDING_REASONS.filter((r) => s.pending[r] > 0).map((r) => `${s.pending[r]} ${reasonWords(r)}`);
    const health = healthOf(s);
    return html`<tr data-pipeline="${s.pipeline}" data-health="${health}">
<td class="name"><a href="${links.pipeline(s.pipeline)}">${s.pipeline}</a><div class="muted">${s.schedule} · ${s.timezone}</div>${s.paused ? html`<div class="paused" data-fact="paused">${pausedText(s.paused)}</div>` : html``}</td>
<td><span class="badge h-${health}">${health}</span></td>
<td class="wide"><span class="strip">${stripCellsHtml(strip)}</span></td>
<td class="mono wide" data-fact="watermark">${s.watermark ?? '—'}</td><td class="mono wide" data-fact="complete-through">${s.completeThrough ?? '—'}</td>
<td data-fact="lag">${s.lagSeconds === null ? html`<span class="muted">nothing due yet</span>` : s.lagSeconds === 0 ? 'up to date' : `${s.lag} behind`}</td>
<td class="num" data-fact="pending">${s.pending.total}${reasons.length ? html`<div class="muted">${reasons.join(', ')}</div>` : html``}${s.poolWait ? html`<div class="muted" data-fact="pool-wait">waiting for a place in ${poolWaitText(s.poolWait)}</div>` : html``}${s.overdueRetries?.length ? html`<div class="err" data-fact="overdue">${overdueText(s.overdueRetries, s.timezone)}</div>` : html``}</td><td class="num wide">${s.inFlight.length}</td>
<td class="wide last-failure">${s.lastFailure ? html`<span class="mono">${s.lastFailure.date}</span> <span class="err">${s.lastFailure.error}</span>` : html`<span class="muted">none</span>`}</td></tr>`.html;
  };
  const filter = page.filter ?? { health: null, name: '' };
  const asOf = page.time.asOf ? ('position' in page.time.asOf ? String(page.time.asOf.position) : page.time.asOf.instant) : null;
  const form = html`<form class="filters" method="get" action="${links.overview().split('?')[0] ?? '/'}" role="search"><label>Status <select name="status"><option value="">any</option>${HEALTHS.map((h) => html`<option value="${h}"${filter.health === h ? html` selected` : html``}>${h}</option>`)}</select></label> <label>Name <input name="q" value="${filter.name}" placeholder="contains…" size="16"></label>${asOf ? html`<input type="hidden" name="as_of" value="${asOf}">` : html``} <button type="submit">Filter</button>${filter.health || filter.name ? html` <a href="${links.overview()}">clear</a>` : html``}</form>`;
  const shown = page.total !== undefined && page.total !== page.rows.length ? html`<p class="muted">${page.rows.length} of ${page.total} pipelines match.</p>` : html``;
  const head = html`<h1>Pipelines</h1>${links.asOf(0) === null ? html`` : form}${shown}
<table class="overview" data-part="overview"><thead><tr><th>Pipeline</th><th>Status</th><th class="wide">Last slots</th><th class="wide">Watermark</th><th class="wide">Complete through</th><th>Lag</th><th>Pending</th><th class="wide">In flight</th><th class="wide">Last failure</th></tr></thead><tbody>`.html;
  return { head, row, tail: `</tbody></table>${schedulersHtml(page.schedulers ?? [], page.time.nowMs).html}` };
}

/**
 * The schedulers' health under the overview (`runledger scheduler` records it): each one's state, last pass, next
 * wake and runs in flight. A scheduler silent for more than three heartbeats shows as stale, how long it has been
 * silent beside it.
 */
function schedulersHtml(schedulers: readonly SchedulerHealthView[], nowMs: number): Html {
  if (schedulers.length === 0) return html``;
  const ago = (iso: string | null) => (iso === null ? html`<span class="muted">none yet</span>` : html`${timeHtml(iso, 'UTC')} <span class="muted">(${formatDuration(Math.max(0, nowMs - Date.parse(iso)))} ago)</span>`);
  const rows = schedulers.map((s) => {
    const state = s.stale ? 'stale' : s.state;
    const badgeOf = s.stale ? 'stalled' : s.state === 'stopped' ? 'other' : 'running';
    const live = s.state !== 'stopped';
    return html`<tr data-scheduler="${s.host} ${s.pid}" data-state="${state}"><td class="mono">${s.host} pid ${s.pid}</td>
<td><span class="badge b-${badgeOf}">${state}</span>${s.stale ? html` <span class="muted">silent for ${formatDuration(s.silentSeconds * 1000)}</span>` : html``}</td>
<td data-fact="last-pass">${ago(s.lastPassAt)}</td>
<td data-fact="next-wake">${live && s.nextWake ? html`${timeHtml(s.nextWake.at, 'UTC')} <span class="muted">${s.nextWake.why} ${s.nextWake.pipeline} ${s.nextWake.date}</span>` : html`<span class="muted">—</span>`}</td>
<td class="num" data-fact="in-flight">${live ? `${s.inFlight.length} of ${s.parallel}` : '—'}${live && s.inFlight.length > 0 ? html`<div class="muted">${s.inFlight.map((r) => `${r.pipeline} ${r.date}`).join(', ')}</div>` : html``}</td></tr>`;
  });
  return html`<h2>Schedulers</h2>
<table class="schedulers" data-part="schedulers"><thead><tr><th>Scheduler</th><th>State</th><th>Last pass</th><th>Next wake</th><th>In flight</th></tr></thead><tbody>${join(rows, '')}</tbody></table>`;
}

/**
 * The overview's strip cells, as one string: the title's ledger parts (key, note, error) escaped one by one (its other
 * parts hold nothing to escape), with no fragment object per cell. 30,000 cells of a 1,000-pipeline overview built
 * through `html` allocated 18 MB a page.
 */
function stripCellsHtml(strip: readonly StripCell[]): Html {
  let out = '';
  // The status too: it comes from a table row, which a hand-edited read model could fill with anything.
  for (const c of strip) out += `<i class="c s-${escapeHtml(c.status)}" title="${escapeHtml(c.date)}: ${STATUS_WORDS[c.status] ?? ''}${c.note ? ` · ${escapeHtml(c.note)}` : ''}${c.error ? ` · ${escapeHtml(c.error)}` : ''}"></i>`;
  return { html: out };
}

/** Pending dates listed on a pipeline page; the rest are counted. */
const MAX_PENDING_ROWS = 200;

function pipelineBody(page: PipelinePage, links: Links): Html {
  return { html: [...pipelineParts(page, links)].join('') };
}

/**
 * The pipeline page's body a part at a time (its head, then each `data-part` with the heading before it), each
 * made as it is asked for: a report of 1,000 pipelines wrote 160 KB of text a page, whose one string (twice that
 * as two-byte text) went to the old generation at each page.
 */
function* pipelineParts(page: PipelinePage, links: Links): Generator<string> {
  const d = page.definition;
  // An hourly pipeline down for a month has 720 pending dates: the oldest are listed, the count says the rest.
  const listed = page.pending.pending.slice(0, MAX_PENDING_ROWS);
  // Overdue is a fact of now: a page of the past shows the retry as it waited then.
  const overdue = (nextAt: string) => (page.time.asOf === null ? retryOverdueSince(nextAt, d.leaseMs, page.time.nowMs) : null);
  const pending = () => page.pendingTotal > 0 && listed.length > 0
    ? html`${page.pendingTotal > listed.length ? html`<p class="muted">The oldest ${listed.length} of ${page.pendingTotal} pending dates.</p>` : html``}<table class="pending"><thead><tr><th>Date</th><th>Reason</th><th>Due since</th><th>Data interval</th><th>Error</th><th>Detail</th></tr></thead><tbody>${listed.map(
        (p) => {
          const href = links.date(d.pipeline, p.date);
          return html`<tr><td class="mono">${href ? html`<a href="${href}">${p.date}</a>` : p.date}</td><td>${badge(p.reason)}</td><td class="mono">${timeHtml(p.runAfter, d.timezone)}</td><td class="mono">${p.dataInterval.start} → ${p.dataInterval.end}</td><td>${p.error ? html`<span class="err" title="${p.error}">${tellingLine(p.error)}</span>` : html``}</td><td data-detail="${p.reason}">${pendingDetail(p, d.timezone, overdue)}</td></tr>`;
        },
      )}</tbody></table>`
    : html`<p>Nothing pending${page.pending.from ? html` from ${page.pending.from} to ${page.pending.to}` : html``}.</p>`;
  const inFlight = page.pending.inFlight.length
    ? html`<p>In flight: ${join(page.pending.inFlight.map((r) => html`<span class="mono">${r.date}</span> (lease until ${inZone(r.leaseExpiresAt, d.timezone)})`), ', ')}</p>`
    : html``;
  const runs = () => page.runs.length
    ? html`<table class="runs"><thead><tr><th>Run</th><th>Date</th><th>Attempt</th><th>Type</th><th>Status</th><th>Started</th><th>Duration</th><th>Actor</th><th>Metrics / error</th></tr></thead><tbody>${page.runs.map((r) => {
        const href = links.run(d.pipeline, r.runId);
        return html`<tr><td class="mono">${href ? html`<a href="${href}">${r.runId}</a>` : r.runId}</td><td class="mono">${r.date}</td><td class="num">${r.attempt}</td><td>${r.runType}${r.forced ? ' (forced)' : ''}${r.offSchedule ? ' (off-schedule)' : ''}</td><td>${badge(r.shownStatus)}${r.retry ? html` <span class="muted" data-retry="${r.retry.attempt}">retried: attempt ${r.retry.attempt} of ${r.retry.of}</span>` : html``}</td><td class="mono">${timeHtml(r.startedAt, d.timezone)}</td><td class="num">${r.durationMs === null ? '—' : formatDuration(r.durationMs)}</td><td>${r.actor}</td><td>${r.error ? html`<span class="err">${r.error}</span>` : html`<span class="mono">${formatMetrics(r.metrics)}</span>`}</td></tr>`;
      })}</tbody></table>${runsNav(page, links)}`
    : html`<p>No runs yet.</p>`;
  // Each data-part is a unit the live page replaces on its own when its markup changed.
  yield html`<section class="pipeline" id="pipeline-${d.pipeline}"><h1>${d.pipeline}</h1>${controlHtml(page)}
<div data-part="definition" class="facts"><span><b>Schedule</b> ${d.schedule} (${d.timetable})</span>${timetableHistoryText(d) === null ? html`` : html`<span data-part="timetable-history"><b>Timetables</b> ${timetableHistoryText(d)}</span>`}<span><b>Zone</b> ${d.timezone}</span><span><b>Start</b> ${d.start}</span>${d.end ? html`<span><b>End</b> ${d.end}</span>` : html``}<span><b>Catchup</b> ${d.catchup ? 'on' : 'off'}</span>${d.pool ? html`<span><b>Pool</b> ${d.pool}</span>` : html``}${d.priority === undefined ? html`` : html`<span><b>Priority</b> ${String(d.priority)}</span>`}</div>
<div data-part="summary" class="facts"><span><b>Watermark</b> <span class="mono" data-fact="watermark">${page.watermark ?? 'none'}</span></span><span><b>Complete through</b> <span class="mono" data-fact="complete-through">${page.completeThrough ?? 'none'}</span></span><span><b>Pending</b> ${page.pendingTotal}</span><span><b>In flight</b> ${page.pending.inFlight.length}</span>${page.poolWait ? html`<span data-fact="pool-wait"><b>Waiting</b> for a place in ${poolWaitText(page.poolWait)}</span>` : html``}</div>
<h2>Calendar</h2>`.html;
  yield html`<div data-part="strip">${historyStripHtml(page.strip, page.strip.reduce((n, b) => n + b.count, 0), (from, to) => links.pipelineRange(d.pipeline, from, to))}</div>
`.html;
  yield html`<div data-part="calendar">${page.calendarRange ? html`<p class="range">Showing ${page.calendarRange.from} … ${page.calendarRange.to}. <a href="${links.pipeline(d.pipeline)}">Show the most recent</a></p>` : html``}${calendarHtml(page.calendar, { nav: calendarNav(page, links), dateHref: (date) => links.date(d.pipeline, date) })}</div>
`.html;
  yield html`${page.taskGrid ? html`<h2>Tasks by date</h2><div data-part="tasks">${taskGridHtml(page.taskGrid, (date) => links.date(d.pipeline, date))}</div>` : html``}
<h2>Watermark and complete-through by logical date</h2><div data-part="chart">${page.chartDates === null ? html`` : html`<p class="muted">The ${page.chartDates} most recent dates with a run, as they stand now; the page as of an earlier point draws the whole history of moves.</p>`}${watermarkChart(page.points, d.timezone)}</div>
`.html;
  yield html`<h2>Pending</h2><div data-part="pending">${pending()}${inFlight}</div>
`.html;
  yield html`<h2>Runs</h2><div data-part="runs">${runs()}</div>
`.html;
  const auditTotal = page.auditTotal !== undefined && page.auditTotal > page.audit.length ? html`<p class="muted" data-fact="audit-count" data-total="${String(page.auditTotal)}">The ${page.audit.length.toLocaleString('en')} most recent of ${page.auditTotal.toLocaleString('en')} entries.</p>` : html``;
  yield html`<h2>Audit timeline</h2><div data-part="audit">${auditTotal}${page.auditScanned === null ? html`` : html`<p class="muted">Entries among the pipeline's last ${page.auditScanned} events; <code>runledger log ${d.pipeline}</code> lists the older ones.</p>`}${auditTable(page.audit, links, false, () => d.timezone)}</div></section>`.html;
}

/** The links to the calendar pages beside this one; they keep the page's `from` (a range's floor) and rows per page. */
function calendarNav(page: PipelinePage, links: Links): CalendarNav {
  const { older, newer, limit, from, until } = page.calendarPages;
  const at = (to: string | null) =>
    links.pipelinePage(page.definition.pipeline, {
      ...(from === undefined ? {} : { from }),
      ...(to === null ? {} : { to }),
      ...(limit === undefined ? {} : { limit: String(limit) }),
      ...(until === undefined || to === null || to === until ? {} : { until }),
    });
  return { older: older ? at(older.to) : null, newer: newer ? at(newer.to) : null, latest: newer ? at(null) : null };
}

/** Below the runs table: a link to the older runs (or a note in a report), and back to the newest. */
function runsNav(page: PipelinePage, links: Links): Html {
  const name = page.definition.pipeline;
  const older = page.olderRuns === null ? null : links.pipelinePage(name, { runs_before: page.olderRuns });
  const newest = page.runsBefore === null ? null : links.pipelinePage(name, {});
  if (page.olderRuns !== null && older === null) return html`<p class="muted">The ${page.runs.length} most recent runs; older runs are not shown.</p>`;
  const parts = [newest ? html`<a href="${newest}" data-page="newest-runs">Newest runs</a>` : html``, older ? html`<a href="${older}" rel="next" data-page="older-runs">Older runs</a>` : html``];
  return older || newest ? html`<p class="pager">${join(parts, ' · ')}</p>` : html``;
}

/** `zoneOf`: the zone in which an entry's time is shown (its pipeline's). */
function auditTable(entries: AuditEntry[], links: Links, withPipeline: boolean, zoneOf: (pipeline: string) => string): Html {
  if (entries.length === 0) return html`<p>No clears, forced re-runs or redefinitions.</p>`;
  return html`<table class="audit"><thead><tr><th>When</th><th>Who</th>${withPipeline ? html`<th>Pipeline</th>` : html``}<th>What</th><th>Why</th><th>Event</th></tr></thead><tbody>${entries.map((e) => {
    const before = e.position > 1 ? links.asOf(e.position - 1) : null;
    return html`<tr><td class="mono">${inZone(e.at, zoneOf(e.pipeline))}</td><td>${e.actor}</td>${withPipeline ? html`<td><a href="${links.pipeline(e.pipeline)}">${e.pipeline}</a></td>` : html``}<td>${e.detail}</td><td>${e.reason ?? html`<span class="muted">no reason given</span>`}</td><td class="num">${e.position}${before ? html` <a href="${before}">(just before)</a>` : html``}</td></tr>`;
  })}</tbody></table>`;
}

function auditBody(page: AuditPage, links: Links): Html {
  const count = (n: number) => n.toLocaleString('en');
  // A served page of now counts every entry (the read models keep the count per pipeline); an older page says how many it lists before its event.
  const counted =
    page.total === null
      ? ''
      : page.before
        ? html`; <span data-fact="audit-count" data-total="${String(page.total)}">${count(page.entries.length)} entries recorded before event ${page.before}, of ${count(page.total)} in all</span>`
        : page.older !== undefined
          ? html`; <span data-fact="audit-count" data-total="${String(page.total)}">entries ${page.entries.length === 0 ? '0' : '1'}–${count(page.entries.length)} of ${count(page.total)}</span>`
          : page.total > page.entries.length
            ? ` (the ${page.entries.length} most recent of ${page.total})`
            : '';
  const pageOf = (before: number | null) => {
    const base = links.audit();
    return before === null ? base : `${base}${base.includes('?') ? '&' : '?'}before=${before}`;
  };
  const older = page.older ? html`<a href="${pageOf(page.older)}" rel="prev" data-page="older">Older entries</a>` : html``;
  const newest = page.before ? html`${page.older ? ' · ' : ''}<a href="${pageOf(null)}" data-page="latest">Newest entries</a>` : html``;
  const pager = page.older || page.before ? html`<p class="pager">${older}${newest}</p>` : html``;
  return html`<section id="audit"><h1>Audit timeline</h1><p class="muted">Definitions, redefinitions, clears, forced re-runs, takeovers and abandoned runs of every pipeline, newest first${counted}${page.before && page.total === null ? `, recorded before event ${page.before}` : ''}.</p>${auditTable(page.entries, links, true, (pipeline) => page.zones[pipeline] ?? 'UTC')}${pager}</section>`;
}

function runBody(page: RunPage, links: Links): Html {
  const { run, tasks, outcome } = page.grid;
  const grid = tasks.length
    ? html`<table><thead><tr><th>Task</th><th>State</th><th>Tries</th><th>Updated</th><th>Trigger rule</th><th>Note</th></tr></thead><tbody>${tasks.map(
        (t) => html`<tr><td class="mono">${t.taskId}</td><td>${badge(t.state ?? 'not reported')}</td><td class="num">${t.tryNumber ?? 0}</td><td class="mono">${t.updatedAt ? inZone(t.updatedAt, page.timeZone) : '—'}</td><td>${t.triggerRule ?? '—'}</td><td>${[t.leaf ? 'leaf' : '', t.teardown ? 'teardown' : '', t.declared ? '' : 'no longer declared'].filter(Boolean).join(', ')}${t.error ? html` <span class="err">${t.error}</span>` : html``}</td></tr>`,
      )}</tbody></table>`
    : html`<p>This pipeline declares no tasks.</p>`;
  const events = html`<table><thead><tr><th>Position</th><th>When</th><th>Who</th><th>Event</th><th>Detail</th></tr></thead><tbody>${page.events.map(
    (e) => html`<tr><td class="num">${e.position}</td><td class="mono">${inZone(e.recordedAt, page.timeZone)}</td><td>${e.metadata.actor}</td><td>${e.type}</td><td class="mono err-wrap">${JSON.stringify(e.data)}${e.metadata.reason ? html` — ${e.metadata.reason}` : html``}</td></tr>`,
  )}</tbody></table>`;
  return html`<h1>Run <span class="mono">${run.runId}</span></h1>
<p><a href="${links.pipeline(page.grid.pipeline)}">${page.grid.pipeline}</a> · <span class="mono">${run.date}</span> · attempt ${run.attempt} · ${run.runType} · ${badge(shownRunStatus(run, page.time.nowMs))}${outcome ? html` · tasks say: ${outcome.status}` : html``}</p>
<div class="facts"><span><b>Started</b> ${inZone(run.startedAt, page.timeZone)}</span><span><b>Finished</b> ${run.finishedAt ? inZone(run.finishedAt, page.timeZone) : '—'}</span><span><b>Actor</b> ${run.actor}</span><span><b>Data interval</b> ${run.dataInterval.start} → ${run.dataInterval.end}</span></div>
${run.error ? html`<p class="err">${run.error}</p>` : html``}${run.metrics ? html`<p class="mono">${formatMetrics(run.metrics)}</p>` : html``}
<h2>Tasks</h2>${grid}<h2>Events</h2>${events}`;
}

function verifyBody(page: VerifyPage): Html {
  const r = page.report;
  return html`<section id="verify"><h1>Verify</h1>
<p class="${r.ok ? 'ok' : 'bad'}">${r.ok ? `ok: ${r.events} events, chain intact` : `the chain fails at position ${r.firstBadPosition}: ${r.problem ?? ''}`}</p>
<div class="facts"><span><b>Head position</b> <span class="mono" data-fact="head-position">${r.head.position}</span></span><span><b>Head hash</b> <span class="mono" data-fact="head-hash">${r.head.hash}</span></span></div>
<p class="muted">Record this head outside the ledger and check it later with <code>runledger verify --expect-head ${r.head.position}:${r.head.hash}</code>: only that catches a full rewrite or a removed last event.</p></section>`;
}
