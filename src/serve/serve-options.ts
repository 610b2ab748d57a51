import type { FastifyInstance } from 'fastify';
import type { Ledger } from '../ledger/ledger.js';
import type { WriteToken } from './check-token.js';

/** Who may call a route: anyone, a holder of the read token (when one is set), or of the write token. */
export type RouteScope = 'public' | 'read' | 'write';

/** What every route plugin gets: the one open ledger, the clock, and the server's settings. */
export type ServeDeps = {
  ledger: Ledger;
  /** Milliseconds since the epoch (the CLI's `--now` or the real clock). */
  clock: () => number;
  /** Reads need this token (bearer, the cookie, or `?token=` on a page) when set. */
  readToken?: string;
  /** An unnamed write token (its writes are recorded as `http:writer`); writes take it as a bearer token only. */
  writeToken?: string;
  /** Named write tokens (`--write-token NAME=SECRET`); writes are recorded as `http:NAME`. Without any, every write route answers 403. */
  writeTokens?: WriteToken[];
  /** How often live pages' event stream looks at the head when the store cannot notify (default 250 ms). */
  watchIntervalMs?: number;
  /** Event streams (`GET /api/stream`) open at a time; past it a new one is answered 503 with Retry-After (default 100). */
  maxStreams?: number;
  /** Define unbound Airflow DAGs from the OpenLineage events' `dag` facet (`serve --openlineage-auto`). */
  openlineageAuto?: boolean;
  /** On POST /api/v1/lineage, refuse (404) an event whose job and parent are bound to no pipeline (`serve --strict-lineage`); default: ignored with the reason. */
  strictLineage?: boolean;
};

export type ServeOptions = ServeDeps & {
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Log one line per request on stderr (fastify's logger); off in tests. A token in an address is logged as `[redacted]`. */
  logRequests?: boolean;
  /** Where the request log goes (default stdout of fastify's logger); tests pass their own. */
  logStream?: { write(line: string): void };
  /**
   * The host names a request's `Host` header may carry (default: localhost, 127.0.0.1, ::1); any other is
   * answered 421, so a page reaching the server through a rebound DNS name reads nothing.
   */
  allowedHosts?: readonly string[];
  /** The route groups to register (default: every group of `serveRoutes`); tests pass their own. */
  routes?: Array<(app: FastifyInstance, deps: ServeDeps) => Promise<void> | void>;
};
