import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { BindingIndex } from '../../src/ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage } from '../../src/ingest/openlineage/ingest-lineage.js';
import { verifyChain } from '../../src/audit/verify-chain.js';
import { sha256Hex } from '../../src/store/seal-events.js';
import { dailyDagStream } from '../support/airflow-events.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

/** The real-delivery stream, one event at a time as separate requests would apply it, on each store adapter. */
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : undefined;
afterAll(() => schemas?.dropAll());
if (!schemas) console.warn(pgSkipMessage('the OpenLineage ingest'));

const adapters: Array<[string, () => Promise<string>]> = [['sqlite', async () => join(tempDir(), 'l.db')]];
if (schemas) adapters.push(['postgres', () => schemas.fresh()]);

describe.each(adapters)('OpenLineage ingest on %s', (_name, db) => {
  test('the daily DAG stream ends as the producer meant and the chain verifies', async () => {
    const ledger: Ledger = await openLedger({ db: await db(), clock: () => Date.parse('2026-11-10T00:00:00Z'), actor: 'test' });
    try {
      await ledger.define({ pipeline: 'airflow_orders', schedule: '0 0 * * *', start: '2026-11-02', openlineage: { namespace: 'default', job: 'airflow_orders' } });
      const bindings = new BindingIndex(ledger.store);
      const outcomes: string[] = [];
      for (const event of checkLineageEvents(dailyDagStream())) {
        const report = await ingestLineage(ledger, bindings, [event], { auto: false });
        outcomes.push(report.results[0]?.outcome ?? 'none');
      }
      expect(outcomes.filter((o) => o === 'refused')).toHaveLength(0);
      expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(4);
      const state = await ledger.state({ pipeline: 'airflow_orders', to: '2026-11-08' });
      expect(state.dates.map((d) => [d.date, d.status, d.attempt])).toEqual([
        ['2026-11-02', 'success', 1],
        ['2026-11-03', 'success', 1],
        ['2026-11-04', 'success', 3],
        ['2026-11-05', 'success', 1],
        ['2026-11-06', 'success', 1],
        ['2026-11-07', 'success', 1],
        ['2026-11-08', 'success', 1],
      ]);
      const report = await verifyChain(ledger.store.readRaw({ batchSize: 5000 }), { sha256: sha256Hex });
      expect(report.ok).toBe(true);
    } finally {
      await ledger.close();
    }
  });
});
