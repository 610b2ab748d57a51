import { spawnSync } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/ledger/ledger.js';
import { APPEND_FUNCTION } from '../../src/store/postgres/postgres-append-function.js';
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
      // An extended-protocol call of the append function: cut once its Sync ('S', length 4) has gone through.
      callSeen ||= data.includes(Buffer.from(APPEND_FUNCTION));
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
        await admin.query('BEGIN');
        await admin.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`runledger.append:${schema}`]);
        const pending = ledger.succeed({ runId: run.runId });
        let killed = 0;
        for (let i = 0; i < 100 && killed === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          const { rows } = await admin.query<{ n: number }>(
            `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'runledger' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          );
          killed = rows[0]?.n ?? 0;
        }
        await admin.query('COMMIT');
        expect(killed).toBe(1);
        await expect(pending).resolves.toMatchObject({ status: 'success' });
        expect(await pgEventCount(url)).toBe(5);
      } finally {
        await admin.end();
        await ledger.close();
      }
    });
  });
}
