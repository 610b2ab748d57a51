// SQLite appends made in one turn of the event loop after the first share one transaction, each in its own savepoint
// (src/store/sqlite/sqlite-event-store.ts). What a failure does to such a turn: an append is answered as stored only
// once its data is committed, and a turn that cannot commit fails every append of it, with nothing of it stored and the
// chain and read models as they were. Faults are made for real where SQLite allows (a write lock held by another
// connection) and injected through the signer, which runs inside each append's savepoint, where it does not.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { setImmediate as realImmediate } from 'node:timers';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect, test, vi } from 'vitest';
import { verifyChain } from '../../src/audit/verify-chain.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { isLedgerError } from '../../src/errors.js';
import type { AppendRequest, EventStore, NewEvent } from '../../src/store/event-store.js';
import type { EventSigner } from '../../src/store/event-signer.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { tempDir } from '../support/run-cli.js';
import { defined, started } from './new-events.js';

const dir = tempDir('runledger-append-turn-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
let n = 0;

const request = (event: NewEvent): AppendRequest[] => [{ stream: event.stream, expectedVersion: 0, events: [event] }];

/** A signer whose `sign` runs `hook` first: called inside the append's savepoint, once per event, in position order. */
function hookedSigner(): { signer: EventSigner; hook: { run: ((hash: string) => void) | null } } {
  const hook: { run: ((hash: string) => void) | null } = { run: null };
  return { signer: { scheme: 'hmac-sha256', sign: (hash) => (hook.run?.(hash), `hmac-sha256:${hash}`) }, hook };
}

/** The end of this turn of the event loop: the next append is the first of a turn, committed at once. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function storedStreams(store: EventStore): Promise<string[]> {
  const streams: string[] = [];
  for await (const batch of store.read()) streams.push(...batch.map((e) => e.stream));
  return streams;
}

async function expectConsistent(store: EventStore): Promise<void> {
  expect(await verifyChain(store.readRaw(), { sha256: (text) => createHash('sha256').update(text).digest('hex') })).toMatchObject({ ok: true });
  expect(await verifyProjections(store)).toMatchObject({ ok: true, difference: null });
}

test('an append of a turn is answered only once another connection can read it: its commit came first', async () => {
  const path = join(dir, `ledger-${++n}.db`);
  const store = openSqliteStore({ path, create: true });
  await store.append(request(defined('etl')));
  await nextTurn();
  const other = new Database(path, { readonly: true });
  const countNow = () => other.prepare('SELECT count(*) FROM events').pluck().get() as number;
  const seenAtAnswer: number[] = [];
  const dates = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'];
  await Promise.all(dates.map((date) => store.append(request(started('etl', date))).then(() => seenAtAnswer.push(countNow()))));
  // The first commits at once; the other three together, all stored before any of them is answered.
  expect(seenAtAnswer).toEqual([2, 5, 5, 5]);
  other.close();
  await expectConsistent(store);
  await store.close();
});

test('a turn whose transaction cannot begin (another connection holds the write lock) fails every append of it, none stored', async () => {
  const path = join(dir, `ledger-${++n}.db`);
  const store = openSqliteStore({ path, create: true, busyTimeoutMs: 20 });
  await store.append(request(defined('etl')));
  await nextTurn();
  const other = new Database(path);
  const first = store.append(request(started('etl', '2026-11-01')));
  other.exec('BEGIN IMMEDIATE');
  const late = [started('etl', '2026-11-02'), started('etl', '2026-11-03')];
  const answers = await Promise.allSettled([first, ...late.map((event) => store.append(request(event)))]);
  other.exec('ROLLBACK');
  other.close();
  expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  for (const a of answers.slice(1)) expect(a.status === 'rejected' && isLedgerError(a.reason) && a.reason.code).toBe('store.busy');
  expect(await storedStreams(store)).toEqual(['etl', 'etl/2026-11-01']);
  await expectConsistent(store);
  // Retried, they are new appends, and the read models take them.
  const again = await Promise.all(late.map((event) => store.append(request(event))));
  expect(again.map((r) => r.ok && !r.alreadyAppended)).toEqual([true, true]);
  expect(await storedStreams(store)).toEqual(['etl', 'etl/2026-11-01', 'etl/2026-11-02', 'etl/2026-11-03']);
  await expectConsistent(store);
  await store.close();
});

test('an error thrown inside one append of a turn fails that append alone; the rest commit with a gapless chain', async () => {
  const path = join(dir, `ledger-${++n}.db`);
  const { signer, hook } = hookedSigner();
  const store = openSqliteStore({ path, create: true, signer });
  await store.append(request(defined('etl')));
  await nextTurn();
  let calls = 0;
  // The third event signed this turn is the second of the savepoints: the first is committed at once.
  hook.run = () => {
    if (++calls === 3) throw new Error('injected: signing failed');
  };
  const dates = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'];
  const answers = await Promise.allSettled(dates.map((date) => store.append(request(started('etl', date)))));
  hook.run = null;
  expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect(answers[2]?.status === 'rejected' && (answers[2].reason as Error).message).toBe('injected: signing failed');
  const positions = answers.flatMap((a) => (a.status === 'fulfilled' && a.value.ok ? a.value.events.map((e) => e.position) : []));
  expect(positions).toEqual([2, 3, 4]);
  expect(await storedStreams(store)).toEqual(['etl', 'etl/2026-11-01', 'etl/2026-11-02', 'etl/2026-11-04']);
  await expectConsistent(store);
  await store.close();
});

test('a turn that SQLite rolls back whole midway (an I/O error, a full disk) fails every append of it, even those before', async () => {
  const path = join(dir, `ledger-${++n}.db`);
  // The store's own connection, to roll its transaction back as SQLite does by itself on some errors.
  let own: Database.Database | undefined;
  const pragma = Database.prototype.pragma;
  vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (this: Database.Database, ...args: Parameters<typeof pragma>) {
    own ??= this;
    return pragma.apply(this, args);
  });
  const { signer, hook } = hookedSigner();
  const store = openSqliteStore({ path, create: true, signer });
  await store.append(request(defined('etl')));
  await nextTurn();
  let calls = 0;
  hook.run = () => {
    if (++calls !== 3) return;
    own?.exec('ROLLBACK');
    throw Object.assign(new Error('injected: disk I/O error'), { code: 'SQLITE_IOERR' });
  };
  const dates = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'];
  const answers = await Promise.allSettled(dates.map((date) => store.append(request(started('etl', date)))));
  hook.run = null;
  expect(own).toBeDefined();
  expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
  expect(await storedStreams(store)).toEqual(['etl', 'etl/2026-11-01']);
  await expectConsistent(store);
  const again = await store.append(request(started('etl', '2026-11-02')));
  expect(again.ok && again.events[0]?.position).toBe(3);
  await expectConsistent(store);
  await store.close();
});

test('closing the store commits the appends still waiting for their turn, and answers them', async () => {
  const path = join(dir, `ledger-${++n}.db`);
  const store = openSqliteStore({ path, create: true });
  await store.append(request(defined('etl')));
  await nextTurn();
  const answers = ['2026-11-01', '2026-11-02', '2026-11-03'].map((date) => store.append(request(started('etl', date))));
  await store.close();
  expect((await Promise.all(answers)).map((r) => r.ok)).toEqual([true, true, true]);
  const reopened = openSqliteStore({ path, create: false });
  expect(await storedStreams(reopened)).toEqual(['etl', 'etl/2026-11-01', 'etl/2026-11-02', 'etl/2026-11-03']);
  await expectConsistent(reopened);
  await reopened.close();
});

test("appends made together are answered under a test's fake timers (the turn's end is Node's own setImmediate)", async () => {
  // A library user's tests often fake the global timers (vi.useFakeTimers, jest's modern timers fake setImmediate):
  // the turn's commit must not wait for a timer the test never advances, or the appends are never answered.
  const path = join(dir, `ledger-${++n}.db`);
  const store = openSqliteStore({ path, create: true });
  await store.append(request(defined('etl')));
  await nextTurn();
  vi.useFakeTimers();
  try {
    let answer: unknown = 'not answered';
    void Promise.all(['2026-11-01', '2026-11-02', '2026-11-03'].map((date) => store.append(request(started('etl', date))))).then((results) => (answer = results.map((r) => r.ok)));
    // Two real ends of a turn later, the turn has been committed and every append answered.
    for (let i = 0; i < 2; i++) await new Promise((resolve) => realImmediate(resolve));
    expect(answer).toEqual([true, true, true]);
  } finally {
    vi.useRealTimers();
    await store.close();
  }
});
