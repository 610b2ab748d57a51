import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { PROJECTION_VERSION } from '../../projections/projection-version.js';
import { isLedgerError } from '../../src/errors.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import { rebuildCheckpoints, verifyCheckpoints } from '../../src/ledger/projection-checkpoint.js';
import type { EventStore, RawEvent } from '../../src/store/event-store.js';
import { openStore } from '../../src/store/open-store.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';
import { propertyRuns } from '../support/property-runs.js';

// Any interleaving of appends, queries, crashes between an append and the
// checkpoint write, stale and foreign checkpoints, and imports gives the same
// answers through checkpoints as a full rebuild from the events.

const NOW = Date.parse('2026-01-12T00:00:00Z');
const PIPELINES = ['alpha', 'beta'];
const DATES = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05'];

type Action =
  | { kind: 'start' | 'succeed' | 'fail' | 'heartbeat' | 'clear'; pipeline: number; date: number }
  | { kind: 'query' | 'crash' | 'import' | 'staleCheckpoint' | 'foreignCheckpoint' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constantFrom('start', 'succeed', 'fail', 'heartbeat', 'clear'), pipeline: fc.nat(PIPELINES.length - 1), date: fc.nat(DATES.length - 1) }) as fc.Arbitrary<Action> },
  { weight: 3, arbitrary: fc.constant({ kind: 'query' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'crash' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'import' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'staleCheckpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'foreignCheckpoint' as const }) },
);

/** A store whose checkpoint writes die, as a process killed between its append and its checkpoint write would. */
function crashingCheckpoints(store: EventStore): EventStore {
  const checkpoints = store.checkpoints;
  if (checkpoints === undefined) return store;
  return Object.assign(Object.create(store) as EventStore, {
    checkpoints: { ...checkpoints, save: () => Promise.reject(new Error('killed before the checkpoint write')) },
    append: store.append.bind(store),
    read: store.read.bind(store),
    readBackward: store.readBackward?.bind(store),
    readRaw: store.readRaw.bind(store),
    head: store.head.bind(store),
    findRun: store.findRun.bind(store),
    positionAt: store.positionAt.bind(store),
    importSealed: store.importSealed.bind(store),
    close: store.close.bind(store),
  });
}

async function answers(ledger: Ledger): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const pipeline of PIPELINES) {
    out[pipeline] = {
      state: await ledger.state({ pipeline }),
      pending: await ledger.pending({ pipeline }),
      runs: await ledger.runs({ pipeline }),
      watermark: await ledger.watermark({ pipeline }),
      asOf: await ledger.state({ pipeline, asOf: { position: Math.max(2, Math.floor((await ledger.store.head()).position / 2)) } }),
    };
  }
  return out;
}

async function rawRows(store: EventStore): Promise<RawEvent[]> {
  const rows: RawEvent[] = [];
  for await (const batch of store.readRaw()) rows.push(...batch.map(({ position, payload, prevHash, hash }) => ({ position, payload, prevHash, hash })));
  return rows;
}

async function runScenario(fresh: () => Promise<string>, actions: Action[]): Promise<void> {
  let db = await fresh();
  const open = (checkpointAfter: number) => openLedger({ db, clock: () => NOW, actor: 'prop', checkpointAfter });
  let writer = await open(1);
  for (const pipeline of PIPELINES) await writer.define({ pipeline, schedule: '@daily', start: '2026-01-01' });
  const runIds = new Map<string, string>();
  let stale: { store: EventStore; pipeline: string } | null = null;
  const compare = async () => {
    const viaCheckpoints = await open(1);
    const rebuilt = await open(0);
    try {
      expect(await answers(viaCheckpoints)).toEqual(await answers(rebuilt));
      expect((await verifyCheckpoints(viaCheckpoints.store)).filter((c) => c.status === 'differs')).toEqual([]);
    } finally {
      await viaCheckpoints.close();
      await rebuilt.close();
    }
  };
  try {
    for (const step of actions) {
      try {
        switch (step.kind) {
          case 'start': {
            const run = await writer.start({ pipeline: PIPELINES[step.pipeline] ?? '', date: DATES[step.date] ?? '', force: true });
            runIds.set(`${step.pipeline}/${step.date}`, run.runId);
            break;
          }
          case 'succeed':
          case 'fail':
          case 'heartbeat': {
            const runId = runIds.get(`${step.pipeline}/${step.date}`);
            if (runId === undefined) break;
            if (step.kind === 'succeed') await writer.succeed({ runId, metrics: { rows: step.date } });
            else if (step.kind === 'fail') await writer.fail({ runId, error: 'boom' });
            else await writer.heartbeat({ runId });
            break;
          }
          case 'clear':
            await writer.clear({ pipeline: PIPELINES[step.pipeline] ?? '', dates: [DATES[step.date] ?? ''] });
            break;
          case 'query':
            await compare();
            break;
          case 'crash': {
            // The old process dies; the next one appends, and dies before writing its checkpoint.
            await writer.close();
            const store = await openStore(db, { create: false });
            writer = new Ledger(crashingCheckpoints(store), () => NOW, 'prop', { checkpointAfter: 1 });
            break;
          }
          case 'staleCheckpoint': {
            // Keep a checkpoint as it is now and put it back later: an older but true prefix.
            const store = await openStore(db, { create: false });
            const pipeline = PIPELINES[0] ?? '';
            const saved = await store.checkpoints?.load(pipeline);
            if (saved) {
              await store.checkpoints?.discard(pipeline);
              await store.checkpoints?.save(saved);
            }
            stale = { store, pipeline };
            break;
          }
          case 'foreignCheckpoint': {
            // Checkpoints no query may trust: past the head, of another chain, of another projection version.
            const store = await openStore(db, { create: false });
            const head = await store.head();
            const bogus = JSON.stringify({ state: { pipeline: 'beta', dates: [] }, history: { runs: [] }, tasks: { runs: [], open: [] } });
            await store.checkpoints?.discard('beta');
            await store.checkpoints?.save({ pipeline: 'beta', position: head.position + 7, eventHash: 'f'.repeat(64), projectionVersion: PROJECTION_VERSION, state: bogus });
            await store.checkpoints?.discard('alpha');
            await store.checkpoints?.save({ pipeline: 'alpha', position: head.position, eventHash: 'e'.repeat(64), projectionVersion: PROJECTION_VERSION, state: bogus });
            await store.close();
            break;
          }
          case 'import': {
            const rows = await rawRows(writer.store);
            await writer.close();
            db = await fresh();
            const store = await openStore(db, { create: true });
            await store.importSealed(rows);
            await rebuildCheckpoints(store);
            await store.close();
            writer = await open(1);
            break;
          }
        }
      } catch (error) {
        // Refusals (a start on a running key, a result for a run that is not current) are answers, not failures.
        if (!isLedgerError(error)) throw error;
      }
    }
    await compare();
  } finally {
    await writer.close();
    await stale?.store.close();
  }
}

