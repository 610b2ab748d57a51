import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { exportLedger } from '../../src/audit/export-ledger.js';
import { ExportFileStore } from '../../src/audit/export-file-store.js';
import type { EventStore, ReadFilter } from '../../src/store/event-store.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { tempDir } from '../runner/cli-helpers.js';

// The export file's store answers a type-filtered read as the ledger's own store does (it decodes every line and
// keeps those of the types asked for), in batches of the size asked for.

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function positions(store: EventStore, filter: ReadFilter): Promise<number[][]> {
  const batches: number[][] = [];
  for await (const batch of store.read(filter)) batches.push(batch.map((e) => e.position));
  return batches;
}

test('an export file read by types keeps those types, in the batches and order the ledger gives', async () => {
  const ledger = openMemoryLedger({ clock: () => Date.parse('2026-11-10T00:00:00Z') });
  for (const pipeline of ['alpha', 'beta']) await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-01' });
  for (const date of ['2026-11-02', '2026-11-03', '2026-11-04']) {
    for (const pipeline of ['alpha', 'beta']) {
      const run = await ledger.start({ pipeline, date });
      if (date === '2026-11-03') await ledger.fail({ runId: run.runId, error: 'boom' });
      else await ledger.succeed({ runId: run.runId });
    }
  }
  let text = '';
  for await (const chunk of exportLedger(ledger.store, { exportedAt: '2026-11-10T00:00:00Z', toolVersion: 'test' })) text += chunk;
  const path = join(dir, 'ledger.jsonl');
  writeFileSync(path, text);
  const file = new ExportFileStore(path, await ledger.store.head());
  for (const filter of [
    { types: ['RunFailed' as const], batchSize: 1 },
    { pipeline: 'alpha', types: ['PipelineDefined' as const, 'RunSucceeded' as const], batchSize: 2 },
    { types: ['RunStarted' as const], toPosition: 8 },
    { types: [] },
  ]) {
    const expected = await positions(ledger.store, filter);
    expect(await positions(file, filter)).toEqual(expected);
  }
  expect((await positions(file, { types: ['RunFailed'] })).flat()).toHaveLength(2);
});
