import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { PROJECTION_VERSION } from '../../projections/projection-version.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { appendRowsFunctionName } from '../../src/store/postgres/postgres-append-rows-function.js';
import type { PostgresReadModels } from '../../src/store/postgres/postgres-read-models.js';
import { READ_MODEL_STAMP } from '../../src/store/read-model-schema.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// A ledger whose read-model tables have the shape of schema 3 (a rowid `rm_runs` keyed by run id, an index of
// running dates), stamped 3, is rebuilt into this build's shape the first time it is opened, and answers as before;
// on PostgreSQL too (its index of running dates, and its runs keyed by pipeline and run id until stamp 6).

const dir = tempDir('runledger-shape-upgrade-');
const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});

const NOW = Date.parse('2026-01-10T00:00:00Z');

/** The tables of schema 3 that differ from this build's, over the rows this build wrote, stamped 3. */
const BACK_TO_SCHEMA_3 = `
CREATE TABLE rm_runs_v3 (
  run_id TEXT PRIMARY KEY, pipeline TEXT NOT NULL, seq INTEGER NOT NULL, date TEXT NOT NULL, attempt INTEGER NOT NULL,
  run_type TEXT NOT NULL, status TEXT NOT NULL, logical_date TEXT NOT NULL, interval_start TEXT NOT NULL, interval_end TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, lease_expires_at TEXT NOT NULL, actor TEXT NOT NULL, forced INTEGER NOT NULL,
  off_schedule INTEGER NOT NULL, error_excerpt TEXT, error_position INTEGER, result_position INTEGER, extra TEXT
);
INSERT INTO rm_runs_v3 SELECT * FROM rm_runs;
DROP TABLE rm_runs;
ALTER TABLE rm_runs_v3 RENAME TO rm_runs;
CREATE INDEX rm_dates_running ON rm_dates (pipeline, logical_ms) WHERE status = 'running';
CREATE INDEX rm_runs_by_pipeline ON rm_runs (pipeline, seq);
CREATE INDEX rm_runs_by_date ON rm_runs (pipeline, date, seq);
UPDATE rm_meta SET value = '${PROJECTION_VERSION}.3' WHERE key = 'stamp';
`;

/** A ledger with a failed and a succeeded attempt of one date and a run in flight on the next, and its answers. */
async function written(db: string): Promise<string> {
  const ledger = await openLedger({ db, clock: () => NOW });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-01-01' });
  const first = await ledger.start({ pipeline: 'etl', date: '2026-01-02' });
  await ledger.fail({ runId: first.runId, error: 'boom' });
  const second = await ledger.start({ pipeline: 'etl', date: '2026-01-02' });
  await ledger.succeed({ runId: second.runId, metrics: { rows: 2 } });
  await ledger.start({ pipeline: 'etl', date: '2026-01-03' });
  const expected = await answers(ledger);
  await ledger.close();
  return expected;
}

async function answers(ledger: Ledger): Promise<string> {
  const runs = await ledger.runs({ pipeline: 'etl' });
  return JSON.stringify({
    state: await ledger.state({ pipeline: 'etl' }),
    runs,
    before: await ledger.runs({ pipeline: 'etl', before: runs.runs.at(-1)?.runId ?? '', limit: 1 }),
    ofADate: await ledger.runs({ pipeline: 'etl', date: '2026-01-02' }),
    status: await ledger.pipelineStatus({ pipeline: 'etl', nowMs: NOW }),
  });
}

function shape(path: string): { objects: string[]; runsTable: string; stamp: string } {
  const db = new Database(path, { readonly: true });
  const objects = db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'rm_%' ORDER BY name`).pluck().all() as string[];
  const runsTable = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'rm_runs'`).pluck().get() as string;
  const stamp = db.prepare(`SELECT value FROM rm_meta WHERE key = 'stamp'`).pluck().get() as string;
  db.close();
  return { objects, runsTable, stamp };
}

if (schemas === null) console.log(pgSkipMessage('read-model shape upgrade test'));

