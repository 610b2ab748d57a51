import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AsOf } from '../../ledger/ledger-types.js';
import { APP_CSS, APP_JS } from '../../render/page-assets.js';
import { pageBody, pageShell, servedLinks } from '../../render/render-pages.js';
import { loadAuditPage, loadOverview, loadPipelinePage, loadRunPage, loadVerifyPage } from '../../views/load-pages.js';
import type { Page } from '../../views/page-models.js';
import { asOfOf, queryOf } from '../parse-query.js';
import type { ServeDeps } from '../serve-options.js';

type PipelineParams = { pipeline: string };

/**
 * The web view: overview, pipeline, run, audit and verify pages, each taking
 * `?as_of=<instant|position>`, plus the one stylesheet and the one script the
 * CSP allows (`/assets/app.css`, `/assets/app.js`).
 */
export function pageRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const { ledger } = deps;
  // The overview of many pipelines is the page everyone keeps open: build it once per head position and second.
  let overviewCache: { key: string; page: Promise<Page> } | null = null;

  const render = async (request: FastifyRequest, reply: FastifyReply, title: string, load: (asOf: AsOf | undefined) => Promise<Page>) => {
    const query = queryOf(request.url);
    const asOf = asOfOf(query);
    const page = await load(asOf);
    const path = request.url.split('?')[0] ?? '/';
    const asOfText = query.get('as_of') || null;
    const body = pageBody(page, servedLinks(asOfText, path));
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(pageShell(body, { title, links: servedLinks(asOfText, path), time: page.time, mode: 'served', asOfText: asOfText === null ? null : /^\d+$/.test(asOfText) ? `event position ${asOfText}` : asOfText, nowHref: path }));
  };

  app.get('/', async (request, reply) =>
    render(request, reply, 'runledger: pipelines', async (asOf) => {
      if (asOf) return loadOverview(ledger, asOf);
      const key = `${(await ledger.store.head()).position}:${Math.floor(ledger.now() / 1000)}`;
      if (overviewCache?.key !== key) {
        const page = loadOverview(ledger, undefined);
        overviewCache = { key, page };
        page.catch(() => {
          if (overviewCache?.page === page) overviewCache = null;
        });
      }
      return overviewCache.page;
    }),
  );

  app.get<{ Params: PipelineParams }>('/pipelines/:pipeline', async (request, reply) =>
    render(request, reply, `runledger: ${request.params.pipeline}`, (asOf) => loadPipelinePage(ledger, request.params.pipeline, asOf)),
  );

  app.get<{ Params: PipelineParams & { runId: string } }>('/pipelines/:pipeline/runs/:runId', async (request, reply) =>
    render(request, reply, `runledger: run ${request.params.runId}`, (asOf) => loadRunPage(ledger, request.params.pipeline, request.params.runId, asOf)),
  );

  app.get('/audit', async (request, reply) => render(request, reply, 'runledger: audit timeline', (asOf) => loadAuditPage(ledger, asOf)));

  app.get('/verify', async (request, reply) => render(request, reply, 'runledger: verify', () => loadVerifyPage(ledger)));

  // Assets are public: they hold no ledger data, and a page opened with ?token= must load them before its cookie is used.
  app.get('/assets/app.css', { config: { scope: 'public' } }, async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(APP_CSS));
  app.get('/assets/app.js', { config: { scope: 'public' } }, async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/javascript; charset=utf-8').send(APP_JS));
}
