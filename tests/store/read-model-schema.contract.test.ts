import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { READ_MODEL_STAMP, READ_MODEL_TABLES, type ColumnType } from '../../src/store/read-model-schema.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// The read-model tables are declared once (src/store/read-model-schema.ts): each store's live schema, read from
// the database's own catalogue, is that declaration, whether the tables were made with a new ledger or by a
// rebuild, and no other read-model table or index is there.

/** A table as a catalogue describes it, in one shape for both stores. */
type LiveTable = {
  name: string;
  columns: Array<{ name: string; type: string; nullable: boolean }>;
  primaryKey: string[];
  indexes: Array<{ name: string; columns: string[] }>;
  keyOrdered?: boolean;
};
type Live = { tables: LiveTable[]; stamp: string };

/** What each store's catalogue reports for a logical type: written out here, not taken from the dialects under test. */
const TYPES: Record<'sqlite' | 'postgres', Record<ColumnType, string>> = {
  sqlite: { text: 'TEXT', int: 'INTEGER', bigint: 'INTEGER' },
  postgres: { text: 'text', int: 'integer', bigint: 'bigint' },
};

function declared(store: 'sqlite' | 'postgres'): LiveTable[] {
  return READ_MODEL_TABLES.map((table) => ({
    name: table.name,
    columns: table.columns.map((c) => ({ name: c.name, type: TYPES[store][c.type], nullable: c.nullable })),
    primaryKey: [...table.primaryKey],
    indexes: table.indexes.map((i) => ({ name: i.name, columns: [...i.columns] })).sort((a, b) => a.name.localeCompare(b.name)),
    ...(store === 'sqlite' ? { keyOrdered: table.keyOrdered } : {}),
  })).sort((a, b) => a.name.localeCompare(b.name));
}

/** SQLite's catalogue: `PRAGMA table_info`, `index_list`, `index_info` and `table_list` (for WITHOUT ROWID). */
function sqliteLive(path: string): Live {
  const db = new Database(path, { readonly: true });
  try {
    const names = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\' ORDER BY name`).pluck().all() as string[];
    const tables = names.map((name): LiveTable => {
      const info = db.pragma(`table_info(${name})`) as Array<{ name: string; type: string; notnull: number; pk: number }>;
      const indexes = (db.pragma(`index_list(${name})`) as Array<{ name: string; origin: string }>)
        .filter((i) => i.origin === 'c')
        .map((i) => ({ name: i.name, columns: (db.pragma(`index_info(${i.name})`) as Array<{ seqno: number; name: string }>).sort((a, b) => a.seqno - b.seqno).map((c) => c.name) }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const [listed] = db.pragma(`table_list(${name})`) as Array<{ wr: number }>;
      return {
        name,
        columns: info.map((c) => ({ name: c.name, type: c.type, nullable: c.notnull === 0 })),
        primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
        indexes,
        keyOrdered: listed?.wr === 1,
      };
    });
    const stamp = db.prepare(`SELECT value FROM rm_meta WHERE key = 'stamp'`).pluck().get() as string;
    return { tables, stamp };
  } finally {
    db.close();
  }
}

/** PostgreSQL's catalogue: `information_schema.columns`, the primary key's index in `pg_index`, and `pg_indexes`. */
async function postgresLive(url: string): Promise<Live> {
  const schema = new URL(url).searchParams.get('schema') as string;
  const client = new pg.Client({ connectionString: url.replace(/\?.*$/, '') });
  await client.connect();
  try {
    const q = async <R extends pg.QueryResultRow>(text: string, values: unknown[]) => (await client.query<R>(text, values)).rows;
    const names = (await q<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'rm\\_%' ORDER BY table_name`, [schema])).map((r) => r.name);
    const tables: LiveTable[] = [];
    for (const name of names) {
      const columns = await q<{ name: string; type: string; nullable: string }>(
        `SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
        [schema, name],
      );
      const primaryKey = await q<{ column: string }>(
        `SELECT a.attname AS column FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        [schema, name],
      );
      const indexes = await q<{ name: string; def: string; primary: boolean }>(
        `SELECT x.indexname AS name, x.indexdef AS def, i.indisprimary AS primary FROM pg_indexes x
         JOIN pg_index i ON i.indexrelid = (quote_ident(x.schemaname) || '.' || quote_ident(x.indexname))::regclass
         WHERE x.schemaname = $1 AND x.tablename = $2 ORDER BY x.indexname`,
        [schema, name],
      );
      tables.push({
        name,
        columns: columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable === 'YES' })),
        primaryKey: primaryKey.map((r) => r.column),
        indexes: indexes
          .filter((i) => !i.primary)
          .map((i) => ({ name: i.name, columns: (/\(([^()]*)\)$/.exec(i.def)?.[1] ?? i.def).split(',').map((c) => c.trim().replace(/^"|"$/g, '')) })),
      });
    }
    const stamp = (await q<{ value: string }>(`SELECT value FROM ${pg.escapeIdentifier(schema)}.rm_meta WHERE key = 'stamp'`, []))[0]?.value as string;
    return { tables, stamp };
  } finally {
    await client.end();
  }
}

type Adapter = { name: 'sqlite' | 'postgres'; fresh: () => Promise<string>; live: (db: string) => Promise<Live>; cleanup: () => Promise<void> };
const adapters: Adapter[] = [];
{
  const dir = tempDir('runledger-rm-schema-');
  let n = 0;
  adapters.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), live: async (db) => sqliteLive(db), cleanup: async () => rmSync(dir, { recursive: true, force: true }) });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  adapters.push({ name: 'postgres', fresh: () => schemas.fresh(), live: postgresLive, cleanup: () => schemas.dropAll() });
} else {
  console.log(pgSkipMessage('read-model schema test'));
}
afterAll(async () => {
  for (const adapter of adapters) await adapter.cleanup();
});

describe.each(adapters)('the read-model tables on $name', (adapter) => {
  test('are the declaration, column for column, key for key and index for index, on a new ledger and after a rebuild', async () => {
    const db = await adapter.fresh();
    const ledger = await openLedger({ db, clock: () => Date.parse('2026-01-05T00:00:00Z') });
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-01-01' });
    const run = await ledger.start({ pipeline: 'etl', date: '2026-01-02' });
    await ledger.succeed({ runId: run.runId });
    const expected = declared(adapter.name);

    const made = await adapter.live(db);
    expect(made.tables).toEqual(expected);
    expect(made.stamp).toBe(READ_MODEL_STAMP);

    await ledger.rebuild();
    const rebuilt = await adapter.live(db);
    await ledger.close();
    expect(rebuilt.tables).toEqual(expected);
    expect(rebuilt.stamp).toBe(READ_MODEL_STAMP);
  });
});