describe('read models of an older shape', () => {
  test('are rebuilt into this shape on open: no index of running dates, runs keyed by pipeline and start without a rowid', async () => {
    const path = join(dir, 'ledger.db');
    const expected = await written(path);
    const built = shape(path);

    const db = new Database(path);
    db.exec(BACK_TO_SCHEMA_3);
    db.close();
    expect(shape(path).objects).toContain('rm_dates_running');

    const progress: Array<[number, number]> = [];
    const reopened = await openLedger({ db: path, clock: () => NOW, rebuildProgress: (done, total) => progress.push([done, total]) });
    expect(await answers(reopened)).toBe(expected);
    expect(progress.at(-1)).toEqual([6, 6]);
    expect((await verifyProjections(reopened.store)).ok).toBe(true);
    await reopened.close();
    expect(shape(path)).toEqual(built);
    expect(built.objects).toEqual(['rm_dates', 'rm_dates_by_logical', 'rm_meta', 'rm_pipelines', 'rm_runs', 'rm_runs_by_date']);
    expect(built.runsTable).toMatch(/PRIMARY KEY \(pipeline, seq\)\s*\) WITHOUT ROWID$/);
  });

  test.skipIf(schemas === null)('on PostgreSQL: the index of running dates is dropped by the rebuild its stamp 3 asks for', async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const expected = await written(db);
    const sql = inSchema(db);
    const indexes = async () => (await sql<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'rm%' ORDER BY indexname`)).map((r) => r.indexname);
    const built = await indexes();
    expect(built).not.toContain('rm_dates_running');
    await sql(`CREATE INDEX rm_dates_running ON rm_dates (pipeline, logical_ms) WHERE status = 'running'; UPDATE rm_meta SET value = '${PROJECTION_VERSION}.3' WHERE key = 'stamp'`);

    const progress: Array<[number, number]> = [];
    const reopened = await openLedger({ db, clock: () => NOW, rebuildProgress: (done, total) => progress.push([done, total]) });
    expect(await answers(reopened)).toBe(expected);
    expect(progress.at(-1)).toEqual([6, 6]);
    expect((await verifyProjections(reopened.store)).ok).toBe(true);
    await reopened.close();
    expect(await indexes()).toEqual(built);
  });

  test('stamped by the release before one declaration (SQLite 4): rebuilt once on open, into the same tables', async () => {
    const path = join(dir, 'stamp-4.db');
    const expected = await written(path);
    const built = shape(path);
    const db = new Database(path);
    db.exec(`UPDATE rm_meta SET value = '${PROJECTION_VERSION}.4' WHERE key = 'stamp'`);
    db.close();

    const progress: Array<[number, number]> = [];
    const reopened = await openLedger({ db: path, clock: () => NOW, rebuildProgress: (done, total) => progress.push([done, total]) });
    expect(await answers(reopened)).toBe(expected);
    expect(progress.at(-1)).toEqual([6, 6]);
    await reopened.close();
    expect(shape(path)).toEqual(built);
    expect(built.stamp).toBe(READ_MODEL_STAMP);
  });

  test.skipIf(schemas === null)('on PostgreSQL: runs keyed by pipeline and run id (stamp 5) are rebuilt keyed by pipeline and start position, and appends call the append-rows function of this stamp', async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const expected = await written(db);
    const sql = inSchema(db);
    const runsKey = async () =>
      (
        await sql<{ column: string }>(
          `SELECT a.attname AS column FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
           WHERE i.indrelid = 'rm_runs'::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        )
      ).map((r) => r.column);
    const indexes = async () => (await sql<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'rm_runs' ORDER BY indexname`)).map((r) => r.indexname);
    expect(await runsKey()).toEqual(['pipeline', 'seq']);
    const builtIndexes = await indexes();
    const stamp5 = `${PROJECTION_VERSION}.5`;
    const functions = async () =>
      (await sql<{ name: string }>(`SELECT proname AS name FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'runledger\\_append\\_rows%' ORDER BY proname`)).map((r) => r.name);
    const [built] = await functions();
    // As a release of stamp 5 left it: runs keyed by pipeline and run id with an index by start, and only its append-rows function.
    await sql(
      `ALTER TABLE rm_runs DROP CONSTRAINT rm_runs_pkey, ADD PRIMARY KEY (pipeline, run_id); CREATE INDEX rm_runs_by_pipeline ON rm_runs (pipeline, seq);
       UPDATE rm_meta SET value = '${stamp5}' WHERE key = 'stamp';
       ALTER FUNCTION ${built} RENAME TO ${appendRowsFunctionName(stamp5)}`,
    );
    expect(await functions()).toEqual([appendRowsFunctionName(stamp5)]);

    const progress: Array<[number, number]> = [];
    const reopened = await openLedger({ db, clock: () => NOW, rebuildProgress: (done, total) => progress.push([done, total]) });
    expect(await answers(reopened)).toBe(expected);
    expect(progress.at(-1)).toEqual([6, 6]);
    expect(await runsKey()).toEqual(['pipeline', 'seq']);
    expect(await indexes()).toEqual(builtIndexes);
    // The function's name carries the stamp: the one stamp 5's tables had is not the one appends now call.
    const name = (reopened.store.readModels as PostgresReadModels).aheadFunction.name;
    expect(name).not.toBe(appendRowsFunctionName(stamp5));
    expect(built).toBe(name);
    await reopened.start({ pipeline: 'etl', date: '2026-01-04' });
    expect(await functions()).toEqual([appendRowsFunctionName(stamp5), name]);
    expect((await verifyProjections(reopened.store)).ok).toBe(true);
    await reopened.close();
  });
});

/** Runs one SQL text in the schema of the ledger at `db`, on a connection of its own. */
function inSchema(db: string): <R>(text: string) => Promise<R[]> {
  const schema = new URL(db).searchParams.get('schema') as string;
  return async <R>(text: string): Promise<R[]> => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: db.replace(/\?.*$/, '') });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${schema}"`);
      return (await client.query(text)).rows as R[];
    } finally {
      await client.end();
    }
  };
}
