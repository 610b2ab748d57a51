import type { FastifyInstance } from 'fastify';
import type { Ledger } from '../ledger/ledger.js';

/** Who may call a route: anyone, a holder of the read token (when one is set), or of the write token. */
export type RouteScope = 'public' | 'read' | 'write';

/** What every route plugin gets: the one open ledger, the clock, and the server's settings. */
export type ServeDeps = {
  ledger: Ledger;
  /** Milliseconds since the epoch (the CLI's `--now` or the real clock). */
  clock: () => number;
  /** Reads need this bearer token (or cookie) when set. */
  readToken?: string;
  /** Writes need this bearer token; without one, every write route answers 403. */
  writeToken?: string;
  /** How often live pages' event stream looks at the head when the store cannot notify (default 250 ms). */
  watchIntervalMs?: number;
  /** Define unbound Airflow DAGs from the OpenLineage events' `dag` facet (`serve --openlineage-auto`). */
  openlineageAuto?: boolean;
  /** On POST /api/v1/lineage, refuse (404) an event whose job and parent are bound to no pipeline (`serve --strict-lineage`); default: ignored with the reason. */
  strictLineage?: boolean;
};

export type ServeOptions = ServeDeps & {
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Log one line per request on stderr (fastify's logger); off in tests. */
  logRequests?: boolean;
  /** The route groups to register (default: every group of `serveRoutes`); tests pass their own. */
  routes?: Array<(app: FastifyInstance, deps: ServeDeps) => Promise<void> | void>;
};
