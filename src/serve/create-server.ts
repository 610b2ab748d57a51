import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isLedgerError } from '../errors.js';
import { bearerToken, cookieValue, TOKEN_COOKIE, tokenMatches } from './check-token.js';
import { statusForExitCode } from './http-status.js';
import type { RouteScope, ServeDeps, ServeOptions } from './serve-options.js';
import { serveRoutes } from './serve-routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (default `read`). */
    scope?: RouteScope;
  }
}

/**
 * A strict Content-Security-Policy: nothing from another origin, no inline
 * script; pages load their one script and stylesheet from this server.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * Builds the `serve` HTTP server on fastify: every route plugin of
 * `serveRoutes`, token checks by route scope, security headers on every
 * answer, and errors as `{ error: { code, message } }` with the HTTP status of
 * the CLI's exit code for the same error. Not listening yet: the caller
 * `listen`s, tests `inject`.
 *
 * @example
 * const app = await createServer({ ledger, clock: Date.now });
 * const res = await app.inject({ url: '/api/health' });
 */
export async function createServer(options: ServeOptions): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    logger: options.logRequests ? { level: 'info' } : false,
    // Routes parse their own query strings with zod; fastify's default is fine for everything else.
    return503OnClosing: true,
  });
  const deps: ServeDeps = {
    ledger: options.ledger,
    clock: options.clock,
    ...(options.readToken ? { readToken: options.readToken } : {}),
    ...(options.writeToken ? { writeToken: options.writeToken } : {}),
    ...(options.watchIntervalMs ? { watchIntervalMs: options.watchIntervalMs } : {}),
    ...(options.openlineageAuto ? { openlineageAuto: true } : {}),
    ...(options.strictLineage ? { strictLineage: true } : {}),
  };

  app.addHook('onRequest', async (request, reply) => authorize(request, reply, deps));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    return payload;
  });

  app.setErrorHandler(async (error: unknown, _request, reply) => {
    if (isLedgerError(error)) return sendError(reply, statusForExitCode(error.exitCode), error.code, error.message);
    const fastifyError = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, 'input.bodyTooLarge', `the request body is larger than ${options.bodyLimit ?? 1024 * 1024} bytes; send less in one request`);
    }
    if (fastifyError.validation !== undefined || (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)) {
      return sendError(reply, fastifyError.statusCode ?? 400, 'input.invalidRequest', oneLine(fastifyError.message ?? 'invalid request'));
    }
    reply.log.error(error);
    return sendError(reply, 500, 'unexpected', `unexpected error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
  });
  app.setNotFoundHandler(async (request, reply) =>
    sendError(reply, 404, 'notFound.route', `no route ${request.method} ${request.url.split('?')[0]}; see 'HTTP API' in docs/web.md`),
  );

  for (const register of options.routes ?? serveRoutes) await register(app, deps);
  return app;
}

/** The one error body of the HTTP API. */
export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: { code, message } });
}

function oneLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/**
 * Checks the token a route's scope needs. A browser opening a page with
 * `?token=` gets the token as an HttpOnly cookie and is sent back to the same
 * address without it, so the token does not stay in the address bar or history.
 */
async function authorize(request: FastifyRequest, reply: FastifyReply, deps: ServeDeps): Promise<FastifyReply | undefined> {
  const scope: RouteScope = request.routeOptions.config?.scope ?? 'read';
  if (scope === 'public') return undefined;
  const url = new URL(request.url, 'http://localhost');
  const queryToken = url.searchParams.get('token') ?? undefined;
  const presented = bearerToken(request.headers.authorization) ?? cookieValue(request.headers.cookie, TOKEN_COOKIE) ?? queryToken;
  if (scope === 'write') {
    if (!deps.writeToken) return sendError(reply, 403, 'auth.writeDisabled', 'this server takes no writes; start it with --write-token (or RUNLEDGER_WRITE_TOKEN) to allow them');
    if (!tokenMatches(presented, deps.writeToken)) return sendError(reply, 401, 'auth.unauthorized', 'this write needs the write token as `Authorization: Bearer <token>`');
    return undefined;
  }
  if (!deps.readToken) return undefined;
  // The write token may read too.
  if (!tokenMatches(presented, deps.readToken) && !(deps.writeToken && tokenMatches(presented, deps.writeToken))) {
    return sendError(reply, 401, 'auth.unauthorized', 'this server needs its token: `Authorization: Bearer <token>`, or open a page once with ?token=<token>');
  }
  if (queryToken !== undefined && request.method === 'GET' && !request.url.startsWith('/api/')) {
    url.searchParams.delete('token');
    reply.header('set-cookie', `${TOKEN_COOKIE}=${encodeURIComponent(queryToken)}; HttpOnly; SameSite=Strict; Path=/`);
    return reply.redirect(`${url.pathname}${url.search}`, 303);
  }
  return undefined;
}
