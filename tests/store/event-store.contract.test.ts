import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ulid } from 'ulid';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { canonicalJson } from '../../events/canonical-json.js';
import { GENESIS_HASH } from '../../events/hash-chain.js';
import { hashedPart, type RecordedEvent } from '../../events/recorded-event.js';
import { verifyChain } from '../../src/audit/verify-chain.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { isLedgerError } from '../../src/errors.js';
import type { AppendRequest, AppendResult, EventStore, ExpectedVersion, NewEvent } from '../../src/store/event-store.js';
import { openStore } from '../../src/store/open-store.js';
import { appendFunctionSignature } from '../../src/store/postgres/postgres-append-function.js';
import { appendLockName } from '../../src/store/postgres/postgres-schema.js';
import { defined, metadata, started, succeeded, T0 } from './new-events.js';

// One contract, every adapter (Kysely-style): each adapter is a harness that
// knows how to name a fresh ledger and how to reach it with its raw driver.

const PG_URL = process.env['RUNLEDGER_TEST_PG_URL'];
const PG_SKIPPED = 'PostgreSQL contract tests skipped: set RUNLEDGER_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test';

type Harness = {
  name: 'sqlite' | 'postgres';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A `--db` value naming a ledger that does not exist yet. */
  fresh(): string;
  /** A `--db` value naming a database that exists and holds nothing. */
  empty(): string | Promise<string>;
  /** Runs SQL through the raw driver, bypassing runledger (creating the location if needed). */
  raw(db: string, sql: string): Promise<void>;
  /** Statements S1 says the database itself refuses. */
  tamperStatements: string[];
  /** `--db` values that are not ledgers at all, beyond a foreign `events` table. */
  foreign(): Array<{ label: string; db: string }>;
};

function sqliteHarness(): Harness {
  let dir = '';
  let n = 0;
  const next = () => join(dir, `ledger-${++n}.db`);
  return {
    name: 'sqlite',
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'runledger-contract-'));
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
    fresh: next,
    empty() {
      const path = next();
      writeFileSync(path, '');
      return path;
    },
    async raw(db, sql) {
      const raw = new Database(db);
      try {
        raw.exec(sql);
      } finally {
        raw.close();
      }
    },
    tamperStatements: ['UPDATE events SET payload = payload', 'DELETE FROM events WHERE position = 1', 'DELETE FROM events'],
    foreign() {
      const text = next();
      writeFileSync(text, 'date,rows\n2026-11-02,1200\n'.repeat(200));
      const other = next();
      const db = new Database(other);
      db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
      db.close();
      return [
        { label: 'a text file', db: text },
        { label: 'a SQLite database with unrelated tables', db: other },
      ];
    },
  };
}

function postgresHarness(baseUrl: string): Harness & { connect(db: string): Promise<pg.Client>; schemaOf(db: string): string } {
  // Every ledger of this run lives in its own schema `rl_test_<run>_<n>`; teardown drops them all.
  const run = `rl_test_${randomBytes(4).toString('hex')}`;
  let n = 0;
  const schemaOf = (db: string) => new URL(db).searchParams.get('schema') ?? 'public';
  async function connect(db: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    const schema = pg.escapeIdentifier(schemaOf(db));
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
    return client;
  }
  const fresh = () => {
    const url = new URL(baseUrl);
    url.searchParams.set('schema', `${run}_${++n}`);
    return url.toString();
  };
  return {
    name: 'postgres',
    connect,
    schemaOf,
    async setup() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.end();
    },
    async teardown() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1`, [`${run}\\_%`]);
        for (const { name } of rows) await client.query(`DROP SCHEMA ${pg.escapeIdentifier(name)} CASCADE`);
      } finally {
        await client.end();
      }
    },
    fresh,
    // An existing schema with nothing in it; a schema that does not exist is no ledger at all (notFound.ledger).
    async empty() {
      const db = fresh();
      await (await connect(db)).end();
      return db;
    },
    async raw(db, sql) {
      const client = await connect(db);
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
    tamperStatements: ['UPDATE events SET payload = payload', 'DELETE FROM events WHERE position = 1', 'DELETE FROM events', 'TRUNCATE events'],
    foreign: () => [],
  };
}

const pgHarness = PG_URL === undefined ? undefined : postgresHarness(PG_URL);
const harnesses: Harness[] = [sqliteHarness(), ...(pgHarness ? [pgHarness] : [])];

if (pgHarness === undefined) {
  console.warn(PG_SKIPPED);
  describe.skip(PG_SKIPPED, () => {
    test('the event store contract against PostgreSQL', () => undefined);
  });
}

function request(events: NewEvent[], expectedVersion: ExpectedVersion = 'any'): AppendRequest {
  const stream = events[0]?.stream;
  if (stream === undefined) throw new TypeError('request() needs at least one event');
  return { stream, expectedVersion, events };
}

function appended(result: AppendResult): RecordedEvent[] {
  if (!result.ok) throw new Error(`expected the append to succeed, got a conflict on ${result.conflict.stream}`);
  return result.events;
}

async function collect<T>(batches: AsyncIterable<T[]>): Promise<{ batches: T[][]; all: T[] }> {
  const out: T[][] = [];
  for await (const batch of batches) out.push(batch);
  return { batches: out, all: out.flat() };
}

async function positions(store: EventStore, filter: Parameters<EventStore['read']>[0] = {}): Promise<number[]> {
  return (await collect(store.read(filter))).all.map((e) => e.position);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A reader that resumes after the last position it saw, as a projection checkpoint does. */
function tailer(store: EventStore): { seen: number[]; next(): Promise<number[]> } {
  const seen: number[] = [];
  let cursor = 0;
  return {
    seen,
    async next() {
      const fresh: number[] = [];
      for await (const batch of store.read({ fromPosition: cursor + 1, batchSize: 7 })) {
        for (const event of batch) {
          fresh.push(event.position);
          cursor = event.position;
        }
      }
      seen.push(...fresh);
      return fresh;
    },
  };
}

async function expectLedgerError(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isLedgerError(error), `expected LedgerError ${code}, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  expect((error as Error).message).not.toContain('\n');
  return error as Error;
}

