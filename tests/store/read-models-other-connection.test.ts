import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

// A long-lived reader (serve) skips the read models' checks while no other connection has committed; what
// another process commits (an append, the tables dropped by an older release) is still seen at the next read.

const dir = tempDir('runledger-rm-other-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const clock = () => Date.parse('2026-11-05T00:00:00Z');

test('a reader sees what another connection committed: an append, then the tables dropped', async () => {
  const db = join(dir, 'ledger.db');
  const setup = await openLedger({ db, clock });
  await setup.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01' });
  await setup.close();
  const reader = await openLedger({ db, create: false, clock });
  expect(await reader.watermark({ pipeline: 'etl' })).toEqual({ pipeline: 'etl', watermark: null, completeThrough: null });
  expect(await reader.watermark({ pipeline: 'etl' })).toEqual({ pipeline: 'etl', watermark: null, completeThrough: null });

  const writer = await openLedger({ db, create: false, clock });
  await writer.succeed({ runId: (await writer.start({ pipeline: 'etl', date: '2026-11-01' })).runId });
  await writer.close();
  expect(await reader.watermark({ pipeline: 'etl' })).toEqual({ pipeline: 'etl', watermark: '2026-11-01', completeThrough: '2026-11-01' });

  const raw = new Database(db);
  for (const table of ['rm_meta', 'rm_pipelines', 'rm_dates', 'rm_runs']) raw.exec(`DROP TABLE ${table}`);
  raw.close();
  expect(await reader.watermark({ pipeline: 'etl' })).toEqual({ pipeline: 'etl', watermark: '2026-11-01', completeThrough: '2026-11-01' });
  expect((await verifyProjections(reader.store)).ok).toBe(true);
  await reader.close();
});

/** Two writers on one new ledger: A defines `etl` and starts 2026-11-01, B fails that run. */
async function failedByTheOther(db: string) {
  const a = await openLedger({ db, clock });
  await a.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01' });
  const b = await openLedger({ db, create: false, clock });
  const run = await a.start({ pipeline: 'etl', date: '2026-11-01' });
  await b.fail({ runId: run.runId, error: 'disk full' });
  return { a, b };
}

// The table writer keeps the rows its connection wrote and a write's own reads use them: they must give way to
// what another connection commits, and to nothing at all when the append that wrote them rolled back.
test('a writer reads back what another writer committed over the rows it wrote itself, and not the rows of an append that failed', async () => {
  const db = join(dir, 'two-writers.db');
  // B fails the run A started (A's kept date row says running), then A starts the date again: attempt 2, not a refusal.
  const { a, b } = await failedByTheOther(db);
  const second = await a.start({ pipeline: 'etl', date: '2026-11-01' });
  expect(second.attempt).toBe(2);
  await a.succeed({ runId: second.runId });
  expect(await b.watermark({ pipeline: 'etl' })).toEqual({ pipeline: 'etl', watermark: '2026-11-01', completeThrough: '2026-11-01' });

  // An append that fails in the table writer (a trigger refuses its run row) rolls back and leaves no kept row behind.
  const raw = new Database(db);
  raw.exec(`CREATE TRIGGER refuse_runs BEFORE INSERT ON rm_runs BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;`);
  await expect(a.start({ pipeline: 'etl', date: '2026-11-02' })).rejects.toThrow(/refused by the test/);
  raw.exec('DROP TRIGGER refuse_runs');
  raw.close();
  const third = await a.start({ pipeline: 'etl', date: '2026-11-02' });
  expect(third.attempt).toBe(1);
  expect((await a.state({ pipeline: 'etl' })).dates.filter((d) => d.status !== 'missing').map((d) => [d.date, d.status, d.attempts])).toEqual([
    ['2026-11-01', 'success', 2],
    ['2026-11-02', 'running', 1],
  ]);
  expect((await verifyProjections(a.store)).ok).toBe(true);
  await a.close();
  await b.close();
});

// The store's read-model port is public (docs/read-models.md): read without an ensure() first, the rows this
// connection wrote must still give way to what another connection committed since.
test('the read-model port, read without ensure(), answers what another connection committed over the rows this one wrote', async () => {
  const { a, b } = await failedByTheOther(join(dir, 'port.db'));
  const models = a.store.readModels;
  if (models === undefined) throw new Error('the SQLite store keeps read models');
  const summary = await models.summary('etl');
  expect(summary?.counts).toEqual({ failed: 1 });
  expect(summary?.running).toEqual([]);
  expect((await models.dates('etl', { keys: ['2026-11-01'] })).map((date) => date.status)).toEqual(['failed']);
  await b.close();
  await a.close();
});
