import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-new-ledger-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('when a new ledger is created then its schema is already in its write-ahead log, so the first append does not start the log', async () => {
  const path = join(dir, 'ledger.db');
  const store = openSqliteStore({ path, create: true });
  // A started log has its 32-byte header and the schema's frames; a log that only exists is empty.
  expect(statSync(`${path}-wal`).size).toBeGreaterThan(32);
  expect(existsSync(`${path}-journal`)).toBe(false);
  await store.close();
  const db = new Database(path, { readonly: true });
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  db.close();
});

test('when an existing file that is not a ledger is opened then it is refused and left in its own journal mode', () => {
  const path = join(dir, 'other.db');
  const other = new Database(path);
  other.exec('CREATE TABLE notes (text TEXT)');
  other.close();
  const before = readFileSync(path);
  expect(() => openSqliteStore({ path, create: true })).toThrow(/not a runledger ledger/);
  expect(readFileSync(path).equals(before)).toBe(true);
  expect(existsSync(`${path}-wal`)).toBe(false);
});
