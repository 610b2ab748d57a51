import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { curl, installed, nodeFetch, nodeHttp, pythonUrllib, type Client } from '../support/http-clients.js';
import { sparkApplication } from '../support/producer-events.js';

// Over a real socket, with real clients: fastify.inject fires the request's `close` differently, and a gzip POST
// once passed there while every real client waited for an answer that never came.

const NOW = Date.parse('2026-11-10T12:00:00Z');
const TOKEN = 'w-0123456789abcdef';
const FIXTURE = resolve(import.meta.dirname, '../fixtures/openlineage/producers', sparkApplication.file);
const events = readFileSync(FIXTURE, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown);

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serving(options: { bodyLimit?: number } = {}): Promise<{ ledger: Ledger; address: string }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  for (const pipeline of sparkApplication.pipelines) await ledger.define(pipeline);
  const app = await createServer({ ledger, clock: () => NOW, writeToken: TOKEN, ...options });
  apps.push(app);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { ledger, address };
}

const headers = (encoding: string) => ({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-encoding': encoding });
const ENCODERS = { gzip: gzipSync, deflate: deflateSync } as const;

const cases: Array<readonly [Client, keyof typeof ENCODERS]> = [
  [nodeFetch, 'gzip'],
  [nodeFetch, 'deflate'],
  [nodeHttp, 'gzip'],
  [nodeHttp, 'deflate'],
  ...(installed('python3') ? ([[pythonUrllib, 'gzip'], [pythonUrllib, 'deflate']] as const) : []),
  ...(installed('curl') ? ([[curl, 'gzip']] as const) : []),
];

describe('compressed OpenLineage POSTs over a real socket', () => {
  test.each(cases.map(([client, encoding]) => [`${client.name}, ${encoding}`, client, encoding] as const))('%s: answered 200 and every event recorded', async (_label, client, encoding) => {
    const { ledger, address } = await serving();
    const res = await client.post({ url: `${address}/api/v1/lineage`, headers: headers(encoding), body: ENCODERS[encoding](Buffer.from(JSON.stringify(events))) });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ received: events.length, refused: 0 });
    const [pipeline, rows] = Object.entries(sparkApplication.expected)[0] as [string, Record<string, { status: string }>];
    const recorded = (await ledger.state({ pipeline })).dates.filter((d) => d.status !== 'missing');
    expect(recorded.map((d) => [d.date, d.status])).toEqual(Object.entries(rows).map(([date, row]) => [date, row.status]));
  });

  test('a 3 KB gzip body that inflates past the body limit is answered 413, nothing written, and the server goes on answering', async () => {
    const { ledger, address } = await serving({ bodyLimit: 64 * 1024 });
    const bomb = gzipSync(Buffer.from(`[${' '.repeat(3 * 1024 * 1024)}]`), { level: 9 });
    const head = (await ledger.store.head()).position;
    const res = await nodeHttp.post({ url: `${address}/api/v1/lineage`, headers: headers('gzip'), body: bomb });
    expect(res.status, res.body).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('input.bodyTooLarge');
    expect((await ledger.store.head()).position).toBe(head);
    expect((await fetch(`${address}/api/health`)).status).toBe(200);
  });

  test('a body that is not gzip although it says so is answered 400 with the reason', async () => {
    const { address } = await serving();
    const res = await nodeFetch.post({ url: `${address}/api/v1/lineage`, headers: headers('gzip'), body: JSON.stringify(events[0]) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.message).toContain('the body is not valid gzip data');
  });

  test('a client that goes away in the middle of a gzip body leaves the server answering, and nothing written', async () => {
    const { ledger, address } = await serving();
    const body = gzipSync(Buffer.from(JSON.stringify(events)));
    const head = (await ledger.store.head()).position;
    await new Promise<void>((done) => {
      const req = httpRequest(`${address}/api/v1/lineage`, { method: 'POST', headers: { ...headers('gzip'), 'content-length': String(body.length) } });
      req.on('error', () => done());
      req.write(body.subarray(0, body.length >> 1), () => setTimeout(() => req.destroy(), 50));
    });
    const health = await fetch(`${address}/api/health`);
    expect(health.status).toBe(200);
    expect((await ledger.store.head()).position).toBe(head);
  });
});
