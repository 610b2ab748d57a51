import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { chainVerifier } from '../../ops/chain-verifier.js';
import { collectMetrics } from '../../ops/collect-metrics.js';
import { answerCache } from '../answer-cache.js';
import type { ServeDeps } from '../serve-options.js';

/**
 * `GET /metrics`: the ledger in Prometheus text format, read at each scrape,
 * followed by the server process's own metrics (prom-client's default
 * collectors: CPU, memory, event loop lag, heap, GC, handles; `process_*` and
 * `nodejs_*`), which only a long-running server has. It needs the read token
 * when the server has one (Prometheus sends it with `authorization: {
 * credentials: … }`). The hash chain is verified in full at the first scrape
 * and, at each later one, from where the last check ended.
 */
export function metricsRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const verifier = chainVerifier(deps.ledger.store, deps.clock);
  // One registry per server, not prom-client's global one: two servers in one process (tests) stay apart.
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  // The ledger's part is built once per head position and second, however many scrapers ask (an HA pair of
  // Prometheus servers, or several at once): within one second and one head it is what a fresh build gives,
  // to the second its lag is read at. The process's own metrics are read at every scrape.
  const ledgerPart = answerCache<{ text: string; contentType: string }>();
  app.get('/metrics', async (_request, reply) => {
    const nowMs = deps.clock();
    const key = `${(await deps.ledger.store.head()).position}:${Math.floor(nowMs / 1000)}`;
    const { text, contentType } = await ledgerPart.get(key, async () => collectMetrics(deps.ledger, { nowMs, verify: await verifier.check() }));
    return reply.type(contentType).send(`${text}${text.endsWith('\n') ? '' : '\n'}${await processMetrics.metrics()}`);
  });
}
