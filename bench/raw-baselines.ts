import { hash as oneShotHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { GENESIS_HASH } from '../events/hash-chain.js';
import { BULK_PAGE_CACHE_KIB } from '../src/store/sqlite/page-cache.js';
import { SQLITE_SCHEMA } from '../src/store/sqlite/sqlite-schema.js';

/**
 * What better-sqlite3 does with no runledger code on top: the same table, the
 * same pragmas (WAL, synchronous=FULL), the same rows. Each is the floor the
 * matching runledger figure is divided by.
 */

const INSERT =
  'INSERT INTO events (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

export type FullRow = {
  position: number;
  event_id: string;
  stream: string;
  stream_version: number;
  pipeline: string;
  run_id: string | null;
  type: string;
  recorded_at: string;
  payload: string;
  prev_hash: string;
  hash: string;
};

function open(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** One `BEGIN IMMEDIATE` transaction per row: the durable single-insert floor. */
export function rawInsertEach(path: string, payloads: string[]): number {
  const db = open(path);
  db.exec(SQLITE_SCHEMA);
  const insert = db.prepare(INSERT);
  const one = db.transaction((i: number, payload: string) => insert.run(i + 1, `E${i}`, `s/${i}`, 1, 'p', `R${i}`, 'RunStarted', '2026-11-05T00:00:00.000Z', payload, 'x'.repeat(64), 'y'.repeat(64)));
  const t = process.hrtime.bigint();
  payloads.forEach((payload, i) => one.immediate(i, payload));
  const took = ms(t);
  db.close();
  return took;
}

/**
 * Every row in one transaction, columns as stored: the bulk-insert floor `import` is compared with. Its page
 * cache is the one import's transaction takes, so the two differ in the work, not the pragmas.
 */
export function rawInsertAll(path: string, rows: FullRow[]): number {
  const db = open(path);
  db.pragma(`cache_size = -${BULK_PAGE_CACHE_KIB}`);
  db.exec(SQLITE_SCHEMA);
  const insert = db.prepare(INSERT);
  const all = db.transaction(() => {
    for (const r of rows) insert.run(r.position, r.event_id, r.stream, r.stream_version, r.pipeline, r.run_id, r.type, r.recorded_at, r.payload, r.prev_hash, r.hash);
  });
  const t = process.hrtime.bigint();
  all.immediate();
  const took = ms(t);
  db.close();
  return took;
}

export function readFullRows(path: string): FullRow[] {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash FROM events ORDER BY position').all() as FullRow[];
  db.close();
  return rows;
}

/** Every payload in position order through `JSON.parse`: the floor of any rebuild. */
export function rawScan(path: string): number {
  const db = new Database(path, { readonly: true });
  const t = process.hrtime.bigint();
  let n = 0;
  // The bare column (pluck), not a row object per event: the fastest honest way to read every payload.
  for (const payload of db.prepare('SELECT payload FROM events ORDER BY position').pluck().iterate() as Iterable<string>) {
    if ((JSON.parse(payload) as { position: number }).position > 0) n += 1;
  }
  const took = ms(t);
  db.close();
  if (n === 0) throw new Error('bench: empty scan');
  return took;
}

/**
 * The sha256 chain recomputed over a plain scan: the floor of `verify`. Throws if the chain does not hold.
 * It hashes with the one-shot `crypto.hash`, as runledger does: a `createHash` object per row cost this
 * floor about 40% more time than the hashing runledger does, so it was no floor.
 */
export function rawVerify(path: string): number {
  const db = new Database(path, { readonly: true });
  const t = process.hrtime.bigint();
  let prev = GENESIS_HASH;
  for (const row of db.prepare('SELECT payload, prev_hash, hash FROM events ORDER BY position').iterate() as Iterable<{ payload: string; prev_hash: string; hash: string }>) {
    const hash = oneShotHash('sha256', prev + row.payload, 'hex');
    if (row.prev_hash !== prev || hash !== row.hash) throw new Error('bench: raw verify found a broken chain');
    prev = hash;
  }
  const took = ms(t);
  db.close();
  return took;
}

/** The export's event lines written from a plain scan, 5,000 rows a write: the floor of `export`. */
export function rawExport(path: string, out: string): number {
  const db = new Database(path, { readonly: true });
  const fd = openSync(out, 'w');
  const t = process.hrtime.bigint();
  let lines: string[] = [];
  for (const row of db.prepare('SELECT payload, prev_hash, hash FROM events ORDER BY position').iterate() as Iterable<{ payload: string; prev_hash: string; hash: string }>) {
    lines.push(`{"prevHash":"${row.prev_hash}","hash":"${row.hash}","event":${row.payload}}\n`);
    if (lines.length === 5000) {
      writeSync(fd, lines.join(''));
      lines = [];
    }
  }
  writeSync(fd, lines.join(''));
  const took = ms(t);
  closeSync(fd);
  db.close();
  return took;
}

/** One read-model table as a rebuild left it: its CREATE statements (the table's first, then its indexes') and its rows. */
export type TableRows = { table: string; createTable: string; createIndexes: string[]; columns: string[]; rows: unknown[][] };

/**
 * The read-model tables `rebuild` writes, read back whole from a ledger, for `rawRebuild` to insert.
 *
 * @example
 * const tables = readReadModelRows('/tmp/ledger.db', ['rm_pipelines', 'rm_dates', 'rm_runs']);
 */
export function readReadModelRows(path: string, tables: readonly string[]): TableRows[] {
  const db = new Database(path, { readonly: true });
  const out = tables.map((table) => {
    const sql = db.prepare(`SELECT type, sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL`).all(table) as Array<{ type: string; sql: string }>;
    const createTable = sql.find((s) => s.type === 'table')?.sql;
    if (createTable === undefined) throw new Error(`bench: ${path} has no table ${table}`);
    const select = db.prepare(`SELECT * FROM ${table}`).raw(true);
    return { table, createTable, createIndexes: sql.filter((s) => s.type === 'index').map((s) => s.sql), columns: select.columns().map((c) => c.name), rows: select.all() as unknown[][] };
  });
  db.close();
  return out;
}

/** Rows bound per INSERT: what `rebuild` binds (a statement per row cost about a third more). */
const ROWS_PER_INSERT = 50;

/**
 * What a rebuild does but its fold, on `copy` (a copy of the ledger made before the clock starts), in one connection
 * and one transaction with the bulk page cache (WAL, synchronous=FULL), as `rebuild` runs: the read-model tables
 * dropped, every payload read in position order and parsed (`rawScan`'s work), then the rows the rebuild wrote,
 * already in memory, inserted into the tables made again, many rows a statement, the indexes created after the rows.
 * The floor of `rebuild` that also writes its answer, where `rawScan` writes nothing.
 *
 * @example
 * const ms = rawRebuild('/tmp/copy.db', readReadModelRows('/tmp/ledger.db', ['rm_pipelines', 'rm_dates', 'rm_runs']));
 */
export function rawRebuild(copy: string, tables: readonly TableRows[]): number {
  const db = open(copy);
  db.pragma(`cache_size = -${BULK_PAGE_CACHE_KIB}`);
  const scan = db.prepare('SELECT payload FROM events ORDER BY position').pluck();
  let n = 0;
  const t = process.hrtime.bigint();
  db.transaction(() => {
    for (const { table } of tables) db.exec(`DROP TABLE ${table}`);
    for (const payload of scan.iterate() as Iterable<string>) {
      if ((JSON.parse(payload) as { position: number }).position > 0) n += 1;
    }
    for (const { table, createTable, createIndexes, columns, rows } of tables) {
      db.exec(createTable);
      const one = `(${columns.map(() => '?').join(', ')})`;
      const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
      const many = db.prepare(head + Array.from({ length: ROWS_PER_INSERT }, () => one).join(', '));
      const single = db.prepare(head + one);
      const whole = rows.length - (rows.length % ROWS_PER_INSERT);
      // One parameter array, refilled: a fresh array per statement is allocation the rebuild does not do either.
      const buffer: unknown[] = new Array(columns.length * ROWS_PER_INSERT);
      for (let i = 0; i < whole; i += ROWS_PER_INSERT) {
        let at = 0;
        for (let r = i; r < i + ROWS_PER_INSERT; r++) for (const value of rows[r] as unknown[]) buffer[at++] = value;
        many.run(buffer);
      }
      for (let i = whole; i < rows.length; i++) single.run(rows[i]);
      for (const index of createIndexes) db.exec(index);
    }
  }).immediate();
  const took = ms(t);
  db.close();
  if (n === 0) throw new Error('bench: empty scan');
  return took;
}
