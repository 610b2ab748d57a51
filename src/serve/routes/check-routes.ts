import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CheckRules } from '../../../projections/views/check-status.js';
import { parseDuration } from '../../duration.js';
import { LedgerError } from '../../errors.js';
import { runCheck } from '../../ops/run-check.js';
import type { ServeDeps } from '../serve-options.js';

const Flag = z.enum(['', 'true', '1', 'false', '0']).transform((v) => v === '' || v === 'true' || v === '1');
const CheckQuery = z.object({
  pipeline: z.union([z.string(), z.array(z.string())]).optional(),
  maxLag: z.string().optional(),
  maxPending: z.string().regex(/^\d+$/, 'a whole number of 0 or more').optional(),
  noFailed: Flag.optional(),
  noStalled: Flag.optional(),
  includePaused: Flag.optional(),
});

/**
 * `GET /api/check?maxLag=1d&maxPending=0&noFailed&noStalled[&pipeline=…]`:
 * the rules of `runledger check`, for HTTP monitors. 200 with the report of
 * `check --json` when every rule holds, 422 with the same report when one
 * does not (the CLI's exit 7); no rule at all is 400, as the CLI's exit 2.
 */
export function checkRoutes(app: FastifyInstance, deps: ServeDeps): void {
  app.get('/api/check', async (request, reply) => {
    const query = CheckQuery.safeParse(request.query);
    if (!query.success) {
      const issue = query.error.issues[0];
      throw new LedgerError('input.invalidQuery', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}; e.g. /api/check?maxLag=1d&maxPending=0&noFailed=true`);
    }
    const q = query.data;
    const rules: CheckRules = {
      ...(q.maxLag === undefined ? {} : { maxLagSeconds: parseDuration(q.maxLag, 'maxLag') / 1000 }),
      ...(q.maxPending === undefined ? {} : { maxPending: Number(q.maxPending) }),
      ...(q.noFailed ? { noFailed: true } : {}),
      ...(q.noStalled ? { noStalled: true } : {}),
      ...(q.includePaused ? { includePaused: true } : {}),
    };
    const pipelines = q.pipeline === undefined ? [] : Array.isArray(q.pipeline) ? q.pipeline : [q.pipeline];
    const report = await runCheck(deps.ledger, rules, { pipelines, nowMs: deps.clock() });
    return reply.code(report.ok ? 200 : 422).send(report);
  });
}
