import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { LedgerError } from '../../src/errors.js';
import { createServer, CONTENT_SECURITY_POLICY } from '../../src/serve/create-server.js';
import { statusForExitCode } from '../../src/serve/http-status.js';
import type { ServeDeps } from '../../src/serve/serve-options.js';
import { watchAppends } from '../../src/ledger/watch-appends.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { isLoopback } from '../../src/cli/commands/serve-command.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Routes of every scope and error kind, so the server's own rules can be seen through them. */
function probeRoutes(app: FastifyInstance, _deps: ServeDeps): void {
  app.get('/api/probe/read', async () => ({ read: true }));
  app.post('/api/probe/write', { config: { scope: 'write' } }, async () => ({ wrote: true }));
  app.get('/api/probe/refused', async () => {
    throw new LedgerError('ledger.alreadyRunning', 'etl_orders 2026-11-02 is already running');
  });
  app.get('/api/probe/broken', async () => {
    throw new LedgerError('integrity.chainBroken', 'event 7 does not link to event 6');
  });
  app.get('/api/probe/bug', async () => {
    throw new TypeError('x is undefined\n    at somewhere');
  });
  app.get('/page', async (_req, reply) => reply.type('text/html').send('<p>page</p>'));
}

async function server(tokens: { readToken?: string; writeToken?: string } = {}, bodyLimit?: number) {
  const ledger = openMemoryLedger();
  const app = await createServer({ ledger, clock: () => 0, ...tokens, ...(bodyLimit ? { bodyLimit } : {}), routes: [probeRoutes] });
  apps.push(app);
  return app;
}

describe('HTTP status of each CLI exit code', () => {
  test.each([
    ['bad input', 2, 400],
    ['refused by a rule', 3, 409],
    ['not found', 4, 404],
    ['integrity failure', 5, 500],
    ['unexpected', 1, 500],
    ['a check that does not hold', 7, 422],
  ])('%s (exit %i) is HTTP %i', (_label, exitCode, status) => {
    expect(statusForExitCode(exitCode)).toBe(status);
  });
});

describe('serve: errors', () => {
  test('a LedgerError answers with its code, its one-line message and the status of its exit code', async () => {
    const app = await server();
    const refused = await app.inject({ url: '/api/probe/refused' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: { code: 'ledger.alreadyRunning', message: 'etl_orders 2026-11-02 is already running' } });
    const broken = await app.inject({ url: '/api/probe/broken' });
    expect(broken.statusCode).toBe(500);
    expect(broken.json().error.message).toBe('event 7 does not link to event 6');
  });

  test('a bug answers 500 with one line and no stack', async () => {
    const res = await (await server()).inject({ url: '/api/probe/bug' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'unexpected', message: 'unexpected error: x is undefined' } });
  });

  test('an unknown route is 404 with the error body', async () => {
    const res = await (await server()).inject({ url: '/api/nothing?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({ code: 'notFound.route', message: "no route GET /api/nothing; see 'HTTP API' in docs/web.md" });
  });

  test('a body over the limit is 413 and never reaches the route', async () => {
    const app = await server({ writeToken: 'w' }, 100);
    const res = await app.inject({ method: 'POST', url: '/api/probe/write', headers: { authorization: 'Bearer w' }, payload: { x: 'y'.repeat(200) } });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('input.bodyTooLarge');
  });
});

describe('serve: security headers', () => {
  test('every answer carries a strict Content-Security-Policy and nosniff, errors included', async () => {
    const app = await server();
    for (const url of ['/page', '/api/probe/read', '/api/missing']) {
      const res = await app.inject({ url });
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });
});

describe('serve: tokens', () => {
  test('without tokens reads are open and writes are refused with 403', async () => {
    const app = await server();
    expect((await app.inject({ url: '/api/probe/read' })).statusCode).toBe(200);
    const write = await app.inject({ method: 'POST', url: '/api/probe/write' });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('auth.writeDisabled');
  });

  test('a read token is needed for reads; the write token reads and writes; the read token cannot write', async () => {
    const app = await server({ readToken: 'r', writeToken: 'w' });
    expect((await app.inject({ url: '/api/probe/read' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/probe/read', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/probe/read', headers: { authorization: 'Bearer r' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/probe/read', headers: { authorization: 'Bearer w' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/probe/write', headers: { authorization: 'Bearer r' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/probe/write', headers: { authorization: 'Bearer w' } })).json()).toEqual({ wrote: true });
  });

  test('a page opened with ?token= sets an HttpOnly cookie and drops the token from the address', async () => {
    const app = await server({ readToken: 'r' });
    const first = await app.inject({ url: '/page?token=r&x=1' });
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/page?x=1');
    expect(String(first.headers['set-cookie'])).toMatch(/^runledger_token=r; HttpOnly; SameSite=Strict/);
    const next = await app.inject({ url: '/page?x=1', cookies: { runledger_token: 'r' } });
    expect(next.statusCode).toBe(200);
    expect((await app.inject({ url: '/page', cookies: { runledger_token: 'nope' } })).statusCode).toBe(401);
  });

  test('the health route is public and names the head', async () => {
    const ledger = openMemoryLedger();
    const app = await createServer({ ledger, clock: () => 0, readToken: 'r' });
    apps.push(app);
    const res = await app.inject({ url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, head: { position: 0 } });
  });
});

describe('serve: which hosts need a token', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.4', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });
});

describe('watchAppends', () => {
  test('calls back when another writer moves the head, once per move, and stops when asked', async () => {
    let now = Date.parse('2026-11-05T00:00:00Z');
    const ledger = openMemoryLedger({ clock: () => now });
    const heads: number[] = [];
    const stop = await watchAppends(ledger.store, (head) => heads.push(head.position), { intervalMs: 10 });
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01' });
    await new Promise((r) => setTimeout(r, 60));
    expect(heads).toEqual([1]);
    await stop();
    now += 1000;
    await ledger.start({ pipeline: 'p', date: '2026-11-01' });
    await new Promise((r) => setTimeout(r, 60));
    expect(heads).toEqual([1]);
  });
});
