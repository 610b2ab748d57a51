import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import { runStream } from '../../events/recorded-event.js';
import { importExportFile } from '../../src/audit/import-ledger.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import type { EventStore } from '../../src/store/event-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { tempDir } from '../support/run-cli.js';

// A ledger written by the release before read models (events and checkpoints, no rm_ tables) builds its
// read models once, on first use, reporting progress, and then answers every query exactly as that
// release did: the fold of the events, over every replay fixture of the suite.

const dir = tempDir('runledger-upgrade-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixtureDirs = ['projections', 'replay'].map((d) => join(import.meta.dirname, '../fixtures', d));
const fixtures = fixtureDirs.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.jsonl')).map((f) => ({ dir: d, name: f.replace(/\.jsonl$/, '') })));

/** The fixture's events appended as they stand, then the read-model tables dropped: the file as the previous release left it. */
async function previousReleaseLedger(fixture: { dir: string; name: string }): Promise<{ path: string; pipelines: string[]; nowMs: number }> {
  const path = join(dir, `${fixture.name}.db`);
  const store = openSqliteStore({ path, create: true });
  const pipelines = new Set<string>();
  let last = 0;
  const file = join(fixture.dir, `${fixture.name}.jsonl`);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  if (lines[0]?.includes('"runledger-export"')) {
    // An export: imported as it is (the import builds read models, dropped below like the rest).
    await importExportFile(store, file);
    for await (const batch of store.read()) {
      for (const event of batch) {
        pipelines.add(event.data.pipeline);
        last = Math.max(last, Date.parse(event.recordedAt));
      }
    }
  }
  for (const [i, line] of (lines[0]?.includes('"runledger-export"') ? [] : lines).entries()) {
    const event = JSON.parse(line) as LedgerEvent & { recordedAt: string };
    const data = event.data as { pipeline: string; date?: string };
    pipelines.add(data.pipeline);
    last = Math.max(last, Date.parse(event.recordedAt));
    const stream = data.date === undefined ? data.pipeline : runStream(data.pipeline, data.date);
    const result = await store.append([{ stream, expectedVersion: 'any', events: [{ ...event, eventId: `F${String(i).padStart(25, '0')}`, stream, metadata: { actor: 'fixture', toolVersion: '0.0.0' } }] }]);
    expect(result.ok).toBe(true);
  }
  await store.close();
  const db = new Database(path);
  for (const table of ['rm_meta', 'rm_pipelines', 'rm_dates', 'rm_runs']) db.exec(`DROP TABLE ${table}`);
  db.close();
  return { path, pipelines: [...pipelines].sort(), nowMs: last + 86_400_000 };
}

/** A store whose read models are hidden: its ledger folds the events, as the previous release did. */
function folding(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    readModels: undefined,
    checkpoints: undefined,
    // Read forward, as the previous release did: \`log --limit\` read backward must give the same events.
    readBackward: undefined,
    read: store.read.bind(store),
    readRaw: store.readRaw.bind(store),
    head: store.head.bind(store),
    findRun: store.findRun.bind(store),
    positionAt: store.positionAt.bind(store),
  });
}

async function everyAnswer(ledger: Ledger, pipelines: string[], nowMs: number): Promise<string> {
  const out: Record<string, unknown> = { pipelines: await ledger.pipelines() };
  for (const pipeline of pipelines) {
    const defined = (await ledger.pipelines()).some((p) => p.pipeline === pipeline);
    if (!defined) continue;
    out[pipeline] = {
      state: await ledger.state({ pipeline }),
      pending: await ledger.pending({ pipeline }),
      runs: await ledger.runs({ pipeline }),
      watermark: await ledger.watermark({ pipeline }),
      status: await ledger.pipelineStatus({ pipeline, nowMs }),
      log: await ledger.log({ pipeline, limit: 5 }),
    };
  }
  return JSON.stringify(out);
}

describe('upgrading a ledger of the previous release', () => {
  test.each(fixtures)('$name: read models are built once, with progress, and every answer stays the same', async (fixture) => {
    const { path, pipelines, nowMs } = await previousReleaseLedger(fixture);
    // What the previous release answered: the fold (the tables are gone, so a read-only look folds).
    const before = openSqliteStore({ path, create: false });
    expect((before.readModels as { ready?: boolean } | undefined)?.ready).toBe(false);
    const expected = await everyAnswer(new Ledger(folding(before), () => nowMs, 'fixture', { checkpointAfter: 0 }), pipelines, nowMs);
    await before.close();

    const progress: Array<[number, number]> = [];
    const ledger = await openLedger({ db: path, create: false, clock: () => nowMs, rebuildProgress: (done, total) => progress.push([done, total]) });
    expect(await everyAnswer(ledger, pipelines, nowMs)).toBe(expected);
    const head = (await ledger.store.head()).position;
    expect(progress.at(0)).toEqual([0, head]);
    expect(progress.at(-1)).toEqual([head, head]);
    expect((await verifyProjections(ledger.store)).ok).toBe(true);
    await ledger.close();

    // Once: the next process finds them built.
    const again: unknown[] = [];
    const second = await openLedger({ db: path, create: false, clock: () => nowMs, rebuildProgress: (...args) => again.push(args) });
    expect(await everyAnswer(second, pipelines, nowMs)).toBe(expected);
    expect(again).toEqual([]);
    await second.close();
  });
});
