import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { tempDir } from '../runner/cli-helpers.js';

// `log --types … --limit n` hands the types to the store, which reads only those events (SQLite and PostgreSQL by
// their type column, newest first): the answer is the last n events of those types, oldest first, as it was when
// the types were filtered after reading every event back.

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.parse('2026-11-20T00:00:00Z');

async function written(ledger: Ledger): Promise<void> {
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01' });
  await ledger.define({ pipeline: 'other', schedule: '@daily', start: '2026-11-01' });
  for (let day = 1; day <= 9; day++) {
    const date = `2026-11-0${day}`;
    for (const pipeline of ['etl', 'other']) {
      const run = await ledger.start({ pipeline, date });
      if (day % 3 === 0) await ledger.fail({ runId: run.runId, error: `boom ${pipeline} ${date}` });
      else await ledger.succeed({ runId: run.runId });
    }
  }
}

describe.each([
  { store: 'memory', open: async () => openMemoryLedger({ clock: () => NOW }) },
  { store: 'SQLite', open: async () => openLedger({ db: join(dir, 'log-types.db'), clock: () => NOW }) },
])('log with types on the $store store', ({ open }) => {
  test('the last n events of the types asked for, oldest first, of the pipeline asked for', async () => {
    const ledger = await open();
    await written(ledger);
    const failures = (await ledger.log({ pipeline: 'etl', types: ['RunFailed'], limit: 2 })).events;
    expect(failures.map((e) => [e.type, (e.data as { date: string }).date])).toEqual([
      ['RunFailed', '2026-11-06'],
      ['RunFailed', '2026-11-09'],
    ]);
    expect(failures[0]?.position).toBeLessThan(failures[1]?.position ?? 0);
    const two = (await ledger.log({ types: ['PipelineDefined', 'RunFailed'], limit: 3 })).events;
    expect(two.map((e) => [e.type, e.data.pipeline, (e.data as { date?: string }).date ?? null])).toEqual([
      ['RunFailed', 'other', '2026-11-06'],
      ['RunFailed', 'etl', '2026-11-09'],
      ['RunFailed', 'other', '2026-11-09'],
    ]);
    const all = (await ledger.log({ pipeline: 'etl', types: ['PipelineDefined', 'RunFailed'] })).events;
    expect(all.map((e) => e.type)).toEqual(['PipelineDefined', 'RunFailed', 'RunFailed', 'RunFailed']);
    expect((await ledger.log({ pipeline: 'etl', types: ['RunAbandoned'], limit: 5 })).events).toEqual([]);
    await ledger.close();
  });
});
