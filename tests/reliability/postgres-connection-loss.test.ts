import { spawnSync } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { openLedger } from '../../src/open-ledger.js';
import { APPEND_FUNCTION } from '../../src/store/postgres/postgres-append-function.js';
import { APPEND_ROWS_FUNCTION } from '../../src/store/postgres/postgres-append-rows-function.js';
import type { EventStore } from '../../src/store/event-store.js';
import { openStore } from '../../src/store/open-store.js';
import { READ_ATTEMPTS } from '../../src/store/postgres/with-read-retry.js';
import { pgEventCount, pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';

/**
 * A TCP proxy in front of PostgreSQL that, once armed, passes the next commit
 * on to the server and then cuts both sockets before the server's reply gets
 * back: the transaction commits, and the client cannot know it did. The
 * commit is either a COMMIT (the client-side transaction) or the append
 * function's call, whose implicit transaction commits at its Sync message.
 */
function commitCutter(target: URL): Promise<{ server: Server; port: number; arm(): void; cuts(): number }> {
  let armed = false;
  let cuts = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('data', (data) => client.write(data));
    let callSeen = false;
    client.on('data', (data) => {
      upstream.write(data);
      if (!armed) return;
      // A simple-protocol query message: 'Q', its length, then the SQL text and a NUL.
      const commit = data.includes(Buffer.from('COMMIT\0'));
      // An extended-protocol call of the append function (or of the append-rows function, which calls it):
      // cut once its Sync ('S', length 4) has gone through.
      callSeen ||= data.includes(Buffer.from(APPEND_FUNCTION)) || data.includes(Buffer.from(APPEND_ROWS_FUNCTION));
      const synced = callSeen && data.includes(Buffer.from([0x53, 0, 0, 0, 4]));
      if (commit || synced) {
        armed = false;
        callSeen = false;
        cuts += 1;
        client.pause();
        upstream.removeAllListeners('data');
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 300);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, port, arm: () => (armed = true), cuts: () => cuts });
    }),
  );
}