const adapters: Array<{ name: string; fresh: () => Promise<string>; cleanup: () => Promise<void>; runs: number }> = [];
{
  const dir = tempDir('runledger-checkpoint-');
  let n = 0;
  adapters.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), cleanup: async () => rmSync(dir, { recursive: true, force: true }), runs: 20 });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  adapters.push({ name: 'postgres', fresh: () => schemas.fresh(), cleanup: () => schemas.dropAll(), runs: 6 });
} else {
  console.log(pgSkipMessage('checkpoint property test'));
}

afterAll(async () => {
  for (const adapter of adapters) await adapter.cleanup();
});

describe.each(adapters)('projection checkpoints on $name', (adapter) => {
  test('answers through checkpoints equal a full rebuild under any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), (actions) => runScenario(adapter.fresh, actions)),
      propertyRuns(adapter.runs),
    );
  }, 240_000);

  test('a checkpoint of another projection version, or past the head, is discarded and never used', async () => {
    const db = await adapter.fresh();
    const ledger = await openLedger({ db, clock: () => NOW, checkpointAfter: 1 });
    await ledger.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
    const run = await ledger.start({ pipeline: 'alpha', date: '2026-01-01' });
    await ledger.succeed({ runId: run.runId });
    // Checkpoints back the whole folded state (`pipeline`); the everyday queries read the read models.
    await ledger.pipeline('alpha');
    const store = ledger.store;
    const saved = await store.checkpoints?.load('alpha');
    expect(saved?.position).toBe(3);
    expect(saved?.hashAtPosition).toBe(saved?.eventHash);
    // A checkpoint claiming a success that never happened, tagged with another version: ignored and dropped.
    const lie = saved?.state.replaceAll('"success"', '"failed"') ?? '';
    expect(lie).not.toBe(saved?.state);
    await store.checkpoints?.discard('alpha');
    await store.checkpoints?.save({ ...(saved as NonNullable<typeof saved>), projectionVersion: PROJECTION_VERSION + 1, state: lie });
    const fresh = await openLedger({ db, clock: () => NOW, checkpointAfter: 1 });
    expect([...(await fresh.pipeline('alpha')).state.dates.values()].map((d) => d.status)).toContain('success');
    expect((await verifyCheckpoints(fresh.store)).map((c) => c.status)).toEqual(['ok']);
    // The same lie at this version but past the head: ignored too.
    await store.checkpoints?.discard('alpha');
    await store.checkpoints?.save({ ...(saved as NonNullable<typeof saved>), position: 99, state: lie.replace('"position":3', '"position":99') });
    const third = await openLedger({ db, clock: () => NOW, checkpointAfter: 0 });
    const viaCheckpoint = await openLedger({ db, clock: () => NOW, checkpointAfter: 1 });
    expect((await viaCheckpoint.pipeline('alpha')).state).toEqual((await third.pipeline('alpha')).state);
    await Promise.all([fresh.close(), third.close(), viaCheckpoint.close()]);
    await ledger.close();
  });
});
