import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import { runStream } from '../../events/recorded-event.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { openLedger } from '../../src/open-ledger.js';
import type { NewEvent } from '../../src/store/event-store.js';
import type { PostgresReadModels } from '../../src/store/postgres/postgres-read-models.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// `start --run-id` checks that the id is free before its append, outside the transaction: two starts on two
// pipelines can both pass that check with one id. The SQLite table writer then folds each pipeline's events into its
// own run row: a success of the second pipeline's run reaches that run, not the first pipeline's row of the same id.
// On PostgreSQL too, where the run rows are keyed by pipeline and run id (the second start's row replaced the first's).

const dir = tempDir('runledger-shared-run-id-');
const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});
if (schemas === null) console.log(pgSkipMessage('shared run id test'));

/**
 * A fresh PostgreSQL ledger whose append-rows function always answers `stale`: every append then folds its rows
 * under the append lock (the table writer's own upserts), not ahead of it in the function.
 */
async function foldedUnderTheLock(fresh: () => Promise<string>): Promise<string> {
  const db = await fresh();
  const probe = await openLedger({ db, clock: () => NOW });
  const signature = (probe.store.readModels as PostgresReadModels).aheadFunction.signature;
  await probe.close();
  const url = new URL(db);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`CREATE FUNCTION ${signature} RETURNS json LANGUAGE sql AS $$ SELECT json_build_object('stale', 'test') $$`);
  } finally {
    await client.end();
  }
  return db;
}

/** Each store, with a fresh ledger of its own (`null`: no PostgreSQL server to run against). */
const stores = [
  { store: 'SQLite', fresh: async () => join(dir, 'ledger.db') },
  { store: 'PostgreSQL, rows folded ahead of the append lock', fresh: schemas === null ? null : () => schemas.fresh() },
  { store: 'PostgreSQL, rows folded under the append lock', fresh: schemas === null ? null : () => foldedUnderTheLock(() => schemas.fresh()) },
];

const NOW = Date.parse('2026-01-10T00:00:00Z');
let k = 0;

/** A run event of `pipeline`'s date, as a writer that passed the id check would append it. */
function runEvent(pipeline: string, date: string, event: LedgerEvent): { stream: string; expectedVersion: 'any'; events: NewEvent[] } {
  const stream = runStream(pipeline, date);
  const envelope = { eventId: `S${String(++k).padStart(25, '0')}`, stream, recordedAt: '2026-01-05T00:00:00.000Z', metadata: { actor: 'test', toolVersion: 'test' } };
  return { stream, expectedVersion: 'any', events: [{ ...event, ...envelope } as NewEvent] };
}

function started(pipeline: string, date: string, runId: string): LedgerEvent {
  const interval = { start: `${date}T00:00:00+00:00`, end: `${date}T00:00:00+00:00`.replace(date, nextDay(date)) };
  return {
    type: 'RunStarted',
    schemaVersion: 1,
    data: { pipeline, date, runId, attempt: 1, runType: 'scheduled', logicalDate: interval.start, dataInterval: interval, runAfter: interval.end, leaseExpiresAt: '2026-01-10T01:00:00.000Z', force: false, offSchedule: false, takeoverOf: null },
  } as LedgerEvent;
}

function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

describe.each(stores)('on $store', ({ fresh }) => {
  test.skipIf(fresh === null)("a run id two pipelines share: each pipeline's success reaches its own run row, and the tables equal the fold", async () => {
    const db = await (fresh as () => Promise<string>)();
    const first = await openLedger({ db, clock: () => NOW });
    await first.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
    await first.define({ pipeline: 'beta', schedule: '@daily', start: '2026-01-01' });
    for (const pipeline of ['alpha', 'beta']) expect((await first.store.append([runEvent(pipeline, '2026-01-03', started(pipeline, '2026-01-03', 'shared'))])).ok).toBe(true);
    await first.close();
    // Another connection (none of the rows above kept by it) folds beta's success.
    const ledger = await openLedger({ db, clock: () => NOW });
    const append = async (request: ReturnType<typeof runEvent>) => expect((await ledger.store.append([request])).ok).toBe(true);
    const succeeded = (pipeline: string, date: string): LedgerEvent =>
      ({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline, date, runId: 'shared', metrics: { rows: 1 }, outputs: [] } }) as LedgerEvent;
    await append(runEvent('beta', '2026-01-03', succeeded('beta', '2026-01-03')));
    const beta = await ledger.runs({ pipeline: 'beta' });
    expect(beta.runs.map((r) => [r.runId, r.status])).toEqual([['shared', 'success']]);
    const alpha = await ledger.runs({ pipeline: 'alpha' });
    expect(alpha.runs.map((r) => [r.runId, r.status])).toEqual([['shared', 'running']]);
    // The run of that id on any pipeline is the one whose start came first, on either store.
    expect(await ledger.store.readModels?.run('shared')).toMatchObject({ pipeline: 'alpha', status: 'running' });
    // A page of one pipeline's runs before that id starts from that pipeline's run, as the fold's does.
    for (const pipeline of ['alpha', 'beta']) expect((await ledger.runs({ pipeline, before: 'shared' })).runs).toEqual([]);
    expect(await verifyProjections(ledger.store)).toMatchObject({ ok: true, difference: null });
    await ledger.close();
  });
});
