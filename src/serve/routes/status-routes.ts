import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LedgerError } from '../../errors.js';
import { readStatus } from '../../ops/read-status.js';
import { answerCache } from '../answer-cache.js';
import type { ServeDeps } from '../serve-options.js';

const StatusQuery = z.object({ pipeline: z.union([z.string(), z.array(z.string())]).optional() });

/**
 * `GET /api/status[?pipeline=a&pipeline=b]`: exactly the document of
 * `runledger status --json`, every pipeline worst first.
 */
export function statusRoutes(app: FastifyInstance, deps: ServeDeps): void {
  // Built once per head position, second and selection, however many clients ask at once (a wall of
  // dashboards): within one second and one head it is what a fresh build gives, to the second its lag is read at.
  const answer = answerCache<Buffer>();
  app.get('/api/status', async (request, reply) => {
    const pipelines = request.url.includes('?') ? namedPipelines(request.query) : [];
    const nowMs = deps.clock();
    const key = `${(await deps.ledger.store.head()).position}:${Math.floor(nowMs / 1000)}:${JSON.stringify(pipelines)}`;
    const text = await answer.get(key, async () => Buffer.from(JSON.stringify(await readStatus(deps.ledger, { pipelines, nowMs }))));
    return reply.type('application/json; charset=utf-8').send(text);
  });
}

/** The pipelines `?pipeline=` names; only a request with a query names some (most name none, and skip the check). */
function namedPipelines(query: unknown): string[] {
  const parsed = StatusQuery.safeParse(query);
  if (!parsed.success) throw new LedgerError('input.invalidQuery', 'pipeline must be a pipeline name, e.g. /api/status?pipeline=etl_orders');
  const named = parsed.data.pipeline;
  return named === undefined ? [] : Array.isArray(named) ? named : [named];
}
