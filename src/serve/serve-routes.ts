import type { FastifyInstance } from 'fastify';
import { apiRoutes } from './routes/api-routes.js';
import { checkRoutes } from './routes/check-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { metricsRoutes } from './routes/metrics-routes.js';
import { pageRoutes } from './routes/page-routes.js';
import { statusRoutes } from './routes/status-routes.js';
import { streamRoutes } from './routes/stream-routes.js';
import { lineageRoutes } from './routes/lineage-routes.js';
import { writeRoutes } from './routes/write-routes.js';
import { graphRoutes } from './routes/graph-routes.js';
import type { ServeDeps } from './serve-options.js';

/** A group of routes: registered once on the server with the shared dependencies. */
export type RegisterRoutes = (app: FastifyInstance, deps: ServeDeps) => Promise<void> | void;

/** Every route group of `serve`, each in its own file under routes/. */
export const serveRoutes: RegisterRoutes[] = [healthRoutes, statusRoutes, checkRoutes, metricsRoutes, writeRoutes, lineageRoutes, apiRoutes, graphRoutes, streamRoutes, pageRoutes];
