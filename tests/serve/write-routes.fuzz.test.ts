import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

// Arbitrary bodies at every JSON write route and the OpenLineage endpoint, over a real socket: no 5xx, no answer
// slower than a second (a hang guard, far above the milliseconds these take), and nothing written by a refusal.

const NOW = Date.parse('2026-11-10T12:00:00Z');
const TOKEN = 'w-0123456789abcdef';
const RUNS = 40;
const BODY_LIMIT = 1024 * 1024;

let app: FastifyInstance;
let ledger: Ledger;
let address: string;
let runId: string;

beforeAll(async () => {
  ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01' });
  await ledger.define({ pipeline: 'spark_orders', schedule: '@daily', start: '2026-11-01', openlineage: { namespace: 'spark', job: 'orders' } });
  runId = (await ledger.start({ pipeline: 'p', date: '2026-11-01', lease: 3_600_000 })).runId;
  app = await createServer({ ledger, clock: () => NOW, writeToken: TOKEN });
  address = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
});

/** Values a field may be given: anything JSON, and the strings a route expects, slightly wrong. */
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('2026-11-02', '2026-11-01', '2026-02-30', '2099-01-01', '', '1h', '-1h', 'manual', 'backfill', '2026-11-02T00:00:00Z', '\u0000', '__proto__'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Mostly a valid value, sometimes any other: a body of several fields is then often valid as a whole. */
const mostly = <T>(...valid: T[]) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: value });

/** Bodies with the route's own fields (each optional), now and then with one it does not know. */
const withFields = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record(fields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...Object.keys(fields), 'x', '__proto__', 'constructor'), value, { maxKeys: 4 }) },
  );

/** Shapes built to cost: a long list of one item, deep nesting, a wide object. */
const costly = fc.oneof(
  fc.tuple(fc.constantFrom(...[100, 5_000, 20_000, 200_000]), fc.jsonValue({ maxDepth: 1 })).map(([n, item]) => Array.from({ length: n }, () => item)),
  fc.integer({ min: 1, max: 400 }).map((depth) => Array.from({ length: depth }).reduce<unknown>((inner) => ({ a: [inner] }), 1)),
  fc.integer({ min: 1, max: 30_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, {}]))),
);

const lineageEvent = fc.record(
  {
    eventType: mostly('START', 'COMPLETE', 'FAIL', 'ABORT', 'RUNNING', 'OTHER'),
    eventTime: mostly('2026-11-02T00:05:00Z', '2026-11-03T00:05:00Z', '2026-11-02T00:05:00+02:00'),
    producer: mostly('https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/spark'),
    schemaURL: mostly('https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent'),
    run: fc.record({ runId: mostly('01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e', '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3f'), facets: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }), { nil: undefined }) }, { requiredKeys: ['runId'] }),
    job: fc.record({ namespace: mostly('spark'), name: mostly('orders') }),
    inputs: fc.array(fc.oneof(fc.record({ namespace: mostly('s3://lake'), name: mostly('raw/orders') }), value), { maxLength: 3 }),
  },
  { requiredKeys: ['eventTime', 'producer', 'run', 'job'] },
);

const DATE = mostly('2026-11-02', '2026-11-03', '2026-11-01', '2026-11-02T00:00:00Z');
const LEASE = mostly('1h', '30m', '2h');
const START = { date: DATE, type: mostly('manual', 'backfill', 'scheduled'), force: fc.boolean(), lease: LEASE, reason: mostly('rerun'), intervalStart: mostly('2026-11-02T00:00:00Z'), intervalEnd: mostly('2026-11-02T06:00:00Z') };

/** A body as text: JSON of any of the above, or bytes that are not JSON at all. */
const bodyOf = (shaped: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 4, arbitrary: shaped.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: costly.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );

const ROUTES: Array<[label: string, path: () => string, body: fc.Arbitrary<string>]> = [
  ['/api/pipelines/p/runs', () => '/api/pipelines/p/runs', bodyOf(withFields(START))],
  ['/api/runs/:runId/succeed', () => `/api/runs/${runId}/succeed`, bodyOf(withFields({ metrics: fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), value), outputs: fc.oneof(fc.array(mostly('gold/orders.csv', 's3://b/k'), { maxLength: 3 }), value) }))],
  ['/api/runs/:runId/fail', () => `/api/runs/${runId}/fail`, bodyOf(withFields({ error: mostly('exit 1', 'disk full'), code: mostly('oom', null) }))],
  ['/api/runs/:runId/heartbeat', () => `/api/runs/${runId}/heartbeat`, bodyOf(withFields({ lease: LEASE }))],
  ['/api/pipelines/p/clear', () => '/api/pipelines/p/clear', bodyOf(withFields({ dates: fc.oneof(fc.array(DATE, { maxLength: 4 }), value), from: DATE, to: DATE, onlyFailed: fc.boolean(), reason: mostly('bad file'), dryRun: fc.boolean() }))],
  ['/api/v1/lineage', () => '/api/v1/lineage', bodyOf(fc.oneof(lineageEvent, fc.array(lineageEvent, { maxLength: 4 })))],
];

describe('arbitrary bodies at every write route, over a real socket', () => {
  test.each(ROUTES)('%s: no 5xx, no hang, nothing written by a refusal', async (_label, path, body) => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        // A body over the limit is refused on its Content-Length and the connection closed while the client may still
        // be sending (fetch then sees the close, not the 413): the body-limit tests cover it.
        fc.pre(Buffer.byteLength(text) <= BODY_LIMIT);
        const head = (await ledger.store.head()).position;
        // A hang fails the request's own 30 s abort; how long answers take is measured by scripts/measure-serve-bounds.mjs.
        const res = await fetch(`${address}${path()}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: text, signal: AbortSignal.timeout(30_000) });
        const answer = (await res.json()) as { error?: { code?: string }; recorded?: number; duplicates?: number };
        expect(res.status, JSON.stringify(answer).slice(0, 300)).toBeLessThan(500);
        const written = (await ledger.store.head()).position - head;
        if (res.status >= 400 && !path().startsWith('/api/v1/')) expect(written, JSON.stringify(answer).slice(0, 300)).toBe(0);
        // A lineage batch answers each event: what it says it recorded is all that was written (a schema refusal, none).
        if (path().startsWith('/api/v1/') && res.status === 400) expect(written).toBe(0);
        if (res.status >= 400) expect(typeof answer.error?.code).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });
});
