import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LedgerError } from '../../errors.js';
import { readStatus } from '../../ops/read-status.js';
import type { ServeDeps } from '../serve-options.js';

const StatusQuery = z.object({ pipeline: z.union([z.string(), z.array(z.string())]).optional() });

/**
 * `GET /api/status[?pipeline=a&pipeline=b]`: exactly the document of
 * `runledger status --json`, every pipeline worst first.
 */
export function statusRoutes(app: FastifyInstance, deps: ServeDeps): void {
  app.get('/api/status', async (request) => {
    const query = StatusQuery.safeParse(request.query);
    if (!query.success) throw new LedgerError('input.invalidQuery', 'pipeline must be a pipeline name, e.g. /api/status?pipeline=etl_orders');
    const named = query.data.pipeline;
    const pipelines = named === undefined ? [] : Array.isArray(named) ? named : [named];
    return readStatus(deps.ledger, { pipelines, nowMs: deps.clock() });
  });
}
