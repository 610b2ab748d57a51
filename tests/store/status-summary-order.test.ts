import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PIPELINE_NAME_PATTERN } from '../../events/name-patterns.js';
import { compareNames } from '../../projections/views/compare-names.js';
import type { StatusSummary } from '../../projections/pipeline-summary.js';
import { openLedger } from '../../src/open-ledger.js';
import { NAME_ORDER_SQL } from '../../src/store/read-model-rows.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// `eachStatusSummary` hands the summaries over in the order of `compareNames` (`ORDER BY NAME_ORDER_SQL`), so `status`
// over every pipeline sorts no names: that order must be compareNames' for every name a pipeline may have.

const dir = tempDir('runledger-name-order-');
const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});
if (schemas === null) console.log(pgSkipMessage('status summary order test'));

const first = [...'0123456789abcdefghijklmnopqrstuvwxyz'];
const rest = [...'_-.0123456789abcdefghijklmnopqrstuvwxyz'];
/** Pipeline names, short so that shared prefixes, `_` `-` `.` and digits meet often. */
const name = fc
  .tuple(fc.constantFrom(...first), fc.array(fc.constantFrom(...rest, '_', '_', '-', '.'), { maxLength: 6 }))
  .map(([head, tail]) => head + tail.join(''));
const names = fc.uniqueArray(name, { minLength: 1, maxLength: 40 });

const TRICKY = ['etl2', 'etl.x', 'etl', 'etl-x', 'etl_x', 'etla', 'a_b', 'a-b', 'a0', 'a', 'a_', 'a__b', 'a_-', 'z.9', 'z_9'];

describe('the status summaries order (NAME_ORDER_SQL)', () => {
  it('is compareNames order on SQLite for any pipeline names', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE rm_pipelines (pipeline TEXT PRIMARY KEY)');
      const insert = db.prepare('INSERT INTO rm_pipelines (pipeline) VALUES (?)');
      const select = db.prepare(`SELECT pipeline FROM rm_pipelines ORDER BY ${NAME_ORDER_SQL}`).pluck(true);
      fc.assert(
        fc.property(names, (list) => {
          for (const n of list) expect(n).toMatch(PIPELINE_NAME_PATTERN);
          db.exec('DELETE FROM rm_pipelines');
          for (const n of list) insert.run(n);
          expect(select.all()).toEqual([...list].sort(compareNames));
        }),
        { numRuns: 1000, examples: [[TRICKY]] },
      );
    } finally {
      db.close();
    }
  });

  it.skipIf(TEST_PG_URL === undefined)('is compareNames order on PostgreSQL (COLLATE "C") for any pipeline names', async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      await fc.assert(
        fc.asyncProperty(names, async (list) => {
          const { rows } = await client.query<{ pipeline: string }>(`SELECT pipeline FROM unnest($1::text[]) AS t(pipeline) ORDER BY ${NAME_ORDER_SQL} COLLATE "C"`, [list]);
          expect(rows.map((r) => r.pipeline)).toEqual([...list].sort(compareNames));
        }),
        { numRuns: 300, examples: [[TRICKY]] },
      );
    } finally {
      await client.end();
    }
  });

  const stores = [
    { store: 'SQLite', fresh: async () => join(dir, 'ledger.db') },
    { store: 'PostgreSQL', fresh: schemas === null ? null : () => schemas.fresh() },
  ];
  for (const { store, fresh } of stores) {
    it.skipIf(fresh === null)(`gives the summaries and every pipeline's status rows by name (${store})`, async () => {
      const ledger = await openLedger({ db: await (fresh as () => Promise<string>)(), clock: () => Date.parse('2026-11-05T00:00:00Z') });
      try {
        for (const pipeline of TRICKY) await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-02' });
        const byName = [...TRICKY].sort(compareNames);
        const seen: string[] = [];
        const models = ledger.store.readModels;
        expect(models).toBeDefined();
        await models?.ensure();
        await models?.eachStatusSummary((summary: StatusSummary) => seen.push(summary.pipeline));
        expect(seen).toEqual(byName);
        expect((await ledger.pipelineStatuses()).map((row) => row.pipeline)).toEqual(byName);
      } finally {
        await ledger.close();
      }
    });
  }
});
