import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildFixture } from '../../bench/ledger-fixture.js';
import { exportLedger } from '../../src/audit/export-ledger.js';
import { importExportFile } from '../../src/audit/import-ledger.js';
import { LedgerError } from '../../src/errors.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { rawRows, tempDir } from './cli-session.js';

// `import` into SQLite checks the file in a worker thread, loaded from the compiled dist/ (`npm test` builds
// it first); the in-process tests run from the TypeScript sources, where only the in-thread path exists.
// Here both paths import the same files, good and damaged, and must give the same ledger or the same error.
const WORKER = new URL('../../dist/src/audit/import-worker.js', import.meta.url);

/** The lines with every hash recomputed over the (edited) payloads, header and trailer included: a forger's file. */
function rechain(lines: string[]): string[] {
  let prev = '0'.repeat(64);
  const events = lines.slice(1, -1).map((line) => {
    const payload = line.slice(line.indexOf('"event":') + 8, -1);
    const hash = createHash('sha256').update(prev + payload).digest('hex');
    const out = `{"prevHash":"${prev}","hash":"${hash}","event":${payload}}`;
    prev = hash;
    return out;
  });
  const head = (text: string) => text.replace(/"hash":"[0-9a-f]{64}"/, `"hash":"${prev}"`);
  return [head(lines[0] as string), ...events, head(lines.at(-1) as string)];
}

/** What importing `file` does through the given path: the head, or the error's code and message; and the events left. */
async function importWith(file: string, worker: URL | null): Promise<{ outcome: string; events: number }> {
  const target = join(tempDir(), 'target.db');
  const store = openSqliteStore({ path: target, create: true });
  let outcome: string;
  try {
    const head = await importExportFile(store, file, { worker });
    outcome = `head ${head.position}:${head.hash}`;
  } catch (error) {
    outcome = error instanceof LedgerError ? `${error.code}: ${error.message}` : `not a LedgerError: ${String(error)}`;
  }
  const events = (await store.head()).position;
  await store.close();
  return { outcome, events };
}

describe('import through the worker thread', () => {
  let source: string;
  let file: string;
  let lines: string[];

  beforeAll(async () => {
    const dir = tempDir();
    source = join(dir, 'source.db');
    // More events than the worker may post ahead (4 batches of 1,000), so the flow control is exercised.
    const store = openSqliteStore({ path: source, create: true });
    await buildFixture(store, { pipelines: 6, dates: 1000, eventsPerPipeline: 1000 });
    file = join(dir, 'ledger.jsonl');
    const chunks: string[] = [];
    for await (const chunk of exportLedger(store, { exportedAt: '2026-11-05T00:00:00.000Z', toolVersion: 'test' })) chunks.push(chunk);
    await store.close();
    writeFileSync(file, chunks.join(''));
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  }, 120_000);

  test('gives the same rows, columns and head as the ledger exported', async () => {
    const target = join(tempDir(), 'target.db');
    const store = openSqliteStore({ path: target, create: true });
    const head = await importExportFile(store, file, { worker: WORKER });
    await store.close();
    const [want, got] = [await rawRows(source), await rawRows(target)];
    expect(got).toHaveLength(6000);
    expect(got).toEqual(want);
    expect(head).toEqual({ position: 6000, hash: want.at(-1)?.hash });
  }, 60_000);

  const event = (n: number) => n + 1; // line number of event n (the header is line 1)
  const damaged: Array<{ label: string; edit: (l: string[]) => string[]; says: RegExp }> = [
    { label: 'an event altered in the fifth batch', edit: (l) => l.map((x, i) => (i === event(4500) - 1 ? x.replace('"eventId":"B', '"eventId":"C') : x)), says: /line 4501: the event's hash does not match/ },
    { label: 'an event that is no valid event, with every hash recomputed', edit: (l) => rechain(l.map((x, i) => (i === event(2500) - 1 ? x.replace('"actor":"bench"', '"actor":""') : x))), says: /line 2501: \w+ metadata: actor: / },
    { label: 'an event whose data is no valid event, with every hash recomputed', edit: (l) => rechain(l.map((x, i) => (i === event(7) - 1 ? x.replace('"attempt":1', '"attempt":0') : x))), says: /line 8: RunStarted: data.attempt: Too small/ },
    {
      label: 'metrics nested 300 deep, which runledger never writes, with every hash recomputed',
      edit: (l) => {
        const at = l.findIndex((x) => x.includes('"type":"RunSucceeded"'));
        return rechain(l.map((x, i) => (i === at ? x.replace('"metrics":{', `"metrics":{"deep":${'{"n":'.repeat(300)}1${'}'.repeat(300)},`) : x)));
      },
      says: /RunSucceeded: data.metrics nests deeper than 64 levels/,
    },
    { label: 'a line removed late in the file', edit: (l) => [...l.slice(0, event(5200) - 1), ...l.slice(event(5200))], says: /line 5201: position 5201 where 5200 was expected/ },
    { label: 'the trailer cut off', edit: (l) => l.slice(0, -1), says: /without its trailer/ },
    { label: 'garbage after the trailer', edit: (l) => [...l, '{}'], says: /lines after the export trailer/ },
    { label: 'a line not JSON', edit: (l) => l.map((x, i) => (i === event(3000) - 1 ? x.slice(0, 50) : x)), says: /line 3001: the line is not JSON/ },
  ];

  test.each(damaged)('$label: the same error as the in-thread check, and nothing imported', async ({ edit, says }) => {
    const bad = join(tempDir(), 'bad.jsonl');
    writeFileSync(bad, `${edit(lines).join('\n')}\n`);
    const inThread = await importWith(bad, null);
    const inWorker = await importWith(bad, WORKER);
    expect(inThread.outcome).toMatch(/^input\.badExport: .*bad\.jsonl line \d+: /);
    expect(inThread.outcome).toMatch(says);
    expect(inWorker).toEqual(inThread);
    expect(inWorker.events).toBe(0);
  }, 60_000);
});