/** Ends every runledger backend waiting on a lock; returns how many. */
async function terminateWaiting(admin: pg.Client): Promise<number> {
  // Inside a transaction pg_stat_activity is a snapshot taken at its first read: drop it, or a backend
  // that began to wait after that read is never seen.
  await admin.query('SELECT pg_stat_clear_snapshot()');
  // Only backends waiting on `admin`'s own lock: other test files (and other runs) on the same server have
  // runledger backends waiting on locks of their own, and ending those fails their tests and miscounts here.
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'runledger' AND wait_event_type = 'Lock' AND pg_backend_pid() = ANY(pg_blocking_pids(pid))`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Runs `operation` while `admin` holds a lock it needs (taken by `lockSql` in an
 * open transaction), ends each runledger backend found waiting on that lock
 * with `pg_terminate_backend`, then lets go of the lock. Returns how many
 * backends were ended and the operation's outcome.
 */
async function terminateWhileWaiting<T>(admin: pg.Client, lockSql: string, lockParams: unknown[], operation: () => Promise<T>): Promise<{ killed: number; outcome: PromiseSettledResult<T> }> {
  await admin.query('BEGIN');
  await admin.query(lockSql, lockParams);
  const pending = operation();
  // Settled as it happens, so a rejection before the lock is let go is not reported as unhandled.
  const outcome = pending.then(
    (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
    (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
  );
  let killed = 0;
  try {
    for (let i = 0; i < 100 && killed === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      killed = await terminateWaiting(admin);
    }
  } finally {
    await admin.query('COMMIT');
  }
  return { killed, outcome: await outcome };
}

const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);

if (schemas === undefined) {
  const message = pgSkipMessage('the connection-loss tests');
  console.warn(message);
  describe.skip(message, () => test('PostgreSQL connection loss', () => undefined));
} else {
  describe('PostgreSQL connection loss', () => {
    let url: string;
    let proxy: Awaited<ReturnType<typeof commitCutter>>;

    beforeAll(async () => {
      url = await schemas.fresh();
      proxy = await commitCutter(new URL(TEST_PG_URL as string));
    });
    afterAll(async () => {
      proxy.server.close();
      await schemas.dropAll();
    });

    test('an append whose connection dies between COMMIT and its reply is retried once and stored once', async () => {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(proxy.port);
      const ledger = await openLedger({ db: through.toString(), clock: () => Date.parse('2026-11-05T01:00:00Z'), actor: 'test' });
      try {
        await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
        const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
        proxy.arm();
        const done = await ledger.succeed({ runId: run.runId, metrics: { rows: 42 } });
        expect(proxy.cuts()).toBe(1);
        expect(done).toMatchObject({ status: 'success', repeated: false });
        expect(await pgEventCount(url)).toBe(3);
        const state = await ledger.state({ pipeline: 'etl_orders', to: '2026-11-02' });
        expect(state.dates[0]).toMatchObject({ status: 'success', metrics: { rows: 42 } });
      } finally {
        await ledger.close();
      }
    });

    test('sslmode=require against a server without SSL is one line and exit 2, without pg\'s nine-line warning', () => {
      const withSsl = new URL(url);
      withSsl.searchParams.set('sslmode', 'require');
      const bin = new URL('../../bin/runledger.js', import.meta.url).pathname;
      const r = spawnSync(process.execPath, [bin, '--db', withSsl.toString(), 'pipelines'], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^runledger: PostgreSQL at [^ ]+ does not accept SSL connections, but --db asks for them \(sslmode\); [^\n]*\n$/);
    });

    test("pg_terminate_backend on the ledger's connection mid-transaction is a lost connection that is retried, not a crash", async () => {
      const ledger = await openLedger({ db: url, clock: () => Date.parse('2026-11-05T01:00:00Z'), actor: 'test' });
      const admin = new pg.Client({ connectionString: TEST_PG_URL });
      await admin.connect();
      try {
        const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
        // Hold the append lock from the admin session, so the ledger's append waits inside its transaction;
        // then end that waiting backend and let go of the lock.
        const schema = new URL(url).searchParams.get('schema') as string;
        const { killed, outcome } = await terminateWhileWaiting(admin, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`runledger.append:${schema}`], () =>
          ledger.succeed({ runId: run.runId }),
        );
        expect(killed).toBe(1);
        expect(outcome).toMatchObject({ status: 'fulfilled', value: { status: 'success' } });
        expect(await pgEventCount(url)).toBe(5);
      } finally {
        await admin.end();
        await ledger.close();
      }
    });

    describe('a read whose connection is ended under it is read again on a new connection', () => {
      let store: EventStore;
      let admin: pg.Client;
      let schema: string;
      let runId: string;

      beforeAll(async () => {
        // A ledger of its own: 31 events, read in pages of 10.
        const db = await schemas.fresh();
        schema = new URL(db).searchParams.get('schema') as string;
        const ledger = await openLedger({ db, clock: () => Date.parse('2026-11-05T01:00:00Z'), actor: 'test' });
        try {
          await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-10-01' });
          for (let day = 1; day <= 30; day++) runId = (await ledger.start({ pipeline: 'etl_orders', date: `2026-10-${String(day).padStart(2, '0')}` })).runId;
        } finally {
          await ledger.close();
        }
        store = await openStore(db, { create: false });
        await store.consumers.save('reader', 7, '2026-11-05T01:00:00Z');
        await store.checkpoints?.save({ pipeline: 'etl_orders', position: 1, eventHash: 'h', projectionVersion: 1, state: '{}' });
        admin = new pg.Client({ connectionString: TEST_PG_URL });
        await admin.connect();
      });
      afterAll(async () => {
        await admin.end();
        await store.close();
      });

      const lockEvents = () => `LOCK TABLE ${pg.escapeIdentifier(schema)}.events IN ACCESS EXCLUSIVE MODE`;
      const lockConsumers = () => `LOCK TABLE ${pg.escapeIdentifier(schema)}.runledger_consumers IN ACCESS EXCLUSIVE MODE`;
      type ReadCase = { label: string; lock: () => string; read: () => Promise<unknown>; expected: unknown };

      test.each<ReadCase>([
        { label: 'every page of a read (log, state, follow)', lock: lockEvents, read: async () => {
          let n = 0;
          for await (const batch of store.read({ batchSize: 10 })) n += batch.length;
          return n;
        }, expected: 31 },
        { label: 'the head', lock: lockEvents, read: async () => (await store.head()).position, expected: 31 },
        { label: 'a run found by its id', lock: lockEvents, read: async () => (await store.findRun(runId))?.pipeline, expected: 'etl_orders' },
        { label: 'the position at an instant', lock: lockEvents, read: () => store.positionAt('2030-01-01T00:00:00Z'), expected: 31 },
        { label: "a pipeline's checkpoint", lock: lockEvents, read: async () => (await store.checkpoints?.load('etl_orders'))?.position, expected: 1 },
        { label: 'the pipelines', lock: lockEvents, read: async () => store.checkpoints?.pipelines(), expected: ['etl_orders'] },
        { label: "a consumer's position", lock: lockConsumers, read: () => store.consumers.get('reader'), expected: 7 },
      ])('$label', async ({ lock, read, expected }) => {
        const { killed, outcome } = await terminateWhileWaiting(admin, lock(), [], read);
        expect(killed).toBe(1);
        expect(outcome).toEqual({ status: 'fulfilled', value: expected });
      });

      test('a read that keeps losing its connection gives up after its tries with one clear error', async () => {
        // Ends every runledger backend that waits, for as long as the read keeps coming back.
        await admin.query('BEGIN');
        await admin.query(lockEvents());
        const pending = store.head().then(
          () => null,
          (error: unknown) => error,
        );
        let killed = 0;
        for (let i = 0; i < 200 && killed < READ_ATTEMPTS; i++) {
          await new Promise((r) => setTimeout(r, 25));
          killed += await terminateWaiting(admin);
        }
        const error = await pending;
        await admin.query('COMMIT');
        expect(killed).toBe(READ_ATTEMPTS);
        expect(error).toBeInstanceOf(LedgerError);
        expect((error as LedgerError).code).toBe('store.connectionLost');
        expect((error as LedgerError).message).not.toContain('\n');
      });
    });
  });
}
