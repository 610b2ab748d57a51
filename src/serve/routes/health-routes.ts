import type { FastifyInstance } from 'fastify';
import type { ServeDeps } from '../serve-options.js';

/**
 * `GET /api/health`: the server is up and its ledger answers; the head of the
 * chain. Public, so a load balancer or uptime check needs no token.
 */
export function healthRoutes(app: FastifyInstance, deps: ServeDeps): void {
  app.get('/api/health', { config: { scope: 'public' } }, async () => {
    const head = await deps.ledger.store.head();
    return { ok: true, head };
  });
}
