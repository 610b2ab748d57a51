import type { FastifyInstance } from 'fastify';
import { PassThrough } from 'node:stream';
import { watchAppends } from '../../ledger/watch-appends.js';
import type { ChainHead } from '../../store/event-store.js';
import { queryOf, wholeOf } from '../parse-query.js';
import type { ServeDeps } from '../serve-options.js';

/** How often the open streams hear a comment, so proxies keep them open. */
const KEEPALIVE_MS = 15_000;

/**
 * `GET /api/stream?after=<position>`: Server-Sent Events, one `append` event
 * (`data: {"position":n,"hash":…}`) whenever the ledger's head moves, whoever
 * appended. One watcher per server, started with the first listener and
 * stopped with the last; a listener whose page is behind (`after` below the
 * head) hears at once.
 */
export function streamRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const listeners = new Set<PassThrough>();
  let stop: (() => Promise<void>) | null = null;
  let starting: Promise<void> | null = null;
  let keepalive: NodeJS.Timeout | null = null;

  const send = (res: PassThrough, head: ChainHead) => res.write(`event: append\ndata: ${JSON.stringify(head)}\n\n`);
  const ensureWatching = async () => {
    if (stop || starting) return starting ?? undefined;
    starting = (async () => {
      stop = await watchAppends(deps.ledger.store, (head) => {
        for (const res of listeners) send(res, head);
      }, { intervalMs: deps.watchIntervalMs ?? 250 });
      keepalive = setInterval(() => {
        for (const res of listeners) res.write(': keepalive\n\n');
      }, KEEPALIVE_MS);
    })();
    await starting;
    starting = null;
  };
  const maybeStop = async () => {
    if (listeners.size > 0 || !stop) return;
    const done = stop;
    stop = null;
    if (keepalive) clearInterval(keepalive);
    keepalive = null;
    await done();
  };

  app.get('/api/stream', async (request, reply) => {
    const after = wholeOf(queryOf(request.url), 'after', 0);
    await ensureWatching();
    const head = await deps.ledger.store.head();
    // A stream body keeps fastify's hooks (the security headers) on the answer.
    const res = new PassThrough();
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify(head)}\n\n`);
    if (after !== undefined && head.position > after) send(res, head);
    listeners.add(res);
    request.raw.on('close', () => {
      listeners.delete(res);
      res.end();
      void maybeStop();
    });
    return reply.header('cache-control', 'no-store').header('x-accel-buffering', 'no').type('text/event-stream; charset=utf-8').send(res);
  });

  // Open streams never end on their own; close them so the server can stop.
  app.addHook('preClose', async () => {
    for (const res of listeners) res.end();
    listeners.clear();
    await maybeStop();
  });
}