/** Appends a small ledger: two definitions, runs on two streams, a success with awkward metrics. */
async function seed(store: EventStore): Promise<void> {
  const run = started('orders', '2026-11-02');
  appended(await store.append([request([defined('orders')], 0), request([defined('billing')], 0)]));
  appended(await store.append([request([run, succeeded(run)], 0), request([started('billing', '2026-11-02')], 0)]));
  appended(await store.append([request([started('orders', '2026-11-03')], 0)]));
}

/**
 * Sets a harness up and down around a describe block and returns an `open`
 * whose stores are all closed after each test (or earlier, with `closeAll`).
 */
function useHarness(harness: { setup(): unknown; teardown(): unknown }) {
  const opened: EventStore[] = [];
  const closeAll = async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  };
  beforeAll(() => harness.setup());
  afterEach(closeAll);
  afterAll(() => harness.teardown());
  const open = async (db: string, create = true): Promise<EventStore> => {
    const store = await openStore(db, { create });
    opened.push(store);
    return store;
  };
  return { open, closeAll };
}

describe.each(harnesses)('$name event store contract', (harness) => {
  const { open } = useHarness(harness);

  test('when a ledger is new then it is empty with the genesis head', async () => {
    const store = await open(harness.fresh());
    expect(store.kind).toBe(harness.name);
    expect(await store.head()).toEqual({ position: 0, hash: GENESIS_HASH });
    expect(await positions(store)).toEqual([]);
    expect(await store.findRun('01NOPE')).toBeNull();
    expect(await store.positionAt('2030-01-01T00:00:00Z')).toBe(0);
  });

  test('when events are appended then they read back unchanged with gapless positions from 1, also after reopening', async () => {
    const db = harness.fresh();
    const store = await open(db);
    const run = started('orders', '2026-11-02');
    const first = await store.append([request([defined('orders')], 0)]);
    const second = await store.append([request([run, succeeded(run)], 0)]);

    const events = [...appended(first), ...appended(second)];
    expect(events.map((e) => e.position)).toEqual([1, 2, 3]);
    expect(first).toMatchObject({ ok: true, alreadyAppended: false, head: { position: 1, hash: events[0]?.hash } });
    expect(second).toMatchObject({ ok: true, alreadyAppended: false, head: { position: 3, hash: events[2]?.hash } });
    expect(events[2]).toMatchObject({ type: 'RunSucceeded', stream: 'orders/2026-11-02', streamVersion: 2, metadata });
    expect(events[2]?.data).toEqual(succeeded(run).data);

    expect((await collect(store.read())).all).toEqual(events);
    await store.close();
    const reopened = await open(db, false);
    expect((await collect(reopened.read({ validate: true }))).all).toEqual(events);
  });

  test('when a stream is appended to then its versions count from 1, and a wrong expected version is a conflict value that writes nothing', async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02');
    appended(await store.append([request([defined('orders')], 0)]));
    expect(appended(await store.append([request([run], 0)])).map((e) => e.streamVersion)).toEqual([1]);
    expect(appended(await store.append([request([succeeded(run)], 1)])).map((e) => e.streamVersion)).toEqual([2]);
    const head = await store.head();

    const stale = await store.append([request([started('orders', '2026-11-02')], 1)]);
    expect(stale).toEqual({ ok: false, conflict: { stream: 'orders/2026-11-02', expected: 1, actual: 2 } });
    const exists = await store.append([request([defined('orders')], 0)]);
    expect(exists).toEqual({ ok: false, conflict: { stream: 'orders', expected: 0, actual: 1 } });
    expect(await store.head()).toEqual(head);

    const any = appended(await store.append([request([started('orders', '2026-11-02')], 'any')]));
    expect(any.map((e) => [e.position, e.streamVersion])).toEqual([[4, 3]]);
  });

  test('when the second request of a multi-stream append conflicts then nothing of the first is written', async () => {
    const store = await open(harness.fresh());
    appended(await store.append([request([defined('orders')], 0)]));
    const head = await store.head();

    const result = await store.append([request([started('orders', '2026-11-02')], 0), request([started('orders', '2026-11-03')], 5)]);
    expect(result).toEqual({ ok: false, conflict: { stream: 'orders/2026-11-03', expected: 5, actual: 0 } });
    expect(await store.head()).toEqual(head);
    expect(await positions(store, { stream: 'orders/2026-11-02' })).toEqual([]);

    const both = appended(await store.append([request([started('orders', '2026-11-02')], 0), request([started('orders', '2026-11-03')], 0)]));
    expect(both.map((e) => [e.position, e.stream, e.streamVersion])).toEqual([
      [2, 'orders/2026-11-02', 1],
      [3, 'orders/2026-11-03', 1],
    ]);
  });

  test('when one append holds two requests for the same stream then their versions chain', async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02');
    const events = appended(await store.append([request([run], 0), request([succeeded(run)], 1)]));
    expect(events.map((e) => e.streamVersion)).toEqual([1, 2]);
    const stale = await store.append([request([started('orders', '2026-11-03')], 0), request([started('orders', '2026-11-03')], 0)]);
    expect(stale).toEqual({ ok: false, conflict: { stream: 'orders/2026-11-03', expected: 0, actual: 1 } });
  });

  test('when the same events are appended again then the stored ones come back and nothing is written', async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02');
    const requests = [request([defined('orders')], 0), request([run, succeeded(run)], 0)];
    const first = await store.append(requests);
    const head = await store.head();

    // A retry after a lost reply: the expected versions are stale by now, the ids decide.
    const retry = await store.append(requests);
    expect(retry).toEqual({ ok: true, events: appended(first), head, alreadyAppended: true });
    expect(await positions(store)).toEqual([1, 2, 3]);
  });

  test("when stored events are appended again at 'any' version then they come back as already appended, the lone new one after them is written", async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02');
    const done = succeeded(run);
    const first = await store.append([request([run, done])]);
    const head = await store.head();
    // No version tells this retry apart; the ids must, even where the store skips looking them up first.
    expect(await store.append([request([run, done])])).toEqual({ ok: true, events: appended(first), head, alreadyAppended: true });
    expect(await store.append([request([done])])).toEqual({ ok: true, events: appended(first).slice(1), head, alreadyAppended: true });
    const next = started('orders', '2026-11-03');
    expect(appended(await store.append([request([next])])).map((e) => e.position)).toEqual([3]);
    expect(await positions(store)).toEqual([1, 2, 3]);
  });

  test('when an append mixes stored and new event ids, or repeats an id, then it is refused as input.eventIdReused and writes nothing', async () => {
    const store = await open(harness.fresh());
    const known = defined('orders');
    appended(await store.append([request([known], 0)]));

    await expectLedgerError(store.append([request([known, started('orders', '2026-11-02')])]), 'input.eventIdReused');
    const twice = started('orders', '2026-11-03');
    await expectLedgerError(store.append([request([twice]), request([{ ...twice, stream: 'orders/2026-11-04' }])]), 'input.eventIdReused');
    expect(await positions(store)).toEqual([1]);
  });

  test('when appends made together mix new events, a conflict, a repeated append and a refused one then each gets its own answer and only the new events are stored', async () => {
    // Appends made in one turn of the event loop may share one commit (SQLite): one's refusal or conflict touches no other.
    const store = await open(harness.fresh());
    const known = defined('orders');
    const knownResult = appended(await store.append([request([known], 0)]));
    const head = await store.head();
    const twice = started('orders', '2026-11-09');
    const answers = await Promise.allSettled([
      store.append([request([started('orders', '2026-11-02')], 0)]),
      store.append([request([started('orders', '2026-11-03')], 5)]),
      store.append([request([known])]),
      store.append([request([known, started('orders', '2026-11-04')])]),
      store.append([request([twice]), request([{ ...twice, stream: 'orders/2026-11-10' }])]),
      store.append([request([started('orders', '2026-11-05')], 0)]),
    ]);
    const [first, conflict, repeated, mixed, reused, last] = answers;
    expect(first?.status === 'fulfilled' && first.value.ok && first.value.events.map((e) => e.stream)).toEqual(['orders/2026-11-02']);
    expect(conflict?.status === 'fulfilled' && conflict.value).toEqual({ ok: false, conflict: { stream: 'orders/2026-11-03', expected: 5, actual: 0 } });
    expect(repeated?.status === 'fulfilled' && repeated.value).toEqual({ ok: true, events: knownResult, head: expect.anything(), alreadyAppended: true });
    expect(mixed?.status === 'rejected' && isLedgerError(mixed.reason) && mixed.reason.code).toBe('input.eventIdReused');
    expect(reused?.status === 'rejected' && isLedgerError(reused.reason) && reused.reason.code).toBe('input.eventIdReused');
    expect(last?.status === 'fulfilled' && last.value.ok && last.value.events.map((e) => e.stream)).toEqual(['orders/2026-11-05']);
    expect(await positions(store)).toEqual([head.position, head.position + 1, head.position + 2]);
    // A later turn commits together too.
    const again = await Promise.all([store.append([request([started('orders', '2026-11-06')], 0)]), store.append([request([started('orders', '2026-11-07')], 0)]), store.append([request([started('orders', '2026-11-02')], 0)])]);
    expect(again.map((r) => r.ok)).toEqual([true, true, false]);
    // In the order they were made on SQLite; PostgreSQL commits concurrent appends in any order.
    const streams = (await collect(store.read())).all.map((e) => e.stream).sort();
    expect(streams).toEqual(['orders', 'orders/2026-11-02', 'orders/2026-11-05', 'orders/2026-11-06', 'orders/2026-11-07']);
  });

  test('when reads are batched then batches cross their boundaries in position order, with every filter', async () => {
    const store = await open(harness.fresh());
    const runs: NewEvent[] = [];
    appended(await store.append([request([defined('alpha')], 0), request([defined('beta')], 0)]));
    for (let day = 2; day <= 11; day++) {
      const date = `2026-11-${String(day).padStart(2, '0')}`;
      const a = started('alpha', date);
      const b = started('beta', date);
      runs.push(a, b);
      appended(await store.append([request([a], 0), request([b], 0)]));
    }
    const target = runs[6] as NewEvent; // alpha, 2026-11-05, positions 9 and then 23
    appended(await store.append([request([succeeded(target)], 1)]));

    const all = await collect(store.read({ batchSize: 4 }));
    expect(all.batches.map((b) => b.length)).toEqual([4, 4, 4, 4, 4, 3]);
    expect(all.all.map((e) => e.position)).toEqual(range(1, 23));
    expect((await collect(store.read({ batchSize: 23 }))).batches.map((b) => b.length)).toEqual([23]);
    expect((await collect(store.read({ batchSize: 1 }))).batches).toHaveLength(23);

    const beta = await collect(store.read({ pipeline: 'beta', batchSize: 3 }));
    expect(beta.batches.every((b) => b.length <= 3)).toBe(true);
    expect(beta.all.map((e) => e.position)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]);
    expect(beta.all.every((e) => e.data.pipeline === 'beta')).toBe(true);

    expect(await positions(store, { stream: 'alpha/2026-11-05', batchSize: 1 })).toEqual([9, 23]);
    const runId = target.type === 'RunStarted' ? target.data.runId : '';
    expect(await positions(store, { runId, batchSize: 1 })).toEqual([9, 23]);
    expect(await positions(store, { fromPosition: 5, toPosition: 13, batchSize: 4 })).toEqual(range(5, 13));
    expect(await positions(store, { pipeline: 'alpha', fromPosition: 10, toPosition: 20, batchSize: 2 })).toEqual([11, 13, 15, 17, 19]);
    expect(await positions(store, { pipeline: 'gamma' })).toEqual([]);
    expect(await positions(store, { fromPosition: 24 })).toEqual([]);
    // A type filter keeps only those types, with the others (batches count the rows kept, backward too).
    expect(await positions(store, { types: ['RunSucceeded'], batchSize: 1 })).toEqual([23]);
    expect(await positions(store, { pipeline: 'alpha', types: ['PipelineDefined', 'RunSucceeded'], batchSize: 1 })).toEqual([1, 23]);
    expect(await positions(store, { pipeline: 'beta', types: ['RunStarted'], toPosition: 10, batchSize: 2 })).toEqual([4, 6, 8, 10]);
    expect(await positions(store, { types: [] })).toEqual([]);
    const backward = (store.readBackward as NonNullable<EventStore['readBackward']>).call(store, { pipeline: 'alpha', types: ['PipelineDefined', 'RunSucceeded'], batchSize: 1 });
    expect((await collect(backward)).all.map((e) => e.position)).toEqual([23, 1]);

    const raw = await collect(store.readRaw({ fromPosition: 20, batchSize: 2 }));
    expect(raw.batches.map((b) => b.map((r) => r.position))).toEqual([[20, 21], [22, 23]]);
    expect((await collect(store.read({ validate: true, batchSize: 5 }))).all).toEqual(all.all);
  });

  test('when a run was started then findRun names its pipeline and stream', async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02', { runId: '01JRUNFINDME0000000000000' });
    appended(await store.append([request([defined('orders')]), request([run, succeeded(run)])]));
    expect(await store.findRun('01JRUNFINDME0000000000000')).toEqual({ pipeline: 'orders', stream: 'orders/2026-11-02' });
    expect(await store.findRun('01JRUNUNKNOWN000000000000')).toBeNull();
  });

  test('when the chain is re-walked from the stored text then every link is sha256(prevHash + payload) from the genesis hash to the head (S14)', async () => {
    const store = await open(harness.fresh());
    const run = started('orders', '2026-11-02');
    appended(await store.append([request([defined('orders')])]));
    appended(await store.append([request([run, succeeded(run)]), request([started('orders', '2026-11-03')])]));

    const raw = (await collect(store.readRaw({ batchSize: 2 }))).all;
    const events = (await collect(store.read())).all;
    expect(raw.map((r) => r.position)).toEqual([1, 2, 3, 4]);
    let prev = GENESIS_HASH;
    raw.forEach((row, i) => {
      expect(row.prevHash).toBe(prev);
      expect(row.hash).toBe(sha256Hex(row.prevHash + row.payload));
      // The stored text is the canonical text of the event, byte for byte (not a jsonb rewrite).
      expect(row.payload).toBe(canonicalJson(hashedPart(events[i] as RecordedEvent)));
      expect(JSON.parse(row.payload)).toMatchObject({ position: row.position });
      expect(events[i]).toMatchObject({ prevHash: row.prevHash, hash: row.hash });
      prev = row.hash;
    });
    expect(await store.head()).toEqual({ position: 4, hash: prev });
  });

  test('when asked for the position at an instant then it is the last position before the first event recorded after it', async () => {
    const store = await open(harness.fresh());
    const t1 = '2026-11-02T06:00:00.000Z';
    const t2 = '2026-11-02T07:00:00.000Z';
    const t3 = '2026-11-03T07:00:00.000Z';
    appended(await store.append([request([defined('orders', t1)])]));
    appended(await store.append([request([started('orders', '2026-11-02', { recordedAt: t2 })]), request([started('orders', '2026-11-03', { recordedAt: t2 })])]));
    appended(await store.append([request([started('orders', '2026-11-04', { recordedAt: t3 })])]));

    expect(await store.positionAt('2026-11-01T00:00:00Z')).toBe(0);
    expect(await store.positionAt(t1)).toBe(1);
    expect(await store.positionAt('2026-11-02T06:59:59.999Z')).toBe(1);
    expect(await store.positionAt(t2)).toBe(3);
    expect(await store.positionAt('2026-11-02T08:30:00+01:00')).toBe(3);
    expect(await store.positionAt(t3)).toBe(4);
    expect(await store.positionAt('2027-01-01T00:00:00Z')).toBe(4);
  });

  test('when an exported chain is imported into an empty ledger then it is stored verbatim and keeps its head hash', async () => {
    const source = await open(harness.fresh());
    await seed(source);
    const rows = (await collect(source.readRaw({ batchSize: 3 }))).all;

    const target = await open(harness.fresh());
    expect(await target.importSealed(rows)).toEqual(await source.head());
    expect((await collect(target.readRaw())).all).toEqual(rows);
    expect((await collect(target.read())).all).toEqual((await collect(source.read())).all);
    // The imported ledger goes on growing from the imported head.
    const next = appended(await target.append([request([started('orders', '2026-11-09')], 0)]));
    expect(next[0]).toMatchObject({ position: rows.length + 1, prevHash: rows.at(-1)?.hash });

    await expectLedgerError(target.importSealed(rows), 'ledger.notEmpty');
    // One edited metric in the middle of the chain: its hash no longer matches its payload.
    const broken = rows.map((r) => ({ ...r, payload: r.payload.replace('"rows":1200', '"rows":1201') }));
    expect(broken.filter((r, i) => r.payload !== rows[i]?.payload)).toHaveLength(1);
    const empty = await open(harness.fresh());
    await expectLedgerError(empty.importSealed(broken), 'input.brokenChain');
    expect(await empty.head()).toEqual({ position: 0, hash: GENESIS_HASH });
  });

  test('when a raw driver connection updates, deletes or truncates events then the database refuses it (S1)', async () => {
    const db = harness.fresh();
    const store = await open(db);
    appended(await store.append([request([defined('orders')]), request([started('orders', '2026-11-02')])]));
    const head = await store.head();
    for (const sql of harness.tamperStatements) {
      await expect(harness.raw(db, sql), sql).rejects.toThrow(/^runledger events are immutable: /);
      await expect(harness.raw(db, sql), sql).rejects.not.toThrow(/\(S\d+\)/);
    }
    await expect(harness.raw(db, `DELETE FROM runledger_meta`)).rejects.toThrow(/runledger_meta cannot be deleted/);
    expect(await store.head()).toEqual(head);
    expect(await positions(store)).toEqual([1, 2]);
  });

  test('when the database is not a ledger then opening it is refused as input.notALedger', async () => {
    const foreignEvents = harness.fresh();
    await harness.raw(foreignEvents, 'CREATE TABLE events (id INTEGER PRIMARY KEY, body TEXT)');
    const cases = [{ label: 'an unrelated events table', db: foreignEvents }, ...harness.foreign()];
    for (const { label, db } of cases) {
      for (const create of [true, false]) {
        const error = await expectLedgerError(openStore(db, { create }), 'input.notALedger');
        expect(error.message, label).toMatch(/not a runledger ledger/);
      }
    }
  });

  test('when the ledger has a newer schema version then opening it is refused as input.newerLedger', async () => {
    const db = harness.fresh();
    await (await openStore(db, { create: true })).close();
    await harness.raw(db, `UPDATE runledger_meta SET value = '99' WHERE key = 'schemaVersion'`);
    const error = await expectLedgerError(openStore(db, { create: false }), 'input.newerLedger');
    expect(error.message).toMatch(/schema version 99.*upgrade runledger/);
  });

  test('when an empty database is opened without create then it reads as an empty ledger and refuses appends', async () => {
    const db = await harness.empty();
    const store = await open(db, false);
    expect(await positions(store)).toEqual([]);
    expect((await collect(store.readRaw())).all).toEqual([]);
    expect(await store.head()).toEqual({ position: 0, hash: GENESIS_HASH });
    expect(await store.findRun('01NOPE')).toBeNull();
    expect(await store.positionAt('2030-01-01T00:00:00Z')).toBe(0);
    await expectLedgerError(store.append([request([defined('orders')])]), 'notFound.ledger');
  });

  test('when several processes open a new ledger at once then it is created once and all of them can append', async () => {
    const db = harness.fresh();
    const stores = await Promise.all(range(1, 6).map(() => open(db)));
    const results = await Promise.all(stores.map((s, i) => s.append([request([defined(`p${i}`)], 0)])));
    expect(results.map((r) => appended(r)[0]?.position).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(range(1, 6));
  });

  test('when many callers append concurrently through several store instances then positions are gapless, the chain is linear and a resuming reader misses nothing', async () => {
    const db = harness.fresh();
    const stores = await Promise.all(range(1, 4).map(() => open(db)));
    const first = stores[0] as EventStore;
    appended(await first.append([request([defined('load')], 0)]));

    const reader = tailer(first);
    let writing = true;
    const tailing = (async () => {
      while (writing) {
        await reader.next();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const callers = range(1, 48).map((i) => {
      const store = stores[i % stores.length] as EventStore;
      const date = new Date(Date.UTC(2026, 0, i)).toISOString().slice(0, 10);
      return store.append([request([started('load', date)], 0)]);
    });
    // Eight callers race to open the same stream: exactly one wins, the others get a conflict value.
    const contested = range(1, 8).map((i) => (stores[i % stores.length] as EventStore).append([request([started('load', '2027-06-01')], 0)]));
    const results = await Promise.all(callers);
    const race = await Promise.all(contested);
    writing = false;
    await tailing;
    await reader.next();

    expect(results.every((r) => r.ok)).toBe(true);
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    expect(race.filter((r) => !r.ok).map((r) => !r.ok && r.conflict)).toEqual(
      Array.from({ length: 7 }, () => ({ stream: 'load/2027-06-01', expected: 0, actual: 1 })),
    );
    expect(reader.seen).toEqual(range(1, 50));
    const raw = (await collect(first.readRaw({ batchSize: 16 }))).all;
    expect(raw.map((r) => r.position)).toEqual(range(1, 50));
    raw.forEach((row, i) => {
      expect(row.prevHash).toBe(i === 0 ? GENESIS_HASH : raw[i - 1]?.hash);
      expect(row.hash).toBe(sha256Hex(row.prevHash + row.payload));
    });
  });
});

describe.skipIf(pgHarness === undefined)('postgres only', () => {
  const harness = pgHarness as NonNullable<typeof pgHarness>;
  const { open, closeAll } = useHarness(harness);

  /** The two-int advisory key the test holds to park one append between its INSERT and its COMMIT. */
  const GATE = [7_007, 1] as const;

  async function gateWaiters(control: pg.Client): Promise<number> {
    const { rows } = await control.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2 AND classid::bigint = $1 AND objid::bigint = $2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [GATE[0], GATE[1]],
    );
    return rows[0]?.n ?? 0;
  }

  async function appendLockWaiters(control: pg.Client, schema: string): Promise<number> {
    // A bigint advisory key shows in pg_locks as its high half in classid, its low half in objid, objsubid 1.
    const { rows } = await control.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks, (SELECT hashtextextended($1, 0) AS k) AS key
       WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
         AND classid::bigint = ((key.k >> 32) & 4294967295) AND objid::bigint = (key.k & 4294967295)
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [appendLockName(schema)],
    );
    return rows[0]?.n ?? 0;
  }

  async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 3_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await condition()) return true;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return false;
  }

  // Dagster, Emmett and Marten each shipped this bug: ids from a sequence are handed out at INSERT
  // but become visible at COMMIT, so a transaction that took id 2 and commits after the one that
  // took id 3 is skipped by a reader whose cursor already moved to 3. Here the first append is
  // parked after its INSERT (a test-only trigger waits on a lock the test holds); the second
  // append must queue behind it instead of committing a higher position first.
  test('when an earlier append commits late then a reader resuming from its last position still sees every event, in order', async () => {
    const db = harness.fresh();
    const reader = await open(db);
    const writerA = await open(db);
    const writerB = await open(db);
    appended(await reader.append([request([defined('late')], 0)]));
    const tail = tailer(reader);
    expect(await tail.next()).toEqual([1]);

    const a = started('late', '2026-11-02');
    const b = started('late', '2026-11-03');
    const control = await harness.connect(db);
    const pending: Array<Promise<AppendResult>> = [];
    try {
      await control.query(
        `CREATE FUNCTION park_append() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_advisory_xact_lock_shared(${GATE[0]}, ${GATE[1]}); RETURN NULL; END $$`,
      );
      await control.query(
        `CREATE TRIGGER park_append AFTER INSERT ON events FOR EACH ROW
         WHEN (NEW.event_id = ${pg.escapeLiteral(a.eventId)}) EXECUTE FUNCTION park_append()`,
      );
      await control.query('SELECT pg_advisory_lock($1, $2)', [GATE[0], GATE[1]]);

      const appendA = writerA.append([request([a], 0)]);
      pending.push(appendA);
      expect(await waitFor(async () => (await gateWaiters(control)) === 1), 'append A parked after its INSERT').toBe(true);

      let bSettled = false;
      const appendB = writerB.append([request([b], 0)]);
      pending.push(appendB);
      void appendB.then(
        () => (bSettled = true),
        () => (bSettled = true),
      );
      expect(await waitFor(async () => bSettled || (await appendLockWaiters(control, harness.schemaOf(db))) === 1)).toBe(true);
      expect(bSettled, 'append B must wait for A instead of committing a later position first').toBe(false);
      expect(await tail.next(), 'nothing past position 1 is visible while A is open').toEqual([]);

      await control.query('SELECT pg_advisory_unlock($1, $2)', [GATE[0], GATE[1]]);
      const [resultA, resultB] = await Promise.all([appendA, appendB]);
      expect(appended(resultA).map((e) => e.position)).toEqual([2]);
      expect(appended(resultB).map((e) => e.position)).toEqual([3]);
      expect(await tail.next()).toEqual([2, 3]);
      expect(tail.seen).toEqual(await positions(reader));
      expect(appended(resultB)[0]?.prevHash).toBe(appended(resultA)[0]?.hash);
    } finally {
      // Ending the control session drops the gate, so a failed run still lets both appends finish.
      await control.end();
      await Promise.allSettled(pending);
    }
  }, 20_000);

  // PostgreSQL builds each payload and hashes it on the server (one round trip per append); SQLite
  // seals in Node. The same events appended the same way must give the same bytes and the same chain.
  // With the read models on, the append sends its values written into the SQL text: the odd text must
  // come through that as it does as parameters, into the events and into the rows.
  test.each(['off', 'on'])('when the same appends go to SQLite and to PostgreSQL (read models %s) then payloads and hashes are byte for byte the same and verify passes', async (models) => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-same-chain-'));
    try {
      const sqlite = await open(join(dir, 'same.db'));
      const postgres = await open(harness.fresh());
      if (models === 'on') expect(await postgres.readModels?.ensure()).toBe(true);
      const odd = 'zoë ☃ 😀 \u00e9 "quoted" back\\slash\nnew line\ttab \u0001 \ud83d lone \u2028 <script>';
      const a = { ...started('uni', '2026-11-02'), metadata: { ...metadata, reason: 'ünïcode ✓' } };
      const events = [
        [request([defined('uni')], 0), request([defined('plain')], 'any')],
        [request([a, succeeded(a)], 0), request([{ ...started('plain', '2026-11-02'), metadata: { ...metadata, reason: odd } }], 0)],
        [request([started('uni', '2026-11-03')], 0), request([started('uni', '2026-11-04')], 'any')],
      ];
      const copies = events.map((appendRequests) => appendRequests.map((r) => ({ ...r, events: r.events.map((e) => structuredClone(e)) })));
      for (const appendRequests of events) appended(await sqlite.append(appendRequests));
      for (const appendRequests of copies) {
        const result = appended(await postgres.append(appendRequests));
        // The events handed back are the stored ones, hashes included.
        const stored = (await collect(postgres.read({ fromPosition: result[0]?.position ?? 0, toPosition: result.at(-1)?.position ?? 0 }))).all;
        expect(result).toEqual(stored);
      }
      const ours = (await collect(postgres.readRaw())).all;
      expect(ours.map(({ position, payload, prevHash, hash }) => ({ position, payload, prevHash, hash }))).toEqual(
        (await collect(sqlite.readRaw())).all.map(({ position, payload, prevHash, hash }) => ({ position, payload, prevHash, hash })),
      );
      expect(ours.find((row) => row.payload.includes('zoë'))?.payload).toContain(JSON.stringify(odd));
      const report = await verifyChain(postgres.readRaw({ batchSize: 3 }), { sha256: sha256Hex });
      expect(report).toMatchObject({ ok: true, problem: null, events: 7, head: await sqlite.head() });
      // A conflict is reported with the stream's actual version, counting earlier requests of the same append.
      const again = await postgres.append([request([started('uni', '2026-11-05')], 0), request([started('uni', '2026-11-05')], 0)]);
      expect(again).toEqual({ ok: false, conflict: { stream: 'uni/2026-11-05', expected: 0, actual: 1 } });
      expect(await sqlite.append([request([started('uni', '2026-11-05')], 0), request([started('uni', '2026-11-05')], 0)])).toEqual(again);
      if (models === 'on') {
        // Odd text into the rows, through the SQL text (no lone surrogate: PostgreSQL's json refuses one, as a parameter too).
        const run = events[1]?.[1]?.events[0] as NewEvent & { data: { runId: string } };
        const error = `zoë ☃ 😀 "quoted" back\\slash\nnew line\ttab \u0001 \u2028 'single' $$ $fn$ \\x00 E'\\n' <script>`;
        const failure: NewEvent = { type: 'RunFailed', schemaVersion: 1, eventId: ulid(), stream: run.stream, recordedAt: T0, metadata, data: { pipeline: 'plain', date: '2026-11-02', runId: run.data.runId, error, code: "it's" } };
        appended(await postgres.append([request([failure])]));
        const stored = await postgres.readModels?.storedRows('plain');
        expect(stored?.dates.map((row) => [row.date, row.status, row.error_excerpt])).toEqual([['2026-11-02', 'failed', error]]);
        expect(await verifyProjections(postgres)).toMatchObject({ ok: true, difference: null });
      }
    } finally {
      await closeAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when the append function is missing and the role may not create it then appends still work, in a client-side transaction', async () => {
    const db = harness.fresh();
    const schema = harness.schemaOf(db);
    const owner = await open(db);
    appended(await owner.append([request([defined('orders')], 0)]));
    const control = await harness.connect(db);
    const role = `rl_app_${randomBytes(4).toString('hex')}`;
    const installed = async () => (await control.query<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [appendFunctionSignature(schema)])).rows[0]?.f ?? null;
    try {
      // The owner's first append installed the function; an older ledger has none.
      expect(await installed()).not.toBeNull();
      await control.query(`DROP FUNCTION ${appendFunctionSignature(schema)}`);
      await control.query(`CREATE ROLE ${role} LOGIN`);
      await control.query(`GRANT USAGE ON SCHEMA ${pg.escapeIdentifier(schema)} TO ${role}`);
      await control.query(`GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA ${pg.escapeIdentifier(schema)} TO ${role}`);
      const asApp = new URL(db);
      asApp.username = role;
      const app = await open(asApp.toString(), false);
      const run = started('orders', '2026-11-02');
      expect(appended(await app.append([request([run, succeeded(run)], 0)])).map((e) => e.position)).toEqual([2, 3]);
      expect(await app.append([request([started('orders', '2026-11-02')], 0)])).toMatchObject({ ok: false, conflict: { actual: 2 } });
      expect(await installed()).toBeNull();
      expect(await verifyChain(app.readRaw(), { sha256: sha256Hex })).toMatchObject({ ok: true, events: 3 });
      await app.close();
    } finally {
      await closeAll();
      await control.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await control.query(`DROP ROLE IF EXISTS ${role}`);
      await control.end();
    }
  });

  test('when a ledger moves from SQLite to PostgreSQL and back then the head hash is unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-move-'));
    try {
      const sqlite = await open(join(dir, 'from.db'));
      await seed(sqlite);
      const rows = (await collect(sqlite.readRaw())).all;
      const postgres = await open(harness.fresh());
      expect(await postgres.importSealed(rows)).toEqual(await sqlite.head());
      const back = await open(join(dir, 'back.db'));
      expect(await back.importSealed((await collect(postgres.readRaw({ batchSize: 2 }))).all)).toEqual(await sqlite.head());
      expect((await collect(back.readRaw())).all).toEqual(rows);
    } finally {
      await closeAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when a schema holds unrelated tables but no events table then a ledger is created beside them', async () => {
    const db = harness.fresh();
    await harness.raw(db, 'CREATE TABLE customers (id integer PRIMARY KEY, name text)');
    const store = await open(db);
    expect(appended(await store.append([request([defined('orders')], 0)])).map((e) => e.position)).toEqual([1]);
  });

  test('when the payload is stored then it is text, not jsonb, so the hashed bytes survive', async () => {
    const db = harness.fresh();
    await open(db);
    const control = await harness.connect(db);
    try {
      const { rows } = await control.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
        [harness.schemaOf(db)],
      );
      expect(Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]))).toEqual({
        position: 'bigint',
        event_id: 'text',
        stream: 'text',
        stream_version: 'integer',
        pipeline: 'text',
        run_id: 'text',
        type: 'text',
        recorded_at: 'text',
        payload: 'text',
        prev_hash: 'text',
        hash: 'text',
        signature: 'text',
      });
    } finally {
      await control.end();
    }
  });

  const missingDatabase = (() => {
    const url = new URL(PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    url.password = 's3cret-pw';
    url.pathname = `/rl_missing_${randomBytes(3).toString('hex')}`;
    return url.toString();
  })();
  test.each([
    { label: 'an unreachable server', url: 'postgres://runledger:s3cret-pw@127.0.0.1:1/test', message: /cannot reach PostgreSQL at 127\.0\.0\.1:1: connection refused/ },
    { label: 'a missing database', url: missingDatabase, message: /database "rl_missing_\w+" does not exist/ },
  ])('when the URL names $label then opening fails as notFound.database (exit 4) without the password', async ({ url, message }) => {
    const error = await expectLedgerError(openStore(url, { create: false }), 'notFound.database');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('s3cret');
    expect((error as unknown as { exitCode: number }).exitCode).toBe(4);
  });

  test('when a store is closed twice then the second close is a no-op', async () => {
    const store = await openStore(harness.fresh(), { create: true });
    await store.close();
    await store.close();
  });
});
