import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { cli, tempDir } from '../support/run-cli.js';

/**
 * `GET /api/stream`: a notice per head move naming the pipelines that
 * changed, each with its new position; `?pipeline=` hears one pipeline only;
 * and a cap on the streams open at once.
 */
const NOW = Date.parse('2026-11-06T01:00:00+07:00');
const opened: ClientRequest[] = [];
const servers: FastifyInstance[] = [];
afterEach(async () => {
  for (const req of opened.splice(0)) req.destroy();
  for (const app of servers.splice(0)) await app.close();
});

async function serving(options: { maxStreams?: number } = {}): Promise<{ ledger: Ledger; port: number }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  for (const pipeline of ['etl_a', 'etl_b']) await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-01', timezone: 'Asia/Jakarta' });
  const app = await createServer({ ledger, clock: () => NOW, watchIntervalMs: 20, ...options });
  servers.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { ledger, port: (app.server.address() as AddressInfo).port };
}

type Stream = { res: IncomingMessage; ended: Promise<void>; body: () => string; notices: () => Array<{ position: number; pipelines: Record<string, number> | null }>; next: (count: number) => Promise<void> };

/** Opens a stream and resolves once its headers are in. */
function open(port: number, path: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path }, (res) => {
      let text = '';
      const ended = new Promise<void>((done) => res.once('end', () => done()));
      const waiters: Array<() => void> = [];
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        for (const wake of waiters.splice(0)) wake();
      });
      const notices = () => [...text.matchAll(/event: append\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1] ?? 'null'));
      const next = async (count: number) => {
        while (notices().length < count) await new Promise<void>((wake) => waiters.push(wake));
      };
      resolve({ res, ended, body: () => text, notices, next });
    });
    req.on('error', reject);
    req.end();
    opened.push(req);
  });
}

describe('change notices', () => {
  test('each notice names the pipelines that changed with the position of their last new event', async () => {
    const { ledger, port } = await serving();
    const all = await open(port, '/api/stream');
    const onlyA = await open(port, '/api/stream?pipeline=etl_a');
    const run = await ledger.start({ pipeline: 'etl_b', date: '2026-11-01' });
    await all.next(1);
    await ledger.succeed({ runId: run.runId });
    await all.next(2);
    const runA = await ledger.start({ pipeline: 'etl_a', date: '2026-11-01' });
    await all.next(3);
    await onlyA.next(1);
    const head = (await ledger.store.head()).position;
    expect(all.notices().map((n) => n.pipelines)).toEqual([{ etl_b: head - 2 }, { etl_b: head - 1 }, { etl_a: head }]);
    // The stream of etl_a heard nothing of etl_b's two appends.
    expect(onlyA.notices()).toEqual([expect.objectContaining({ position: head, pipelines: { etl_a: head } })]);
    expect(runA.pipeline).toBe('etl_a');
  });

  test('a stream opened behind the head hears at once what changed since, and only if it concerns its pipeline', async () => {
    const { ledger, port } = await serving();
    const before = (await ledger.store.head()).position;
    const run = await ledger.start({ pipeline: 'etl_b', date: '2026-11-02' });
    await ledger.succeed({ runId: run.runId });
    const behindAll = await open(port, `/api/stream?after=${before}`);
    await behindAll.next(1);
    expect(behindAll.notices()[0]?.pipelines).toEqual({ etl_b: before + 2 });
    const behindA = await open(port, `/api/stream?after=${before}&pipeline=etl_a`);
    await new Promise<void>((done) => {
      if (behindA.body().includes('event: hello')) done();
      else behindA.res.once('data', () => done());
    });
    expect(behindA.notices()).toEqual([]);
  });
});

describe('a cap on open streams', () => {
  test('past the cap a stream is refused with 503, Retry-After and the error body; a closed stream frees its place', async () => {
    const { port } = await serving({ maxStreams: 2 });
    const first = await open(port, '/api/stream');
    await open(port, '/api/stream');
    const refused = await open(port, '/api/stream');
    expect(refused.res.statusCode).toBe(503);
    expect(refused.res.headers['retry-after']).toBe('5');
    expect(refused.res.headers['content-type']).toContain('application/json');
    await refused.ended;
    expect(JSON.parse(refused.body())).toEqual({
      error: { code: 'serve.tooManyStreams', message: 'this server already keeps 2 event streams open; try again in 5 s, or start it with a higher --max-streams' },
    });
    first.res.destroy();
    // The server sees the close a moment later; ask until it has.
    let status = 503;
    for (let attempt = 0; attempt < 50 && status === 503; attempt += 1) {
      const again = await open(port, '/api/stream');
      status = again.res.statusCode ?? 0;
      if (status === 503) await new Promise((done) => setTimeout(done, 20));
    }
    expect(status).toBe(200);
  });

  test('serve --max-streams takes a whole number of at least 1; 0 is refused before anything starts', () => {
    const dir = tempDir('runledger-streams-');
    const refused = cli(['--db', join(dir, 'ledger.db'), 'serve', '--max-streams', '0']);
    rmSync(dir, { recursive: true, force: true });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe("runledger: --max-streams must be a whole number of 1 or more, not '0'\n");
  });
});
