import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AsOf } from '../../ledger/ledger-types.js';
import { APP_CSS, APP_JS } from '../../render/page-assets.js';
import { pageBody, pageBodyChunks, pageShell, pageShellParts, servedLinks, type ShellOptions } from '../../render/render-pages.js';
import { loadAuditPage, loadOverview, loadRunPage, loadVerifyPage, type PipelinePageInput } from '../../views/load-pages.js';
import { loadServedPipelinePage } from '../../views/load-table-pipeline-page.js';
import { loadDatePage } from '../../views/load-date-page.js';
import type { OverviewPage, Page } from '../../views/page-models.js';
import { filterOverview, HEALTHS, type Health, type OverviewFilter } from '../../../projections/views/overview-filter.js';
import { LedgerError } from '../../errors.js';
import { CALENDAR_ROWS, limitOf } from '../page-params.js';
import { asOfOf, pick, queryOf, wholeOf } from '../parse-query.js';
import type { ServeDeps } from '../serve-options.js';
import { keptBytes, sendKept, type KeptBytes } from '../kept-bytes.js';

type PipelineParams = { pipeline: string };

/** Pages kept built (by address), so many clients of one page cost one build. */
const PAGES_KEPT = 16;

/** A page built at a head position: when its build started and how long it took; `next`, its rebuild under way. */
type BuiltPage = { position: number; builtAt: number; buildMs: number; html: Promise<KeptBytes>; next: Promise<KeptBytes> | null };

/** `?status=<health>&q=<text>` of the overview, or null when neither narrows it. */
function overviewFilterOf(query: Map<string, string>): OverviewFilter | null {
  const status = query.get('status') ?? '';
  const name = query.get('q') ?? '';
  if (status === '' && name.trim() === '') return null;
  if (status !== '' && !(HEALTHS as readonly string[]).includes(status)) {
    throw new LedgerError('input.invalidQuery', `status '${status}' is not one of ${HEALTHS.join(', ')}`);
  }
  return { health: status === '' ? null : (status as Health), name };
}

function narrowed(page: OverviewPage, filter: OverviewFilter | null): OverviewPage {
  return filter ? { ...page, rows: filterOverview(page.rows, filter), filter, total: page.rows.length } : page;
}

/**
 * The web view: overview, pipeline, date, run, audit and verify pages, each taking
 * `?as_of=<instant|position>`, plus the one stylesheet and the one script the
 * CSP allows (`/assets/app.css`, `/assets/app.js`).
 */
