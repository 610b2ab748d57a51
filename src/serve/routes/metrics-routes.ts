import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { chainVerifier } from '../../ops/chain-verifier.js';
import { metricsCollector } from '../../ops/collect-metrics.js';
import { answerCache } from '../answer-cache.js';
import { keptBytes, sendKept, type KeptBytes } from '../kept-bytes.js';
import type { ServeDeps } from '../serve-options.js';

/**
 * `GET /metrics`: the ledger in Prometheus text format, read at each scrape,
 * followed by the server process's own metrics (prom-client's default
 * collectors: CPU, memory, event loop lag, heap, GC, handles; `process_*` and
 * `nodejs_*`), which only a long-running server has. It needs the read token
 * when the server has one (Prometheus sends it with `authorization: {
 * credentials: … }`). The hash chain is verified in full at the first scrape
 * and, at each later one, from where the last check ended. The answer is built
 * once per head position and second and kept as bytes, however many scrapers ask.
 */
export function metricsRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const verifier = chainVerifier(deps.ledger.store, deps.clock);
  // One registry per server, not prom-client's global one: two servers in one process (tests) stay apart.
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  // Built once per head position and second, however many scrapers ask (an HA pair of Prometheus servers, or
  // several at once): within one second and one head it is what a fresh build gives, to the second its lag and
  // the process's own figures are read at (Prometheus scrapes every 15 s by default). Kept as the pieces of bytes it
  // was printed in, so a request that finds it sends them as they are.
  const answer = answerCache<{ body: KeptBytes; contentType: string }>();
  // One registry and one set of metrics for every scrape, their values set afresh each time.
  const ledgerMetrics = metricsCollector();
  app.get('/metrics', async (_request, reply) => {
    const nowMs = deps.clock();
    const key = `${(await deps.ledger.store.head()).position}:${Math.floor(nowMs / 1000)}`;
    const { body, contentType } = await answer.get(key, async () => {
      // The ledger's part as bytes a metric at a time (never one string of the whole text), then the process's few.
      const { chunks, contentType } = await ledgerMetrics.collectBytes(deps.ledger, { nowMs, verify: await verifier.check() });
      const last = chunks.at(-1);
      const endsLine = last !== undefined && last.length > 0 && last[last.length - 1] === 0x0a;
      chunks.push(Buffer.from(`${endsLine ? '' : '\n'}${await processMetrics.metrics()}`, 'utf8'));
      return { body: keptBytes(chunks), contentType };
    });
    return sendKept(reply.type(contentType), body);
  });
}
