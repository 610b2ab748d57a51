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