export function pageRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const { ledger } = deps;
  // The overview and the pipeline pages are built once per address and head position, however many clients ask. While
  // the head stays, a page older than a second (and than five times its own build, so a slow page never keeps the
  // server busy) is answered as it is and built again beside, for its clock-bound parts; an append makes every request
  // wait for the page it changed. The pages last asked for are kept (a few).
  const pages = new Map<string, BuiltPage>();
  // Kept as the pieces of bytes they were encoded in: a request that finds the page sends them as they are, without
  // encoding the text again (a pipeline page of a daily pipeline is about 400 KB) or joining them (the overview of
  // 1,000 pipelines is 2.3 MB).
  const built = async (url: string, build: () => Promise<KeptBytes>): Promise<KeptBytes> => {
    const position = (await ledger.store.head()).position;
    const startedAt = Date.now();
    let entry = pages.get(url);
    if (entry?.position !== position) {
      const made: BuiltPage = { position, builtAt: startedAt, buildMs: 0, html: build(), next: null };
      made.html.then(
        () => {
          made.buildMs = Date.now() - startedAt;
        },
        () => {
          if (pages.get(url) === made) pages.delete(url);
        },
      );
      entry = made;
      pages.delete(url);
      pages.set(url, made);
      if (pages.size > PAGES_KEPT) pages.delete(pages.keys().next().value as string);
    } else if (entry.next === null && startedAt - entry.builtAt >= Math.max(1000, 5 * entry.buildMs)) {
      const kept = entry;
      const next = build();
      kept.next = next;
      next
        .then(
          (html) => {
            kept.html = Promise.resolve(html);
            kept.builtAt = startedAt;
            kept.buildMs = Date.now() - startedAt;
          },
          () => undefined,
        )
        .finally(() => {
          kept.next = null;
        });
    }
    return entry.html;
  };

  const loadPage = async (request: FastifyRequest, title: string, asOf: AsOf | undefined, load: (asOf: AsOf | undefined) => Promise<Page>): Promise<{ page: Page; shell: ShellOptions }> => {
    const query = queryOf(request.url);
    const page = await load(asOf);
    const path = request.url.split('?')[0] ?? '/';
    const asOfText = query.get('as_of') || null;
    const links = servedLinks(asOfText, path);
    const shell: ShellOptions = {
      title,
      links,
      time: page.time,
      mode: 'served',
      asOfText: asOfText === null ? null : /^\d+$/.test(asOfText) ? `event position ${asOfText}` : asOfText,
      nowHref: path,
      ...(page.kind === 'pipeline' ? { pipeline: page.definition.pipeline } : page.kind === 'run' ? { pipeline: page.grid.pipeline } : {}),
    };
    return { page, shell };
  };
  const renderHtml = async (request: FastifyRequest, title: string, asOf: AsOf | undefined, load: (asOf: AsOf | undefined) => Promise<Page>): Promise<string> => {
    const { page, shell } = await loadPage(request, title, asOf, load);
    return pageShell(pageBody(page, shell.links), shell);
  };
  // The kept pages, encoded a piece at a time: the bytes of `renderHtml`'s text, without its one string of the page.
  const renderBytes = async (request: FastifyRequest, title: string, asOf: AsOf | undefined, load: (asOf: AsOf | undefined) => Promise<Page>): Promise<KeptBytes> => {
    const { page, shell } = await loadPage(request, title, asOf, load);
    const { start, end } = pageShellParts(shell);
    const chunks = [Buffer.from(start, 'utf8')];
    for (const chunk of pageBodyChunks(page, shell.links)) chunks.push(Buffer.from(chunk, 'utf8'));
    chunks.push(Buffer.from(end, 'utf8'));
    return keptBytes(chunks);
  };
  const headers = (reply: FastifyReply) => reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
  const send = (reply: FastifyReply, text: string) => headers(reply).send(text);
  const sendBuilt = (reply: FastifyReply, page: KeptBytes) => sendKept(headers(reply), page);
  const render = async (request: FastifyRequest, reply: FastifyReply, title: string, load: (asOf: AsOf | undefined) => Promise<Page>) =>
    send(reply, await renderHtml(request, title, asOfOf(queryOf(request.url)), load));

  app.get('/', async (request, reply) => {
    const query = queryOf(request.url);
    const asOf = asOfOf(query);
    const filter = overviewFilterOf(query);
    if (asOf || filter) return send(reply, await renderHtml(request, 'runledger: pipelines', asOf, async (a) => narrowed(await loadOverview(ledger, a), filter)));
    return sendBuilt(reply, await built('/', () => renderBytes(request, 'runledger: pipelines', undefined, () => loadOverview(ledger, undefined))));
  });

  // `?from&to&limit`: the calendar page. The history strip narrows to a range with `from` and `to`; paging walks `limit` rows
  // (months or days) back from `to`, never before `from`, and forward never past `until` (the range's end, which paging links keep). `?runs_before=<runId>`: the runs table's page of the runs before that one.
  app.get<{ Params: PipelineParams }>('/pipelines/:pipeline', async (request, reply) => {
    const query = queryOf(request.url);
    const input = pipelinePageInput(query);
    const html = await built(pageKey(request.url, query), () => renderBytes(request, `runledger: ${request.params.pipeline}`, asOfOf(query), (asOf) => loadServedPipelinePage(ledger, request.params.pipeline, asOf, {}, input)));
    return sendBuilt(reply, html);
  });

  app.get<{ Params: PipelineParams & { runId: string } }>('/pipelines/:pipeline/runs/:runId', async (request, reply) =>
    render(request, reply, `runledger: run ${request.params.runId}`, (asOf) => loadRunPage(ledger, request.params.pipeline, request.params.runId, asOf)),
  );

  app.get<{ Params: PipelineParams & { date: string } }>('/pipelines/:pipeline/dates/:date', async (request, reply) =>
    render(request, reply, `runledger: ${request.params.pipeline} ${request.params.date}`, (asOf) => loadDatePage(ledger, request.params.pipeline, request.params.date, asOf)),
  );

  // `?before=<position>`: the page of the entries recorded before that event (the older link of the page before it).
  app.get('/audit', async (request, reply) => {
    const before = wholeOf(queryOf(request.url), 'before', 1);
    return render(request, reply, 'runledger: audit timeline', (asOf) => loadAuditPage(ledger, asOf, before === undefined ? {} : { before }));
  });

  app.get('/verify', async (request, reply) => render(request, reply, 'runledger: verify', () => loadVerifyPage(ledger)));

  // Assets are public: they hold no ledger data, and a page opened with ?token= must load them before its cookie is used.
  app.get('/assets/app.css', { config: { scope: 'public' } }, async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(APP_CSS));
  app.get('/assets/app.js', { config: { scope: 'public' } }, async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/javascript; charset=utf-8').send(APP_JS));
}

/** The parameters a pipeline page reads; any other changes nothing on it. */
const PAGE_PARAMETERS = ['as_of', 'from', 'to', 'until', 'limit', 'runs_before'] as const;

/**
 * The address a built page is kept under: its path and the parameters it reads, in one order. A parameter the page
 * does not read (`?x=1`, `?x=2`, …) would otherwise make each address a build of its own, and push the kept pages out.
 */
function pageKey(url: string, query: Map<string, string>): string {
  const path = url.split('?')[0] ?? '/';
  const kept = PAGE_PARAMETERS.filter((name) => query.has(name)).map((name) => `${name}=${encodeURIComponent(query.get(name) ?? '')}`);
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

/** A pipeline page's paging parameters, the calendar's `limit` checked against its cap before any work. */
function pipelinePageInput(query: Map<string, string>): PipelinePageInput {
  const rows = query.has('limit') ? limitOf(query, CALENDAR_ROWS) : undefined;
  const { from, to, until, runs_before: runsBefore } = pick(query, ['from', 'to', 'until', 'runs_before'] as const);
  return {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(until === undefined ? {} : { until }),
    ...(rows === undefined ? {} : { rows }),
    ...(runsBefore === undefined ? {} : { runsBefore }),
  };
}
