import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isLedgerError, LedgerError } from '../errors.js';
import { checkPipelineName } from '../ledger/build-definition.js';
import { errorPage } from '../render/error-page.js';
import { hostOfHeader, LOOPBACK_NAMES } from './check-host.js';
import { bearerToken, cookieValue, TOKEN_COOKIE, tokenMatches, writerOf, type WriteToken } from './check-token.js';
import { capErrorBody, ERROR_BODY_MAX_BYTES, httpWording } from './error-body.js';
import { parseJsonBody } from './parse-json-body.js';
import { statusForExitCode } from './http-status.js';
import { asOfOf, queryOf } from './parse-query.js';
import { RouteMethods } from './route-methods.js';
import type { RouteScope, ServeDeps, ServeOptions } from './serve-options.js';
import { serveRoutes } from './serve-routes.js';
import { checkQueryParameters } from './query-parameters.js';
import { inZone } from '../format/zoned-instant.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (default `read`). */
    scope?: RouteScope;
  }
  interface FastifyRequest {
    /** The write token a write was authorized with (null on reads). */
    writer: WriteToken | null;
  }
}

/**
 * A strict Content-Security-Policy: nothing from another origin, no inline
 * script; pages load their one script and stylesheet from this server.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The headers of every answer, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Distinct Host headers whose verdict is kept; past it the kept ones are forgotten (a client sending many costs only their checks). */
const MAX_HOST_VERDICTS = 64;

/** Longest path parameter: a 128-character pipeline name, even percent-encoded, fits. */
const MAX_PARAM_LENGTH = 512;

/**
 * Builds the `serve` HTTP server on fastify: every route plugin of
 * `serveRoutes`, a Host check (DNS rebinding), token checks by route scope,
 * security headers on every answer, and errors as `{ error: { code, message } }`
 * with the HTTP status of the CLI's exit code for the same error (an HTML
 * page for a browser asking for a page). Not listening yet: the caller
 * `listen`s, tests `inject`.
 *
 * @example
 * const app = await createServer({ ledger, clock: Date.now });
 * const res = await app.inject({ url: '/api/health' });
 */
