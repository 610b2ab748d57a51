import type { FastifyInstance } from 'fastify';
import { PassThrough } from 'node:stream';
import { changedPipelines, watchAppends, type PipelineChanges } from '../../ledger/watch-appends.js';
import type { ChainHead } from '../../store/event-store.js';
import { queryOf, wholeOf } from '../parse-query.js';
import type { ServeDeps } from '../serve-options.js';

/** How often the open streams hear a comment, so proxies keep them open. */
const KEEPALIVE_MS = 15_000;
/** Open event streams a server keeps by default (`serve --max-streams`). */
export const DEFAULT_MAX_STREAMS = 100;
/** Seconds a client refused for want of a stream is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

type Listener = { res: PassThrough; pipeline: string | null };
type Notice = ChainHead & { pipelines: PipelineChanges };

/**
 * `GET /api/stream?after=<position>[&pipeline=<name>]`: Server-Sent Events,
 * one `append` event whenever the ledger's head moves, whoever appended:
 * `data: {"position":n,"hash":…,"pipelines":{"etl_orders":n}}`, each changed
 * pipeline with the position of its last new event (`pipelines` is null
 * after a span too long to read, such as an import: anything may have
 * changed). With `pipeline`, only the notices that concern it are sent. One
 * watcher per server, started with the first listener and stopped with the
 * last; a listener whose page is behind (`after` below the head) hears at
 * once. At most `maxStreams` streams are open at a time; past it the answer
 * is 503 with `Retry-After`.
 */
export function streamRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const maxStreams = deps.maxStreams ?? DEFAULT_MAX_STREAMS;
  const listeners = new Set<Listener>();
  // Streams admitted, counted before their first await so a burst of requests cannot pass the cap together.
  let admitted = 0;
  let stop: (() => Promise<void>) | null = null;
  let starting: Promise<void> | null = null;
  let keepalive: NodeJS.Timeout | null = null;
  let announced = 0;
  let announcing: Promise<void> = Promise.resolve();

  const concerns = (listener: Listener, pipelines: PipelineChanges) => listener.pipeline === null || pipelines === null || listener.pipeline in pipelines;
  const send = (listener: Listener, notice: Notice) => {
    if (concerns(listener, notice.pipelines)) listener.res.write(`event: append\ndata: ${JSON.stringify(notice)}\n\n`);
  };
  // Heads are announced one after another, each once, with what changed since the last one.
  const announce = (head: ChainHead) => {
    announcing = announcing
      .then(async () => {
        if (head.position <= announced) return;
        const pipelines = await changedPipelines(deps.ledger.store, announced, head.position);
        announced = head.position;
        for (const listener of listeners) send(listener, { ...head, pipelines });
      })
      .catch(() => {
        // A failed read (a dropped connection) is retried at the next append.
      });
  };
  const ensureWatching = async () => {
    if (stop || starting) return starting ?? undefined;
    starting = (async () => {
      announced = (await deps.ledger.store.head()).position;
      stop = await watchAppends(deps.ledger.store, announce, { after: announced, intervalMs: deps.watchIntervalMs ?? 250 });
      keepalive = setInterval(() => {
        for (const listener of listeners) listener.res.write(': keepalive\n\n');
      }, KEEPALIVE_MS);
    })();
    await starting;
    starting = null;
  };
  const maybeStop = async () => {
    if (listeners.size > 0 || admitted > 0 || !stop) return;
    const done = stop;
    stop = null;
    if (keepalive) clearInterval(keepalive);
    keepalive = null;
    await done();
  };

  app.get('/api/stream', async (request, reply) => {
    const query = queryOf(request.url);
    const after = wholeOf(query, 'after', 0);
    const pipeline = query.get('pipeline') || null;
    if (admitted >= maxStreams) {
      // The API's one error body, with the wait a client (EventSource included) should take before asking again.
      const message = `this server already keeps ${maxStreams} event streams open; try again in ${RETRY_AFTER_SECONDS} s, or start it with a higher --max-streams`;
      return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).type('application/json; charset=utf-8').send({ error: { code: 'serve.tooManyStreams', message } });
    }
    admitted += 1;
    let res: PassThrough;
    try {
      await ensureWatching();
      const head = await deps.ledger.store.head();
      // A stream body keeps fastify's hooks (the security headers) on the answer.
      res = new PassThrough();
      res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify(head)}\n\n`);
      const listener: Listener = { res, pipeline };
      if (after !== undefined && head.position > after) {
        const pipelines = await changedPipelines(deps.ledger.store, after, head.position);
        send(listener, { ...head, pipelines });
      }
      listeners.add(listener);
      request.raw.on('close', () => {
        // A stream the server's close already let go of was uncounted then.
        if (listeners.delete(listener)) admitted -= 1;
        res.end();
        void maybeStop();
      });
    } catch (error) {
      admitted -= 1;
      throw error;
    }
    return reply.header('cache-control', 'no-store').header('x-accel-buffering', 'no').type('text/event-stream; charset=utf-8').send(res);
  });

  // Open streams never end on their own; close them so the server can stop.
  app.addHook('preClose', async () => {
    for (const listener of listeners) listener.res.end();
    listeners.clear();
    admitted = 0;
    await maybeStop();
  });
}
