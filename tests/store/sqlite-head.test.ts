import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

// `head()` keeps the head it read while the wal-index header says no commit has finished since; every commit,
// by this store or by another connection, and every WAL reset after a checkpoint must still be seen at the next call.

const dir = tempDir('runledger-head-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const clock = () => Date.parse('2026-11-05T00:00:00Z');

async function ledgerWithPipeline(name: string): Promise<string> {
  const db = join(dir, name);
  const setup = await openLedger({ db, clock });
  await setup.define({ pipeline: 'etl', schedule: '@daily', start: '2026-10-01' });
  await setup.close();
  return db;
}

test('the head follows what another connection commits, across a checkpoint that resets the WAL', async () => {
  const db = await ledgerWithPipeline('other.db');
  const reader = await openLedger({ db, create: false, clock });
  const writer = await openLedger({ db, create: false, clock });
  const first = await reader.store.head();
  expect(await reader.store.head()).toEqual(first);

  await writer.start({ pipeline: 'etl', date: '2026-10-01' });
  const afterStart = await writer.store.head();
  expect(afterStart.position).toBe(first.position + 1);
  expect(await reader.store.head()).toEqual(afterStart);

  // The WAL starts over after a truncating checkpoint: the next commit's frames are where the first ones were.
  const raw = new Database(db);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  expect(await reader.store.head()).toEqual(afterStart);
  await writer.start({ pipeline: 'etl', date: '2026-10-02' });
  expect(await reader.store.head()).toEqual(await writer.store.head());
  expect((await reader.store.head()).position).toBe(afterStart.position + 1);

  await writer.close();
  await reader.close();
});

test("the head follows the store's own appends", async () => {
  const db = await ledgerWithPipeline('own.db');
  const ledger = await openLedger({ db, create: false, clock });
  const before = await ledger.store.head();
  for (const date of ['2026-10-01', '2026-10-02', '2026-10-03']) {
    const { runId } = await ledger.start({ pipeline: 'etl', date });
    await ledger.succeed({ runId });
  }
  const after = await ledger.store.head();
  expect(after.position).toBe(before.position + 6);
  const raw = new Database(db, { readonly: true });
  expect(after).toEqual(raw.prepare('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1').get());
  raw.close();
  await ledger.close();
});

test('a ledger opened through a symbolic link sees commits made through its real path', async () => {
  const db = await ledgerWithPipeline('real.db');
  const link = join(dir, 'link.db');
  symlinkSync(db, link);
  const reader = await openLedger({ db: link, create: false, clock });
  const before = await reader.store.head();
  const writer = await openLedger({ db, create: false, clock });
  await writer.start({ pipeline: 'etl', date: '2026-10-01' });
  expect((await reader.store.head()).position).toBe(before.position + 1);
  await writer.close();
  await reader.close();
});

test('a caller changing the head it was given changes no later answer', async () => {
  const db = await ledgerWithPipeline('copy.db');
  const ledger = await openLedger({ db, create: false, clock });
  const head = await ledger.store.head();
  const position = head.position;
  head.position = -1;
  expect((await ledger.store.head()).position).toBe(position);
  await ledger.close();
});
