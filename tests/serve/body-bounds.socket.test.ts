import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { installed, nodeFetch, nodeHttp, pythonUrllib, timedGet, type Client } from '../support/http-clients.js';

// Bodies built to cost the server: many wrong items, deep nesting, long lists. Each is refused with a 4xx that names
// the cap, nothing is written, and a health probe sent while it is handled is answered. Before, the clear body below
// cost 3.6 s of CPU and the probe waited 7.7 s; how long each takes now is measured by
// `node scripts/measure-serve-bounds.mjs` (figures in docs/performance.md), not here: a unit test holds no timings.

const NOW = Date.parse('2026-11-10T12:00:00Z');
const TOKEN = 'w-0123456789abcdef';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serving(): Promise<{ ledger: Ledger; address: string }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01' });
  await ledger.define({ pipeline: 'spark_orders', schedule: '@daily', start: '2026-11-01', openlineage: { namespace: 'spark', job: 'orders' } });
  const app = await createServer({ ledger, clock: () => NOW, writeToken: TOKEN });
  apps.push(app);
  return { ledger, address: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

const lineageEvent = (fields: Record<string, unknown> = {}) => ({
  eventType: 'START',
  eventTime: '2026-11-02T00:05:00Z',
  producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/spark',
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e' },
  job: { namespace: 'spark', name: 'orders' },
  ...fields,
});
const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
const empties = (n: number) => Array.from({ length: n }, () => []);

const BODIES: Array<[label: string, path: string, body: unknown, code: string, says: string]> = [
  ['330,000 empty lists as dates (1 MB)', '/api/pipelines/p/clear', { dates: empties(330_000) }, 'input.tooManyItems', 'body.dates holds more than 10000 items'],
  ['5,000 empty lists as dates', '/api/pipelines/p/clear', { dates: empties(5_000) }, 'input.tooManyItems', 'at most 1000 dates are cleared in one request'],
  ['900 empty lists as dates', '/api/pipelines/p/clear', { dates: empties(900) }, 'input.invalidBody', 'body.dates.0: '],
  ['a succeed with 5,000 outputs', '/api/runs/01JXXXXXXXXXXXXXXXXXXXXXXX/succeed', { outputs: Array.from({ length: 5_000 }, (_, i) => `s3://b/${i}`) }, 'input.tooManyItems', 'at most 1000 outputs'],
  ['a start nested 100 levels deep', '/api/pipelines/p/runs', { date: '2026-11-02', reason: nested(100) }, 'input.bodyTooDeep', 'nests more than 64 levels deep'],
  ['an OpenLineage event with 160,000 empty inputs', '/api/v1/lineage', lineageEvent({ inputs: Array.from({ length: 160_000 }, () => ({})) }), 'input.tooManyItems', 'body.inputs holds more than 10000 items'],
  ['an OpenLineage event with 5,000 empty inputs', '/api/v1/lineage', lineageEvent({ inputs: Array.from({ length: 5_000 }, () => ({})) }), 'input.invalidOpenLineageEvent', 'inputs: holds more than 1000 input datasets'],
  ['an OpenLineage event with 9,000 empty facets', '/api/v1/lineage', lineageEvent({ run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e', facets: Object.fromEntries(Array.from({ length: 9_000 }, (_, i) => [`f${i}`, {}])) } }), 'input.invalidOpenLineageEvent', 'run.facets.f0._producer'],
  ['a batch of 1,001 OpenLineage events', '/api/v1/lineage', Array.from({ length: 1_001 }, () => lineageEvent()), 'input.tooManyItems', 'at most 1000 are taken in one request'],
];

const clients: Client[] = [nodeFetch, nodeHttp, ...(installed('python3') ? [pythonUrllib] : [])];

describe('bodies built to cost the server, over a real socket', () => {
  test.each(BODIES)('%s: 400 naming the cap, nothing written, health answered meanwhile', async (_label, path, body, code, says) => {
    const { ledger, address } = await serving();
    const head = (await ledger.store.head()).position;
    const text = JSON.stringify(body);
    for (const client of clients) {
      const answer = client.post({ url: `${address}${path}`, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: text });
      const probes = await Promise.all([timedGet(`${address}/api/health`), timedGet(`${address}/api/health`)]);
      const res = await answer;
      expect(res.status, `${client.name}: ${res.body}`).toBe(400);
      const error = (JSON.parse(res.body) as { error: { code: string; message: string } }).error;
      expect(error.code, client.name).toBe(code);
      expect(error.message, client.name).toContain(says);
      expect(probes.map((p) => p.status)).toEqual([200, 200]);
    }
    expect((await ledger.store.head()).position).toBe(head);
  });

  test('a body just inside every cap is taken: 1,000 dates cleared, an event with 1,000 inputs recorded', async () => {
    const { ledger, address } = await serving();
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const dates = Array.from({ length: 9 }, (_, i) => `2026-11-0${i + 1}`);
    const cleared = await nodeFetch.post({ url: `${address}/api/pipelines/p/clear`, headers, body: JSON.stringify({ dates: [...dates, ...Array.from({ length: 991 }, () => '2026-11-01')], dryRun: true }) });
    expect(cleared.status, cleared.body).toBe(200);
    const inputs = Array.from({ length: 1_000 }, (_, i) => ({ namespace: 's3://lake', name: `raw/orders/${i}` }));
    const recorded = await nodeFetch.post({ url: `${address}/api/v1/lineage`, headers, body: JSON.stringify(lineageEvent({ inputs, run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e', facets: { nominalTime: { _producer: 'https://x.example', _schemaURL: 'https://x.example/s', nominalStartTime: '2026-11-02T00:00:00Z' } } } })) });
    expect(recorded.status, recorded.body).toBe(200);
    expect(JSON.parse(recorded.body)).toMatchObject({ recorded: 1 });
    expect((await ledger.state({ pipeline: 'spark_orders' })).dates.find((d) => d.date === '2026-11-02')?.status).toBe('running');
  });
});
