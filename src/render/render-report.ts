import type { Ledger } from '../ledger/ledger.js';
import type { AsOf } from '../ledger/ledger-types.js';
import { definitionsAt, type PageLimits, loadAuditPage, loadOverview, loadPipelinePage, loadVerifyPage, pageTime } from '../views/load-pages.js';
import { html, join } from './escape-html.js';
import { pageBody, pageShell, reportLinks } from './render-pages.js';

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
 * pipeline what `reportLimits` allows.
 *
 * @example
 * writeFileSync('out.html', await renderReport(ledger, { pipelines: ['etl_orders'] }));
 */
export async function renderReport(ledger: Ledger, options: ReportOptions = {}): Promise<string> {
  const time = await pageTime(ledger, options.asOf);
  const all = await definitionsAt(ledger, time.position);
  const chosen = options.pipelines && options.pipelines.length > 0 ? options.pipelines : all.map((d) => d.pipeline);
  const definitions = [];
  for (const name of chosen) definitions.push((await ledger.pipeline(name, options.asOf)).definition);
  const overview = await loadOverview(ledger, options.asOf, definitions);
  const sections = [html`<section id="overview">${pageBody(overview, reportLinks)}</section>`];
  const limits = reportLimits(definitions.length);
  for (const definition of definitions) sections.push(pageBody(await loadPipelinePage(ledger, definition.pipeline, options.asOf, limits), reportLinks));
  const audit = await loadAuditPage(ledger, options.asOf, 500);
  const names = new Set(chosen);
  sections.push(pageBody({ ...audit, entries: audit.entries.filter((e) => names.has(e.pipeline)) }, reportLinks));
  sections.push(pageBody(await loadVerifyPage(ledger), reportLinks));
  return pageShell(join(sections), {
    title: `runledger report: ${chosen.join(', ') || 'no pipelines'}`,
    links: reportLinks,
    time,
    mode: 'file',
    asOfText: options.asOfText ?? null,
    generatedAt: new Date(ledger.now()).toISOString(),
  });
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
