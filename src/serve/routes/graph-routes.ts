import type { FastifyInstance } from 'fastify';
import { readGraph } from '../../ops/read-graph.js';
import { html } from '../../render/escape-html.js';
import { graphSvg } from '../../render/graph-svg.js';
import { pageShell, servedLinks } from '../../render/render-pages.js';
import type { ServeDeps } from '../serve-options.js';

/**
 * The dependency graph: `GET /graph`, a page with the pipelines as boxes coloured by their worst status
 * and an arrow per upstream (server-rendered SVG: no script of its own, nothing the CSP has to allow),
 * and `GET /api/graph`, exactly the document of `runledger graph --json`.
 */
export function graphRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const { ledger } = deps;

  app.get('/api/graph', async () => readGraph(ledger, { nowMs: deps.clock() }));

  app.get('/graph', async (_request, reply) => {
    const nowMs = deps.clock();
    const position = (await ledger.store.head()).position;
    const view = await readGraph(ledger, { nowMs });
    const links = servedLinks(null, '/graph');
    const body = html`<h1>Pipeline dependencies</h1><p class="muted">Each arrow points from an upstream to the pipeline whose dates wait for it (define --upstream); a box's colour is the worst status of its due dates. JSON: <a href="/api/graph">/api/graph</a>.</p>${graphSvg(view, links.pipeline)}`;
    const page = pageShell(body, { title: 'runledger: dependencies', links, time: { nowMs, asOf: null, position }, mode: 'served', asOfText: null, nowHref: '/graph' });
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
  });
}