export async function createServer(options: ServeOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const writers: WriteToken[] = [...(options.writeTokens ?? []), ...(options.writeToken ? [{ name: null, token: options.writeToken }] : [])];
  const allowedHosts = new Set((options.allowedHosts ?? LOOPBACK_NAMES).map((h) => h.toLowerCase()));
  const methods = new RouteMethods();
  // Each client sends the same Host header on every request: the verdict on each header is kept (a bounded number of them).
  const hostVerdicts = new Map<string, boolean>();
  const hostAllowed = (header: string | undefined): boolean => {
    if (header === undefined) return false;
    let allowed = hostVerdicts.get(header);
    if (allowed === undefined) {
      const host = hostOfHeader(header);
      allowed = host !== null && allowedHosts.has(host);
      if (hostVerdicts.size >= MAX_HOST_VERDICTS) hostVerdicts.clear();
      hostVerdicts.set(header, allowed);
    }
    return allowed;
  };
  const app = Fastify({
    bodyLimit,
    logger: options.logRequests
      ? { level: 'info', serializers: { req: requestForLog }, redact: { paths: LOGGED_SECRETS, censor: '[redacted]' }, ...(options.logStream ? { stream: options.logStream } : {}) }
      : false,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A malformed address (`/pipelines/%ff`) or an over-long parameter never reaches the hooks: answer here.
    frameworkErrors: (error: FastifyError, _request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, 414, 'input.uriTooLong', `a part of the address is longer than ${MAX_PARAM_LENGTH} characters; pipeline names have at most 128`);
      return sendError(reply, 400, 'input.invalidUrl', 'the address is not valid URL encoding (a % must start two hex digits); encode it with encodeURIComponent');
    },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket),
  });
  const deps: ServeDeps = {
    ledger: options.ledger,
    clock: options.clock,
    ...(options.readToken ? { readToken: options.readToken } : {}),
    writeTokens: writers,
    ...(options.watchIntervalMs ? { watchIntervalMs: options.watchIntervalMs } : {}),
    ...(options.maxStreams ? { maxStreams: options.maxStreams } : {}),
    ...(options.openlineageAuto ? { openlineageAuto: true } : {}),
    ...(options.strictLineage ? { strictLineage: true } : {}),
  };

  app.decorateRequest('writer', null);
  app.addHook('onRoute', (route) => methods.add(route.method, route.url));
  // The hooks are plain callbacks, not async functions: each async hook costs every request a promise and a
  // turn of the microtask queue, a measurable share of a cached answer's few tens of microseconds.
  app.addHook('onRequest', (request, reply, done) => {
    // An absolute-form request line (`GET http://evil.example/ HTTP/1.1`) names its host there, and HTTP says a
    // server must take that authority over the Host header: it is checked the same way.
    const target = request.raw.url ?? '/';
    const host = target.startsWith('/') ? request.headers.host : authorityOf(target);
    if (!hostAllowed(host)) {
      sendError(reply, 421, 'auth.hostNotAllowed', `this server does not answer to the host '${oneLine(host ?? '')}'; open it by an address it listens on, or start it with --allowed-host <name>`);
      return;
    }
    // An answered request (refused, or sent back without its ?token=) goes no further.
    if (authorize(request, reply, deps, writers) === undefined) done();
  });
  // Bounds before work: a bad name or an as-of in the future is refused before any ledger read.
  app.addHook('preHandler', (request, _reply, done) => {
    try {
      checkRequest(request, deps.clock());
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(SECURITY_HEADERS);
    // Every answer is the ledger at one moment: no cache keeps it unless its route says so (the assets do).
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (reply.statusCode >= 400 && typeof payload === 'string' && payload.length > ERROR_BODY_MAX_BYTES && payload.startsWith('{')) {
      done(null, capErrorBody(payload));
      return;
    }
    done(null, payload);
  });

  // JSON bodies parsed here so each refusal says what is wrong with the body; no other type is taken (fastify's
  // text/plain parser would hand a string to the route, refused as a body that is no object instead of 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, text, done) => {
    try {
      done(null, parseJsonBody(String(text)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler(async (error: unknown, request, reply) => {
    if (isLedgerError(error)) return sendError(reply, statusForExitCode(error.exitCode), error.code, httpWording(error.message, request.method));
    const fastifyError = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, 'input.bodyTooLarge', `the request body is larger than ${bodyLimit} bytes; send less in one request`);
    }
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = request.headers['content-type'];
      return sendError(reply, 415, 'input.unsupportedMediaType', `the body must be JSON sent with \`content-type: application/json\`; this request ${type ? `sent ${oneLine(type)}` : 'named no content type'}`);
    }
    if (fastifyError.validation !== undefined || (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)) {
      return sendError(reply, fastifyError.statusCode ?? 400, 'input.invalidRequest', oneLine(fastifyError.message ?? 'invalid request'));
    }
    reply.log.error(error);
    return sendError(reply, 500, 'unexpected', `unexpected error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = methods.allowed(path);
    if (allow.length > 0) {
      reply.header('allow', allow.join(', '));
      return sendError(reply, 405, 'input.methodNotAllowed', `${path} takes ${allow.join(', ')}, not ${request.method}; see 'HTTP API' in docs/web.md`);
    }
    return sendError(reply, 404, 'notFound.route', `no route ${request.method} ${path}; see 'HTTP API' in docs/web.md`);
  });

  for (const register of options.routes ?? serveRoutes) await register(app, deps);
  return app;
}

/**
 * The one error body of the HTTP API, `{ error: { code, message } }`, with
 * the security headers (some framework errors skip the hooks). A browser
 * asking for a page (`Accept: text/html`, not under /api/) gets the same
 * message as an HTML page.
 */
export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  reply.headers(SECURITY_HEADERS);
  if (wantsHtml(reply.request)) return reply.code(status).type('text/html; charset=utf-8').send(errorPage(status, code, message));
  return reply.code(status).type('application/json; charset=utf-8').send({ error: { code, message } });
}

function wantsHtml(request: FastifyRequest | undefined): boolean {
  if (!request || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  const path = request.url.split('?')[0] ?? '';
  if (path.startsWith('/api/') || path === '/metrics') return false;
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

function oneLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/**
 * Checks the token a route's scope needs. Writes take the write token as
 * `Authorization: Bearer` only: never from a cookie (any page on this machine
 * could make the browser send it) and never from the address (it would land
 * in history and logs). Reads take a bearer token, the read-token cookie, or
 * `?token=<read token>`; a browser opening a page that way gets the read
 * token as an HttpOnly cookie and is sent back to the same path without it.
 */
function authorize(request: FastifyRequest, reply: FastifyReply, deps: ServeDeps, writers: readonly WriteToken[]): FastifyReply | undefined {
  const scope: RouteScope = request.routeOptions.config?.scope ?? 'read';
  if (scope === 'public') return undefined;
  // Most requests carry no query: no URL is parsed for them.
  const queryToken = request.url.includes('?') ? (new URL(request.url, 'http://localhost').searchParams.get('token') ?? undefined) : undefined;
  if (queryToken !== undefined && writerOf(queryToken, writers)) {
    return sendError(reply, 401, 'auth.tokenInUrl', 'a write token is never taken in an address (it would stay in history and logs); send it as `Authorization: Bearer <token>`, and open pages with the read token');
  }
  const bearer = bearerToken(request.headers.authorization);
  if (scope === 'write') {
    if (writers.length === 0) return sendError(reply, 403, 'auth.writeDisabled', 'this server takes no writes; start it with --write-token (or RUNLEDGER_WRITE_TOKEN) to allow them');
    const writer = writerOf(bearer, writers);
    if (!writer) return sendError(reply, 401, 'auth.unauthorized', 'this write needs a write token as `Authorization: Bearer <token>`; cookies and ?token= never authorize writes');
    request.writer = writer;
    return undefined;
  }
  if (!deps.readToken) return undefined;
  const cookie = cookieValue(request.headers.cookie, TOKEN_COOKIE);
  // A write token may read when it is presented as a bearer token; the cookie and the address hold the read token only.
  const readable = tokenMatches(bearer, deps.readToken) || writerOf(bearer, writers) !== undefined || tokenMatches(cookie, deps.readToken) || tokenMatches(queryToken, deps.readToken);
  if (!readable) {
    return sendError(reply, 401, 'auth.unauthorized', 'this server needs its read token: `Authorization: Bearer <token>`, or open a page once with ?token=<read token>');
  }
  const routeUrl = request.routeOptions.url;
  if (queryToken !== undefined && request.method === 'GET' && routeUrl !== undefined && !routeUrl.startsWith('/api/')) {
    const url = new URL(request.url, 'http://localhost');
    url.searchParams.delete('token');
    reply.header('set-cookie', `${TOKEN_COOKIE}=${encodeURIComponent(queryToken)}; HttpOnly; SameSite=Strict; Path=/`);
    // One leading slash: `/.//evil.com` normalizes to `//evil.com`, which a browser reads as another host.
    return reply.redirect(`/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`, 303);
  }
  return undefined;
}

/** Refuses, before any work, a query parameter the route does not read, a path or `?pipeline=` that is no pipeline name, and an `as_of` after now. */
function checkRequest(request: FastifyRequest, nowMs: number): void {
  const params = (request.params ?? {}) as Record<string, unknown>;
  // Most requests carry no query: only the path's name is checked, and no URL is parsed.
  if (!request.url.includes('?')) {
    const name = params['pipeline'];
    if (typeof name === 'string' && name !== '') checkPipelineName(name);
    return;
  }
  const query = queryOf(request.url);
  const route = request.routeOptions.url;
  if (route !== undefined) checkQueryParameters(request.method, route, query.keys());
  const named = request.url.includes('?') ? new URL(request.url, 'http://localhost').searchParams.getAll('pipeline') : [];
  for (const name of [params['pipeline'], ...named]) {
    if (typeof name === 'string' && name !== '') checkPipelineName(name);
  }
  const asOf = asOfOf(query);
  if (asOf && 'instant' in asOf && Date.parse(asOf.instant) > nowMs) {
    throw new LedgerError('input.asOfInFuture', `as_of ${query.get('as_of') ?? ''} is after now (${inZone(new Date(nowMs).toISOString(), 'UTC')}); the ledger has no future to show: pass an instant up to now, or leave as_of out`);
  }
}

/** What `--log` writes of a request: never a credential from its address, never its headers. */
function requestForLog(request: FastifyRequest): { method: string; url: string; remoteAddress: string } {
  return { method: request.method, url: redactTokenInUrl(request.url), remoteAddress: request.ip };
}

/** Paths of a log line pino censors if anything ever logs a request's headers (the serializer above logs none). */
const LOGGED_SECRETS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'headers.authorization', 'headers.cookie'];

/** Query parameters `--log` never writes the value of, by a name that says it carries a credential. */
const CREDENTIAL_PARAMETER = /token|key|pass|pwd|secret|auth|sig|credential|session|cookie/i;

/**
 * An address with the value of every credential-like parameter replaced:
 * `token`, `access_token`, `api_key`, `key`, `password`, `client_secret`,
 * `signature`, and any other name holding one of those words.
 *
 * @example
 * redactTokenInUrl('/?token=s3cret&x=1') // '/?token=[redacted]&x=1'
 * redactTokenInUrl('/?api_key=k&password=p') // '/?api_key=[redacted]&password=[redacted]'
 */
export function redactTokenInUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  if (![...params.keys()].some((k) => CREDENTIAL_PARAMETER.test(k))) return url;
  const kept = [...params].map(([k, v]) => `${encodeURIComponent(k)}=${CREDENTIAL_PARAMETER.test(k) ? '[redacted]' : encodeURIComponent(v)}`);
  return `${url.slice(0, q)}?${kept.join('&')}`;
}

/** The authority of an absolute-form request target (`http://host:port/path`), without user info; undefined for any other form. */
function authorityOf(target: string): string | undefined {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(target)?.[1];
  return authority === undefined ? undefined : authority.slice(authority.lastIndexOf('@') + 1);
}

/** Errors the HTTP parser finds before fastify sees a request (headers or address too large, a timeout): the same JSON shape and headers. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'input.headersTooLarge', 'the request headers (or its address) are larger than the server takes; send a shorter address']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'input.requestTimeout', 'the request took too long to arrive; send it again']
        : [400, 'Bad Request', 'input.badRequest', 'the request is not valid HTTP'];
  const body = JSON.stringify({ error: { code, message } });
  const headers = Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`);
  socket.destroy(error);
}
