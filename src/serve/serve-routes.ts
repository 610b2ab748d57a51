import type { FastifyInstance } from 'fastify';
import { healthRoutes } from './routes/health-routes.js';
import { lineageRoutes } from './routes/lineage-routes.js';
import { writeRoutes } from './routes/write-routes.js';
import type { ServeDeps } from './serve-options.js';

/** A group of routes: registered once on the server with the shared dependencies. */
export type RegisterRoutes = (app: FastifyInstance, deps: ServeDeps) => Promise<void> | void;

/** Every route group of `serve`, each in its own file under routes/. */
export const serveRoutes: RegisterRoutes[] = [healthRoutes, writeRoutes, lineageRoutes];
