import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import type { EventStore, NewEvent } from '../../src/store/event-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { foldOnly } from '../support/fold-only.js';
import { tempDir } from '../support/run-cli.js';

// The table writer keeps what its last append wrote and does not read it back for the next one. These are the
// cases where that must not be trusted: another connection appending in between, an append that rolled back
// after writing its rows, and events another release appended without keeping the tables (folded before the
// next append's own, or by the next reader).

const dir = tempDir('runledger-rm-writers-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const clock = () => Date.parse('2026-11-20T00:00:00Z');

async function definedLedger(name: string): Promise<{ db: string; ledger: Ledger }> {
  const db = join(dir, `${name}.db`);
  const ledger = await openLedger({ db, clock, checkpointAfter: 0 });
  await ledger.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-11-01' });
  await ledger.define({ pipeline: 'beta', schedule: '@daily', start: '2026-11-01' });
  return { db, ledger };
}

/** What the tables answer and what the fold of the events answers, for both pipelines. */
async function fromTablesAndFold(ledger: Ledger): Promise<[unknown, unknown]> {
  const folding = new Ledger(foldOnly(ledger.store), clock, 'test', { checkpointAfter: 0 });
  const answers = async (l: Ledger) => Promise.all(['alpha', 'beta'].map(async (pipeline) => [await l.state({ pipeline }), await l.runs({ pipeline }), await l.pipelineStatus({ pipeline })]));
  return [await answers(ledger), await answers(folding)];
}

/** A store that appends without keeping the read models, as a release before them did. */
function previousRelease(db: string): { store: EventStore; ledger: Ledger } {
  const store = openSqliteStore({ path: db, create: false });
  Object.assign(store.readModels as object, { apply: () => undefined });
  return { store, ledger: new Ledger(foldOnly(store), clock, 'previous', { checkpointAfter: 0 }) };
}

test('two connections appending in turn leave every row equal to the fold', async () => {
  const { db, ledger: a } = await definedLedger('turns');
  const b = await openLedger({ db, create: false, clock, checkpointAfter: 0 });
  for (let day = 1; day <= 6; day++) {
    const date = `2026-11-0${day}`;
    const [starter, finisher] = day % 2 === 0 ? [a, b] : [b, a];
    const run = await starter.start({ pipeline: 'alpha', date });
    await starter.start({ pipeline: 'beta', date });
    if (day % 3 === 0) await finisher.fail({ runId: run.runId, error: `failed on day ${day}` });
    else await finisher.succeed({ runId: run.runId, metrics: { rows: day } });
  }
  expect((await verifyProjections(a.store)).ok).toBe(true);
  const [tables, fold] = await fromTablesAndFold(b);
  expect(tables).toEqual(fold);
  await b.close();
  await a.close();
});

test('an append that rolled back after writing some of its rows leaves nothing the next append trusts', async () => {
  const { db, ledger } = await definedLedger('rollback');
  const a = await ledger.start({ pipeline: 'alpha', date: '2026-11-01' });
  const b = await ledger.start({ pipeline: 'beta', date: '2026-11-01' });
  // Refuses beta's summary row once it holds a failure: an append over both pipelines then rolls back after alpha's rows were written.
  const raw = new Database(db);
  raw.exec(`CREATE TRIGGER refuse_beta_failures BEFORE UPDATE ON rm_pipelines WHEN new.pipeline = 'beta' AND new.last_failure IS NOT NULL BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
  raw.close();
  // One append after the trigger's commit, so what the writer wrote last is what it knows again.
  await ledger.start({ pipeline: 'alpha', date: '2026-11-02' });
  const recorded = (id: number, run: { pipeline: string; date: string }) => ({
    eventId: `E${String(id).padStart(25, '0')}`,
    stream: `${run.pipeline}/${run.date}`,
    recordedAt: '2026-11-20T00:00:00.000Z',
    metadata: { actor: 'test', toolVersion: 'test' },
  });
  const succeeded: NewEvent = { type: 'RunSucceeded', schemaVersion: 1, ...recorded(1, a), data: { pipeline: a.pipeline, date: a.date, runId: a.runId, metrics: { rows: 1 }, outputs: [] } };
  const failed: NewEvent = { type: 'RunFailed', schemaVersion: 1, ...recorded(2, b), data: { pipeline: b.pipeline, date: b.date, runId: b.runId, error: 'boom', code: null } };
  const both = [succeeded, failed].map((event) => ({ stream: event.stream, expectedVersion: 'any' as const, events: [event] }));
  await expect(ledger.store.append(both)).rejects.toThrow(/refused by the test/);
  await ledger.succeed({ runId: a.runId });
  await ledger.succeed({ runId: b.runId });
  expect((await verifyProjections(ledger.store)).ok).toBe(true);
  const [tables, fold] = await fromTablesAndFold(ledger);
  expect(tables).toEqual(fold);
  expect((await ledger.state({ pipeline: 'alpha' })).dates.slice(0, 2).map((d) => d.status)).toEqual(['success', 'running']);
  await ledger.close();
});

test("another release's appends are folded before the next append's own, and by the next reader", async () => {
  const { db, ledger } = await definedLedger('previous');
  const run = await ledger.start({ pipeline: 'alpha', date: '2026-11-01' });
  const old = previousRelease(db);
  await old.ledger.succeed({ runId: run.runId });
  await old.ledger.start({ pipeline: 'beta', date: '2026-11-01' });
  // Straight to the store: no read-model check runs before this append, so its own transaction folds the two above first.
  const stream = 'alpha/2026-11-02';
  const appended = await ledger.store.append([
    {
      stream,
      expectedVersion: 0,
      events: [
        {
          type: 'RunStarted',
          schemaVersion: 1,
          eventId: 'E0000000000000000000000001',
          stream,
          recordedAt: '2026-11-20T00:00:00.000Z',
          metadata: { actor: 'test', toolVersion: 'test' },
          data: {
            pipeline: 'alpha', date: '2026-11-02', runId: 'R-direct', attempt: 1, runType: 'scheduled', logicalDate: '2026-11-02T00:00:00.000Z',
            dataInterval: { start: '2026-11-02T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z' }, runAfter: '2026-11-03T00:00:00.000Z',
            leaseExpiresAt: '2026-11-20T01:00:00.000Z', force: false, offSchedule: false, takeoverOf: null,
          },
        },
      ],
    },
  ]);
  expect(appended.ok).toBe(true);
  expect((await verifyProjections(ledger.store)).ok).toBe(true);
  // And events appended after that are folded by whoever reads next.
  await old.ledger.start({ pipeline: 'alpha', date: '2026-11-03' });
  await old.ledger.fail({ runId: (await old.ledger.start({ pipeline: 'beta', date: '2026-11-02' })).runId, error: 'boom' });
  const [tables, fold] = await fromTablesAndFold(ledger);
  expect(tables).toEqual(fold);
  expect((await verifyProjections(ledger.store)).ok).toBe(true);
  await old.store.close();
  await ledger.close();
});

test('events that move only the position (heartbeats of runs the ledger does not hold) keep each row right, on every connection', async () => {
  const { db, ledger } = await definedLedger('position-only');
  const other = await openLedger({ db, create: false, clock, checkpointAfter: 0 });
  const heartbeat = (id: number, pipeline: string): NewEvent => ({
    type: 'RunHeartbeat',
    schemaVersion: 1,
    eventId: `H${String(id).padStart(25, '0')}`,
    stream: `${pipeline}/h${id}`,
    recordedAt: '2026-11-20T00:00:00.000Z',
    metadata: { actor: 'test', toolVersion: 'test' },
    data: { pipeline, date: `h${id}`, runId: `R-unknown-${id}`, leaseExpiresAt: '2026-11-20T01:00:00.000Z' },
  });
  const append = async (store: EventStore, event: NewEvent) => expect((await store.append([{ stream: event.stream, expectedVersion: 0, events: [event] }])).ok).toBe(true);
  const positions = () => {
    const raw = new Database(db, { readonly: true });
    const rows = raw.prepare('SELECT pipeline, position FROM rm_pipelines ORDER BY pipeline').all();
    const heads = raw.prepare('SELECT pipeline, max(position) AS position FROM events GROUP BY pipeline ORDER BY pipeline').all();
    raw.close();
    return [rows, heads];
  };
  // Alpha's row as written by this connection, then heartbeats on it, on a pipeline with no definition (no row before its
  // first), from the other connection in between, and a real run between them: each row's position follows its last event.
  const run = await ledger.start({ pipeline: 'alpha', date: '2026-11-01' });
  for (let i = 1; i <= 3; i++) await append(ledger.store, heartbeat(i, 'alpha'));
  for (let i = 4; i <= 6; i++) await append(ledger.store, heartbeat(i, 'undefined_pipeline'));
  await append(other.store, heartbeat(7, 'alpha'));
  await append(ledger.store, heartbeat(8, 'alpha'));
  await ledger.succeed({ runId: run.runId });
  await append(ledger.store, heartbeat(9, 'alpha'));
  await append(ledger.store, heartbeat(10, 'beta'));
  const [rows, heads] = positions();
  expect(rows).toEqual([...(heads as Array<{ pipeline: string }>)].sort((a, b) => (a.pipeline < b.pipeline ? -1 : 1)));
  expect((await verifyProjections(ledger.store)).ok).toBe(true);
  const [tables, fold] = await fromTablesAndFold(ledger);
  expect(tables).toEqual(fold);
  expect((await ledger.state({ pipeline: 'alpha' })).dates[0]).toMatchObject({ date: '2026-11-01', status: 'success', runId: run.runId });
  await other.close();
  await ledger.close();
});
