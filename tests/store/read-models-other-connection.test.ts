import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { openLedger } from '../../src/ledger/ledger.js';
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
