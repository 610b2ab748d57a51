import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import type { NewEvent } from '../../src/store/event-store.js';
import { appendLockName } from '../../src/store/postgres/postgres-schema.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';

// Two writers whose rows were folded ahead of the append lock from the same head: the second appends at
// positions one past the ones it folded at, so the append-rows function must move every position it
// writes (start positions, run order, result and error events), and must refuse rows another append has
// changed since they were read. The test holds the append lock itself until both writers wait inside the
// function, so the interleaving is the same on every run.

const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
if (schemas === null) console.log(pgSkipMessage('append-rows (fold ahead of the lock) test'));
afterAll(() => schemas?.dropAll());

const LONG = `first line of a long failure\n${'x'.repeat(600)}`;

function server(db: string): string {
  const url = new URL(db);
  url.searchParams.delete('schema');
  return url.toString();
}

/** Runs `appends` while the append lock is held elsewhere, letting go once each waits inside the append-rows function. */
async function together<T>(db: string, appends: Array<() => Promise<T>>): Promise<T[]> {
  const schema = new URL(db).searchParams.get('schema') as string;
  const holder = new pg.Client({ connectionString: server(db) });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [appendLockName(schema)]);
    const all = Promise.all(appends.map((append) => append()));
    all.catch(() => undefined);
    for (let waited = 0; ; waited += 20) {
      const { rows } = await holder.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%runledger_append_rows_v%'`,
      );
      if (Number(rows[0]?.n) === appends.length) break;
      if (waited > 20_000) throw new Error('the writers did not reach the append lock inside the append-rows function');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [appendLockName(schema)]);
    return await all;
  } finally {
    await holder.end();
  }
}

/** A heartbeat for a run the pipeline never had, as the bench's writers append: it moves only the summary's position. */
function strayHeartbeat(pipeline: string, n: number): NewEvent {
  return {
    type: 'RunHeartbeat',
    schemaVersion: 1,
    data: { pipeline, date: `stray-${n}`, runId: `R-stray-${n}`, leaseExpiresAt: '2026-01-12T01:00:00.000Z' },
    eventId: `E-stray-${n}`,
    stream: `${pipeline}/stray-${n}`,
    recordedAt: '2026-01-12T00:00:00.000Z',
    metadata: { actor: 'test', toolVersion: 'test' },
  } as NewEvent;
}

describe.skipIf(schemas === null)('postgres: read-model rows folded ahead of the append lock', () => {
  test('appends that folded from the same head write their own positions, and rows changed meanwhile are folded again', async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const clock = () => Date.parse('2026-01-12T00:00:00Z');
    const writers: Ledger[] = [await openLedger({ db, clock, actor: 'a', checkpointAfter: 0 }), await openLedger({ db, clock, actor: 'b', checkpointAfter: 0 })];
    const [a, b] = writers as [Ledger, Ledger];
    try {
      await a.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
      await a.define({ pipeline: 'beta', schedule: '@daily', start: '2026-01-01' });
      // Other pipelines: new date and run rows, their start positions and run order moved by one for the second.
      const [ra, rb] = await together(db, [() => a.start({ pipeline: 'alpha', date: '2026-01-01', lease: 3_600_000 }), () => b.start({ pipeline: 'beta', date: '2026-01-01', lease: 3_600_000 })]);
      // A result and an error long enough to be read back from their events: their positions are moved too.
      await together(db, [
        () => a.succeed({ runId: (ra as { runId: string }).runId, metrics: { note: LONG }, outputs: ['s3://bucket/a'] }),
        () => b.fail({ runId: (rb as { runId: string }).runId, error: LONG, code: 'E_LONG' }),
      ]);
      // One pipeline, rows no other append touches: the summary differs only in its position, which is moved.
      await together(db, [() => a.store.append([{ stream: 'alpha/stray-1', expectedVersion: 0, events: [strayHeartbeat('alpha', 1)] }]), () => b.store.append([{ stream: 'alpha/stray-2', expectedVersion: 0, events: [strayHeartbeat('alpha', 2)] }])]);
      // One pipeline, both changing its summary (counts, runs in flight): the second finds it changed and folds under the lock.
      await together(db, [() => a.start({ pipeline: 'alpha', date: '2026-01-02', lease: 3_600_000 }), () => b.start({ pipeline: 'alpha', date: '2026-01-03', lease: 3_600_000 })]);
      const check = await verifyProjections(a.store);
      expect(check.difference).toBeNull();
      // Every row is the fold's (above), and the fold's positions are the stored events' own.
      const starts: number[] = [];
      for await (const batch of a.store.read()) for (const event of batch) if (event.type === 'RunStarted') starts.push(event.position);
      const seqs = (await a.store.readModels?.storedRows('alpha'))?.runs.map((run) => run.seq) ?? [];
      const betaSeqs = (await a.store.readModels?.storedRows('beta'))?.runs.map((run) => run.seq) ?? [];
      expect([...seqs, ...betaSeqs].sort((x, y) => x - y)).toEqual(starts);
    } finally {
      for (const writer of writers) await writer.close();
    }
  }, 60_000);
});
