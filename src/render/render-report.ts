import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { compareWorstFirst } from '../../projections/views/pipeline-status.js';
import { Ledger } from '../ledger/ledger.js';
import type { OverviewRow } from '../views/page-models.js';
import type { AsOf } from '../ledger/ledger-types.js';
import type { AuditEntry } from '../../projections/views/pipeline-history.js';
import { definitionsAt, type PageLimits, loadOverview, loadPipelineSection, loadVerifyPage, pageTime } from '../views/load-pages.js';
import { loadAuditTail } from '../views/load-audit-tail.js';
import { loadServedPipelinePage } from '../views/load-table-pipeline-page.js';
import { pageBody, pageBodyChunks, pageShellParts, reportLinks } from './render-pages.js';

export type ReportOptions = {
  /** Only these pipelines (default: every pipeline). */
  pipelines?: string[];
  asOf?: AsOf;
  /** Shown in the banner of a report of the past. */
  asOfText?: string;
};

/**
 * `report --html`: the overview, each pipeline's page, the audit timeline and
 * the verify result in one self-contained HTML file (styles inlined, no
 * script, no network), from the same renderer as `serve`, keeping of each
 * pipeline what `reportLimits` allows. The document is yielded a section at
 * a time, so the caller writes each to the file as it comes and holds one
 * pipeline's page at a time, never the whole report.
 *
 * @example
 * await writeFileAtomically('out.html', reportChunks(ledger, { pipelines: ['etl_orders'] }), { flag: '--html', example: 'out.html' });
 */
export async function* reportChunks(ledger: Ledger, options: ReportOptions = {}): AsyncGenerator<string> {
  const time = await pageTime(ledger, options.asOf);
  // Today's definitions are the summary rows' (no pipeline is folded for them); a report of the past folds each.
  const current = options.asOf ? null : new Map((await ledger.pipelines()).map((d) => [d.pipeline, d]));
  const chosen = options.pipelines && options.pipelines.length > 0 ? options.pipelines : (current ? [...current.values()] : await definitionsAt(ledger, time.position)).map((d) => d.pipeline);
  const definitions = [];
  for (const name of chosen) definitions.push(current?.get(name) ?? (await scopedDefinition(ledger, name, options.asOf)));
  const { start, end } = pageShellParts({
    title: `runledger report: ${chosen.join(', ') || 'no pipelines'}`,
    links: reportLinks,
    time,
    mode: 'file',
    asOfText: options.asOfText ?? null,
    generatedAt: new Date(ledger.now()).toISOString(),
  });
  yield start;
  // Each pipeline is read through a ledger of its own over the same store, dropped when its part is written: a
  // ledger keeps every pipeline it folded, and a report reads them all (three hourly pipelines over two years
  // held 100 MB at once).
  const scoped = () => new Ledger(ledger.store, () => ledger.now(), 'report');
  const rows: OverviewRow[] = [];
  // Of now, the rows are the tables' (one read of the summary rows for them all); else each pipeline is folded.
  const models = options.asOf === undefined ? ledger.store.readModels : undefined;
  const tables = models !== undefined && (await models.ensure());
  if (tables) rows.push(...(await loadOverview(scoped(), undefined, definitions)).rows);
  else for (const definition of definitions) rows.push(...(await loadOverview(scoped(), options.asOf, [definition])).rows);
  rows.sort((a, b) => compareWorstFirst(a.status, b.status));
  // A few rows at a time (pageBodyChunks): the overview of 1,000 pipelines is 2.3 MB of HTML.
  yield '<section id="overview">';
  yield* pageBodyChunks({ kind: 'overview', time, head: await ledger.store.head(), rows }, reportLinks);
  // The rows are not held while the pipelines' pages are read.
  rows.length = 0;
  yield '</section>';
  const limits = reportLimits(definitions.length);
  // The audit section is the most recent entries of every chosen pipeline: kept from each pipeline's own fold.
  const audit: AuditEntry[] = [];
  const zones: Record<string, string> = {};
  let total = 0;
  // A report of now reads each pipeline's page as `serve` does, from the read models (the oldest pending dates with
  // the count, the most recent dates' chart, the newest audit entries), and its audit entries from its events, holding
  // only the newest: the whole pending range and the history fold held an hourly pipeline's ten years at once (465 MB).
  for (const definition of definitions) {
    const pipeline = definition.pipeline;
    let entries: AuditEntry[];
    if (tables) {
      yield* pageBodyChunks(await loadServedPipelinePage(scoped(), pipeline, undefined, limits), reportLinks);
      const tail = await loadAuditTail(ledger, pipeline, time.position, AUDIT_ENTRIES);
      total += tail.total;
      entries = tail.entries;
    } else {
      const section = await loadPipelineSection(scoped(), pipeline, options.asOf, limits);
      yield* pageBodyChunks(section.page, reportLinks);
      total += section.audit.length;
      entries = section.audit;
    }
    zones[pipeline] = definition.timezone;
    audit.push(...entries);
    audit.sort((a, b) => b.position - a.position);
    audit.length = Math.min(audit.length, AUDIT_ENTRIES);
  }
  yield pageBody({ kind: 'audit', time, entries: audit, total, zones }, reportLinks).html;
  // In this thread: a worker's heap would be the report's largest part (its isolate took 40 MB more).
  yield pageBody(await loadVerifyPage(ledger, { inThread: true }), reportLinks).html;
  yield end;
}

/** A pipeline's definition, read without keeping its fold in `ledger` (`notFound.pipeline` for an unknown name). */
async function scopedDefinition(ledger: Ledger, name: string, asOf: AsOf | undefined): Promise<PipelineDefinition> {
  return (await new Ledger(ledger.store, () => ledger.now(), 'report').pipeline(name, asOf)).definition;
}

/** The audit entries a report lists, newest first. */
const AUDIT_ENTRIES = 500;

/**
 * The whole report as one string (tests, small ledgers); `reportChunks` is what `report --html` writes.
 *
 * @example
 * const text = await renderReport(ledger, { pipelines: ['etl_orders'] });
 */
export async function renderReport(ledger: Ledger, options: ReportOptions = {}): Promise<string> {
  let text = '';
  for await (const chunk of reportChunks(ledger, options)) text += chunk;
  return text;
}

/**
 * How much of each pipeline a report keeps: ten years of months, 31 days of
 * hours, 100 runs and 200 audit entries for up to ten pipelines, then less per
 * pipeline as there are more (never under a year, a week, 20 runs and 50
 * entries), so a report of a large ledger stays a few megabytes.
 *
 * @example
 * reportLimits(1).monthRows // 120
 */
export function reportLimits(pipelines: number): Required<PageLimits> {
  const share = (full: number, least: number) => Math.max(least, Math.min(full, Math.floor((full * 10) / Math.max(1, pipelines))));
  return { monthRows: share(120, 12), dayRows: share(31, 7), runs: share(100, 20), audit: share(200, 50) };
}
