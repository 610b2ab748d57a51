import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// Over a real socket, with Node's fetch: a JSON body or an OpenLineage event holding a lone UTF-16 surrogate
// (`\ud800` in the JSON text) is 400 `input.illFormedText` naming its field, nothing written; NUL, bidi marks,
// terminal controls and 4-byte characters are recorded as sent, and `verify --projections` stays clean.
// A ledger that already holds a lone surrogate (recorded before this refusal) verifies clean too.

const NOW = Date.parse('2026-11-05T01:00:00Z');
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : undefined;
afterAll(() => schemas?.dropAll());
if (!schemas) console.log(pgSkipMessage('ill-formed text over HTTP'));
const adapters: Array<[string, () => Promise<string>]> = [['sqlite', async () => join(tempDir(), 'l.db')]];
if (schemas) adapters.push(['postgres', () => schemas.fresh()]);

async function serve(db: string): Promise<{ ledger: Ledger; app: FastifyInstance; base: string }> {
  const ledger = await openLedger({ db, clock: () => NOW, actor: 'test' });
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', openlineage: { namespace: 'ns', job: 'orders' } });
  const app = await createServer({ ledger, clock: () => NOW, writeToken: 'w' });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { ledger, app, base };
}

/** POSTs a JSON text as it is, so `\ud800` reaches the server as the six characters of its escape. */
async function post(base: string, path: string, json: string): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: 'Bearer w', 'content-type': 'application/json' }, body: json });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

const lineage = (eventType: string, runId: string, facets: string) =>
  `{"eventType":"${eventType}","eventTime":"2026-11-05T00:30:00Z","producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{"runId":"${runId}","facets":{${facets}}},"job":{"namespace":"ns","name":"orders"},"inputs":[],"outputs":[]}`;
const errorFacet = (message: string) => `"errorMessage":{"_producer":"https://example.com/p","_schemaURL":"https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json","message":"${message}","programmingLanguage":"python"}`;
const nominal = `"nominalTime":{"_producer":"https://example.com/p","_schemaURL":"https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json","nominalStartTime":"2026-11-03T00:00:00Z"}`;

describe.each(adapters)('ill-formed text over HTTP on %s', (_name, fresh) => {
  test('a lone surrogate in any field is 400 naming the field; other text is kept and verify --projections stays clean', async () => {
    const { ledger, app, base } = await serve(await fresh());
    try {
      const run = (await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' })).runId;
      const head = (await ledger.store.head()).position;
      const refusals = [
        [`/api/runs/${run}/fail`, '{"error":"lone \\ud800 surrogate"}', /^body\.error holds a lone UTF-16 surrogate at character 5/],
        [`/api/runs/${run}/fail`, '{"error":"x","code":"E\\udc00"}', /^body\.code holds/],
        [`/api/runs/${run}/succeed`, '{"metrics":{"note":"a\\ud83d"}}', /^body\.metrics\.note holds/],
        [`/api/runs/${run}/succeed`, '{"outputs":["ok","\\udfff"]}', /^body\.outputs\[1\] holds/],
        ['/api/pipelines/etl_orders/clear', '{"dates":["2026-11-02"],"reason":"\\ud800"}', /^body\.reason holds/],
      ] as const;
      for (const [path, json, message] of refusals) {
        const res = await post(base, path, json);
        expect(res.status, json).toBe(400);
        expect(res.body.error?.code).toBe('input.illFormedText');
        expect(res.body.error?.message).toMatch(message);
      }
      const ol = await post(base, '/api/v1/lineage', lineage('FAIL', '0190d3c1-9d2b-7c4e-8f00-000000000001', `${nominal},${errorFacet('boom \\ud800')}`));
      expect(ol.status).toBe(400);
      expect(ol.body.error?.message).toContain('run.facets.errorMessage.message: holds a lone UTF-16 surrogate');
      expect((await ledger.store.head()).position).toBe(head);

      // Well-formed but hostile text is recorded exactly as sent.
      const hostile = 'NUL\u0000 bidi\u202e\u2066 esc\u001b]0;t\u0007 cr\r bs\b 😀\u{10ffff}';
      const ok = await post(base, `/api/runs/${run}/fail`, JSON.stringify({ error: hostile, code: 'E_42' }));
      expect(ok.status).toBe(200);
      expect((await ledger.state({ pipeline: 'etl_orders' })).dates[0]).toMatchObject({ error: hostile, errorCode: 'E_42' });
      const started = await post(base, '/api/v1/lineage', lineage('START', '0190d3c1-9d2b-7c4e-8f00-000000000002', nominal));
      expect(started.status).toBe(200);
      const failed = await post(base, '/api/v1/lineage', lineage('FAIL', '0190d3c1-9d2b-7c4e-8f00-000000000002', `${nominal},${errorFacet('\\u0000 \\u202e 😀')}`));
      expect(failed.status).toBe(200);
      expect((await ledger.state({ pipeline: 'etl_orders', from: '2026-11-03', to: '2026-11-03' })).dates[0]?.error).toBe('\u0000 \u202e 😀');
      expect((await verifyProjections(ledger.store)).difference).toBeNull();
    } finally {
      await app.close();
      await ledger.close();
    }
  });

  test('a ledger that already holds a lone surrogate (recorded before it was refused) verifies clean, and after a rebuild', async () => {
    const ledger = await openLedger({ db: await fresh(), clock: () => NOW, actor: 'test' });
    try {
      await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
      const { runId } = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
      // As an older release appended it: straight to the store, past the library's refusal.
      const started = (await ledger.log({ pipeline: 'etl_orders', types: ['RunStarted'] })).events[0];
      if (started === undefined) throw new Error('no start');
      const ok = await ledger.store.append([
        {
          stream: started.stream,
          expectedVersion: started.streamVersion,
          events: [
            {
              type: 'RunFailed',
              schemaVersion: 1,
              data: { pipeline: 'etl_orders', date: '2026-11-02', runId, error: `lone \ud800 surrogate ${'x'.repeat(300)}`, code: null },
              eventId: '01JZ0000000000000000000000',
              stream: started.stream,
              recordedAt: new Date(NOW).toISOString(),
              metadata: { actor: 'old', toolVersion: '0.0.1' },
            },
          ],
        },
      ]);
      expect(ok.ok).toBe(true);
      expect((await verifyProjections(ledger.store)).difference).toBeNull();
      await ledger.rebuild();
      expect((await verifyProjections(ledger.store)).difference).toBeNull();
      // Read back whole from its event, as recorded.
      expect((await ledger.state({ pipeline: 'etl_orders' })).dates[0]?.error).toMatch(/^lone \ud800 surrogate x/);
    } finally {
      await ledger.close();
    }
  });
});
