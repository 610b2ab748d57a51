import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import type { StateView } from '../../src/ledger/ledger-types.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// Issue 2's ledger behaviour (S2–S8, S13) through the library facade, one
// suite looped over every store adapter (Kysely-style). The store contract
// (tests/store/) proves the port; this proves that what users see through
// `openLedger` does not depend on which database sits behind it.

type Adapter = {
  name: 'sqlite' | 'postgres';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A `db` value naming a ledger nobody has used yet. */
  fresh(): Promise<string>;
};

function sqliteAdapter(): Adapter {
  let dir = '';
  let n = 0;
  return {
    name: 'sqlite',
    async setup() {
      dir = tempDir('runledger-ledger-contract-');
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
    fresh: async () => join(dir, `ledger-${++n}.db`),
  };
}

function postgresAdapter(baseUrl: string): Adapter {
  // One schema rl_test_<run>_<n> per test; all of them dropped after the suite.
  const schemas = pgSchemas(baseUrl);
  return { name: 'postgres', setup: async () => undefined, teardown: () => schemas.dropAll(), fresh: () => schemas.fresh() };
}

const adapters: Adapter[] = [sqliteAdapter(), ...(TEST_PG_URL === undefined ? [] : [postgresAdapter(TEST_PG_URL)])];

if (TEST_PG_URL === undefined) {
  const message = pgSkipMessage('the ledger contract');
  console.warn(message);
  describe.skip(message, () => {
    test('the ledger contract against PostgreSQL', () => undefined);
  });
}

const NOW = '2026-11-05T01:00:00+07:00';
const HOUR = 3_600_000;
const ETL_ORDERS = { pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' };

/** The reason a promise was rejected, so tests can assert on its stable code. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; exitCode: number; message: string }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal, but the operation succeeded');
    },
    (e: unknown) => e,
  );
  return error as { code: string; exitCode: number; message: string };
}

function statuses(view: StateView): Array<[string, string]> {
  return view.dates.map((d) => [d.date, d.status]);
}

describe.each(adapters)('ledger contract on $name', (adapter) => {
  const opened: Ledger[] = [];
  beforeAll(() => adapter.setup());
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()?.close();
  });
  afterAll(() => adapter.teardown());

  /** A fresh ledger with etl_orders defined, whose clock reads `now` until `at` moves it. */
  async function given(now = NOW): Promise<{ ledger: Ledger; db: string; at(instant: string): void; head(): Promise<number> }> {
    let nowMs = Date.parse(now);
    const db = await adapter.fresh();
    const ledger = await openLedger({ db, clock: () => nowMs, actor: 'contract' });
    opened.push(ledger);
    await ledger.define(ETL_ORDERS);
    return {
      ledger,
      db,
      at: (instant) => void (nowMs = Date.parse(instant)),
      head: async () => (await ledger.store.head()).position,
    };
  }

  async function succeeded(ledger: Ledger, date: string, metrics: Record<string, unknown> = {}): Promise<string> {
    const { runId } = await ledger.start({ pipeline: 'etl_orders', date });
    await ledger.succeed({ runId, metrics });
    return runId;
  }

  test('when a pipeline is defined then defining it again unchanged writes nothing, and a change is a redefinition', async () => {
    const { ledger, head } = await given();
    expect(await head()).toBe(1);
    expect((await ledger.define(ETL_ORDERS)).outcome).toBe('unchanged');
    expect(await head()).toBe(1);
    const redefined = await ledger.define({ ...ETL_ORDERS, start: '2026-11-03' });
    expect(redefined.outcome).toBe('redefined');
    expect(redefined.changes.map((c) => c.field)).toContain('start');
    expect((await ledger.pipelines()).map((p) => [p.pipeline, p.timezone])).toEqual([['etl_orders', 'Asia/Jakarta']]);
  });

  test('when the scheduler missed three days then pending lists them as missing, each with its run-after and data interval (S7)', async () => {
    const { ledger } = await given();
    const view = await ledger.pending({ pipeline: 'etl_orders' });
    expect(view).toMatchObject({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', inFlight: [] });
    expect(view.pending).toEqual([
      { date: '2026-11-02', reason: 'missing', logicalDate: '2026-11-02T00:00:00+07:00', runAfter: '2026-11-03T00:00:00+07:00', dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' } },
      { date: '2026-11-03', reason: 'missing', logicalDate: '2026-11-03T00:00:00+07:00', runAfter: '2026-11-04T00:00:00+07:00', dataInterval: { start: '2026-11-03T00:00:00+07:00', end: '2026-11-04T00:00:00+07:00' } },
      { date: '2026-11-04', reason: 'missing', logicalDate: '2026-11-04T00:00:00+07:00', runAfter: '2026-11-05T00:00:00+07:00', dataInterval: { start: '2026-11-04T00:00:00+07:00', end: '2026-11-05T00:00:00+07:00' } },
    ]);
  });

  test('when runs start, succeed, fail and are cleared then each date shows the status of its latest generation (S2)', async () => {
    const { ledger } = await given();
    const running = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
    const failing = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await ledger.fail({ runId: failing.runId, error: 'upstream file missing', code: 'E_UPSTREAM' });
    await succeeded(ledger, '2026-11-04', { rows: 1200 });
    let state = await ledger.state({ pipeline: 'etl_orders' });
    expect(statuses(state)).toEqual([
      ['2026-11-02', 'running'],
      ['2026-11-03', 'failed'],
      ['2026-11-04', 'success'],
    ]);
    expect(state.dates[0]).toMatchObject({ runId: running.runId, attempt: 1, attempts: 1, runType: 'scheduled', finishedAt: null });
    expect(state.dates[1]).toMatchObject({ error: 'upstream file missing', errorCode: 'E_UPSTREAM' });
    expect(state.dates[2]).toMatchObject({ metrics: { rows: 1200 }, dataInterval: { start: '2026-11-04T00:00:00+07:00', end: '2026-11-05T00:00:00+07:00' } });

    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-02', '2026-11-03', '2026-11-04'], reason: 'bad upstream file' });
    state = await ledger.state({ pipeline: 'etl_orders' });
    expect(statuses(state)).toEqual([
      ['2026-11-02', 'cleared'],
      ['2026-11-03', 'cleared'],
      ['2026-11-04', 'cleared'],
    ]);
    const retry = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    expect(retry.attempt).toBe(2);
    expect(statuses(await ledger.state({ pipeline: 'etl_orders' }))[1]).toEqual(['2026-11-03', 'running']);
  });

  test('when older dates are backfilled, a date fails or a date is cleared then the watermark never goes down (S5)', async () => {
    const { ledger } = await given();
    const watermark = async () => (await ledger.watermark({ pipeline: 'etl_orders' })).watermark;
    expect(await watermark()).toBeNull();
    await succeeded(ledger, '2026-11-04');
    expect(await watermark()).toBe('2026-11-04');
    await succeeded(ledger, '2026-11-02');
    expect(await watermark()).toBe('2026-11-04');
    const failing = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await ledger.fail({ runId: failing.runId, error: 'boom' });
    expect(await watermark()).toBe('2026-11-04');
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-04'] });
    expect(await watermark()).toBe('2026-11-04');
  });

  test.each([
    { label: 'nothing done', done: [], cleared: [], completeThrough: null },
    { label: 'only the latest date', done: ['2026-11-04'], cleared: [], completeThrough: null },
    { label: 'the first date', done: ['2026-11-02'], cleared: [], completeThrough: '2026-11-02' },
    { label: 'first and last, a gap between', done: ['2026-11-02', '2026-11-04'], cleared: [], completeThrough: '2026-11-02' },
    { label: 'every date', done: ['2026-11-02', '2026-11-03', '2026-11-04'], cleared: [], completeThrough: '2026-11-04' },
    { label: 'every date, then the last cleared', done: ['2026-11-02', '2026-11-03', '2026-11-04'], cleared: ['2026-11-04'], completeThrough: '2026-11-03' },
    { label: 'every date, then the middle cleared', done: ['2026-11-02', '2026-11-03', '2026-11-04'], cleared: ['2026-11-03'], completeThrough: '2026-11-02' },
  ])('when $label succeeded then complete-through is $completeThrough (S6)', async ({ done, cleared, completeThrough }) => {
    const { ledger } = await given();
    for (const date of done) await succeeded(ledger, date);
    if (cleared.length > 0) await ledger.clear({ pipeline: 'etl_orders', dates: cleared });
    expect((await ledger.watermark({ pipeline: 'etl_orders' })).completeThrough).toBe(completeThrough);
  });

  test('when a run that was cleared while running reports success then it is refused and nothing is written (S3, S8)', async () => {
    const { ledger, head } = await given();
    const { runId } = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' });
    const clear = await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-04'], reason: 'bad upstream file' });
    expect(clear.cleared).toEqual([{ date: '2026-11-04', runId, previousStatus: 'running' }]);
    const before = await head();
    for (const late of [() => ledger.succeed({ runId }), () => ledger.fail({ runId, error: 'late' }), () => ledger.heartbeat({ runId })]) {
      const error = await refusal(late());
      expect(error).toMatchObject({ code: 'ledger.staleRun', exitCode: 3 });
      expect(error.message).toMatch(/was cleared/);
    }
    expect(await head()).toBe(before);
    expect(statuses(await ledger.state({ pipeline: 'etl_orders' })).at(-1)).toEqual(['2026-11-04', 'cleared']);
  });

  test('when a superseded attempt reports success then it is refused naming the current run (S3)', async () => {
    const { ledger, head } = await given();
    const first = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await ledger.fail({ runId: first.runId, error: 'upstream file missing' });
    const second = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    expect(second.attempt).toBe(2);
    const before = await head();
    const error = await refusal(ledger.succeed({ runId: first.runId }));
    expect(error.code).toBe('ledger.staleRun');
    expect(error.message).toContain(second.runId);
    expect(await head()).toBe(before);
  });

  test('when the same success is reported twice then the second is a no-op: no event, no error (S3)', async () => {
    const { ledger, head } = await given();
    const { runId } = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
    expect(await ledger.succeed({ runId, metrics: { rows: 7 } })).toMatchObject({ status: 'success', repeated: false });
    const after = await head();
    expect(await ledger.succeed({ runId, metrics: { rows: 7 } })).toMatchObject({ status: 'success', repeated: true });
    expect(await head()).toBe(after);
    expect(await refusal(ledger.fail({ runId, error: 'too late' }))).toMatchObject({ code: 'ledger.runFinished' });
  });

  test('when a date is running then a second start is refused naming the running run (S4)', async () => {
    const { ledger, head } = await given();
    const { runId } = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    const before = await head();
    const error = await refusal(ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' }));
    expect(error).toMatchObject({ code: 'ledger.alreadyRunning', exitCode: 3 });
    expect(error.message).toContain(runId);
    expect(await head()).toBe(before);
  });

  test('when a date succeeded then a start without force is refused and a forced start reprocesses it as a new, recorded attempt (S4)', async () => {
    const { ledger, head } = await given();
    const first = await succeeded(ledger, '2026-11-03');
    const before = await head();
    const error = await refusal(ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' }));
    expect(error).toMatchObject({ code: 'ledger.alreadySucceeded', exitCode: 3 });
    expect(error.message).toMatch(/--force/);
    expect(await head()).toBe(before);
    const forced = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03', force: true, reason: 'reprocess after fix' });
    expect(forced).toMatchObject({ attempt: 2, forced: true, takeoverOf: null });
    const { events } = await ledger.log({ pipeline: 'etl_orders', types: ['RunStarted'], date: '2026-11-03' });
    expect(events.map((e) => (e.type === 'RunStarted' ? [e.data.runId, e.data.force] : null))).toEqual([
      [first, false],
      [forced.runId, true],
    ]);
    expect(events.at(-1)?.metadata.reason).toBe('reprocess after fix');
    // The watermark stays while the reprocess runs (S5).
    expect((await ledger.watermark({ pipeline: 'etl_orders' })).watermark).toBe('2026-11-03');
  });

  test.each([
    { label: 'a future logical date', date: '2026-11-06', code: 'ledger.futureDate' },
    { label: 'a date not yet due', date: '2026-11-05', code: 'ledger.notDue' },
    { label: 'an instant that is not a slot', date: '2026-11-03T12:00:00+07:00', code: 'ledger.notASlot' },
  ])('when a scheduled run names $label then the start is refused as $code (S4)', async ({ date, code }) => {
    const { ledger, head } = await given();
    expect(await refusal(ledger.start({ pipeline: 'etl_orders', date }))).toMatchObject({ code, exitCode: 3 });
    expect(await head()).toBe(1);
  });

  test('when a running run lets its lease expire then it is stalled, a new start takes over, and the old run is abandoned and fenced out (S4, S7)', async () => {
    const { ledger, at } = await given();
    const old = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03', leaseMs: HOUR });
    expect((await ledger.pending({ pipeline: 'etl_orders' })).inFlight).toEqual([{ date: '2026-11-03', runId: old.runId, leaseExpiresAt: old.leaseExpiresAt }]);
    at('2026-11-05T03:00:00+07:00');
    const view = await ledger.pending({ pipeline: 'etl_orders' });
    expect(view.inFlight).toEqual([]);
    expect(view.pending.find((p) => p.date === '2026-11-03')?.reason).toBe('stalled');
    const takeover = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    expect(takeover).toMatchObject({ attempt: 2, takeoverOf: old.runId });
    const { events } = await ledger.log({ pipeline: 'etl_orders', date: '2026-11-03' });
    expect(events.map((e) => e.type)).toEqual(['RunStarted', 'RunAbandoned', 'RunStarted']);
    expect(events[2]?.metadata.reason).toMatch(/took over run/);
    expect((await refusal(ledger.succeed({ runId: old.runId }))).code).toBe('ledger.staleRun');
    await ledger.succeed({ runId: takeover.runId });
    expect(statuses(await ledger.state({ pipeline: 'etl_orders' }))[1]).toEqual(['2026-11-03', 'success']);
  });

  test('when a range is cleared with only-failed then only the failed dates are cleared and the others are skipped with why (S8)', async () => {
    const { ledger, head } = await given();
    await succeeded(ledger, '2026-11-02');
    const failed = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await ledger.fail({ runId: failed.runId, error: 'boom' });
    const running = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' });
    const before = await head();
    const dry = await ledger.clear({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', onlyFailed: true, dryRun: true });
    expect(await head()).toBe(before);
    const clear = await ledger.clear({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', onlyFailed: true, reason: 'retry failures' });
    expect({ ...dry, dryRun: false }).toEqual(clear);
    expect(clear.cleared).toEqual([{ date: '2026-11-03', runId: failed.runId, previousStatus: 'failed' }]);
    expect(clear.skipped.map((s) => [s.date, s.status])).toEqual([
      ['2026-11-02', 'success'],
      ['2026-11-04', 'running'],
    ]);
    expect(await head()).toBe(before + 1);
    const view = await ledger.pending({ pipeline: 'etl_orders' });
    expect(view.pending.map((p) => [p.date, p.reason])).toEqual([['2026-11-03', 'cleared']]);
    expect(view.inFlight.map((f) => f.runId)).toEqual([running.runId]);
  });

  test('when a query is asked as of a position or an instant then it answers as the ledger did then (S13)', async () => {
    const { ledger, at } = await given('2026-11-05T01:00:00+07:00');
    await succeeded(ledger, '2026-11-02');
    const early = await ledger.state({ pipeline: 'etl_orders' });
    const earlyPending = await ledger.pending({ pipeline: 'etl_orders' });
    at('2026-11-05T02:00:00+07:00');
    await succeeded(ledger, '2026-11-03');
    await succeeded(ledger, '2026-11-04');
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-02'] });
    expect(statuses(await ledger.state({ pipeline: 'etl_orders' }))).toEqual([
      ['2026-11-02', 'cleared'],
      ['2026-11-03', 'success'],
      ['2026-11-04', 'success'],
    ]);
    const byPosition = { position: early.position };
    expect(await ledger.state({ pipeline: 'etl_orders', asOf: byPosition })).toEqual(early);
    expect(await ledger.pending({ pipeline: 'etl_orders', asOf: byPosition })).toEqual(earlyPending);
    expect(await ledger.watermark({ pipeline: 'etl_orders', asOf: { instant: '2026-11-05T01:30:00+07:00' } })).toEqual({ pipeline: 'etl_orders', watermark: '2026-11-02', completeThrough: '2026-11-02' });
    expect(await ledger.watermark({ pipeline: 'etl_orders', asOf: { instant: '2026-11-05T02:00:00+07:00' } })).toEqual({ pipeline: 'etl_orders', watermark: '2026-11-04', completeThrough: null });
    // Before its definition was recorded the pipeline did not exist yet.
    expect(await refusal(ledger.watermark({ pipeline: 'etl_orders', asOf: { instant: '2026-11-05T00:30:00+07:00' } }))).toMatchObject({ code: 'notFound.pipeline' });
    expect(await refusal(ledger.state({ pipeline: 'etl_orders', asOf: { position: 999 } }))).toMatchObject({ code: 'input.asOfBeyondHead' });
  });

  test('when a ledger is reopened then a new instance answers exactly as the one that wrote it (S15)', async () => {
    const db = await adapter.fresh();
    const clock = () => Date.parse(NOW);
    const writer = await openLedger({ db, clock, actor: 'contract' });
    opened.push(writer);
    await writer.define(ETL_ORDERS);
    await succeeded(writer, '2026-11-02', { rows: 7 });
    const failing = await writer.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await writer.fail({ runId: failing.runId, error: 'boom' });
    const reader = await openLedger({ db, clock, actor: 'contract', create: false });
    opened.push(reader);
    expect(await reader.state({ pipeline: 'etl_orders' })).toEqual(await writer.state({ pipeline: 'etl_orders' }));
    expect(await reader.runs({ pipeline: 'etl_orders' })).toEqual(await writer.runs({ pipeline: 'etl_orders' }));
  });

  test('when one ledger instance serves concurrent operations then every event is folded once: attempts, history and fencing stay exact', async () => {
    const { ledger, db } = await given('2026-11-20T01:00:00+07:00');
    const dates = Array.from({ length: 8 }, (_, i) => `2026-11-${String(2 + i).padStart(2, '0')}`);
    const first = await Promise.all(dates.map((date) => ledger.start({ pipeline: 'etl_orders', date })));
    await Promise.all(first.map(({ runId }) => ledger.fail({ runId, error: 'boom' })));
    const second = await Promise.all(dates.map((date) => ledger.start({ pipeline: 'etl_orders', date })));
    expect(second.map((r) => r.attempt)).toEqual(dates.map(() => 2));
    await Promise.all(second.map(({ runId }) => ledger.succeed({ runId })));
    const state = await ledger.state({ pipeline: 'etl_orders', from: dates[0] ?? '', to: dates.at(-1) ?? '' });
    expect(state.dates.map((d) => [d.date, d.status, d.attempt, d.attempts])).toEqual(dates.map((date) => [date, 'success', 2, 2]));
    expect((await ledger.runs({ pipeline: 'etl_orders' })).runs).toHaveLength(16);
    // A fresh instance that folds the log once agrees with the one that served the concurrent calls.
    const reader = await openLedger({ db, clock: () => Date.parse('2026-11-20T01:00:00+07:00'), create: false });
    opened.push(reader);
    expect(await reader.state({ pipeline: 'etl_orders' })).toEqual(await ledger.state({ pipeline: 'etl_orders' }));
    expect(await reader.runs({ pipeline: 'etl_orders' })).toEqual(await ledger.runs({ pipeline: 'etl_orders' }));
  });

  test('when an unknown pipeline or run is named then it is not found (exit 4), and nothing is written', async () => {
    const { ledger, head } = await given();
    expect(await refusal(ledger.pending({ pipeline: 'nope' }))).toMatchObject({ code: 'notFound.pipeline', exitCode: 4 });
    expect(await refusal(ledger.succeed({ runId: '01JUNKNOWNRUN0000000000000' }))).toMatchObject({ code: 'notFound.run', exitCode: 4 });
    expect(await head()).toBe(1);
  });
  test('when a date is marked skipped, a failure schedules a retry, and a mark is cleared then every store folds the same state', async () => {
    const { ledger, db, head } = await given();
    await succeeded(ledger, '2026-11-02');
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: 'holiday' });
    const { runId } = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' });
    await ledger.fail({ runId, error: 'late file', retry: { attempt: 2, maxAttempts: 3, delayMs: 60_000 } });
    // The failure and its retry are one append: a repeat of the failure writes nothing.
    const before = await head();
    expect(await ledger.fail({ runId, error: 'late file' })).toMatchObject({ repeated: true });
    expect(await head()).toBe(before);
    const state = await ledger.state({ pipeline: 'etl_orders' });
    expect(statuses(state)).toEqual([['2026-11-02', 'success'], ['2026-11-03', 'skipped'], ['2026-11-04', 'up_for_retry']]);
    expect(state.completeThrough).toBe('2026-11-03');
    expect(state.watermark).toBe('2026-11-02');
    expect(state.dates[2]?.retry).toEqual({ attempt: 2, of: 3, nextAt: new Date(Date.parse(NOW) + 60_000).toISOString() });
    expect((await ledger.pending({ pipeline: 'etl_orders' })).pending.map((p) => [p.date, p.reason])).toEqual([['2026-11-04', 'up_for_retry']]);
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: 'the file came' });
    expect((await ledger.watermark({ pipeline: 'etl_orders' })).completeThrough).toBe('2026-11-02');
    const reader = await openLedger({ db, clock: () => Date.parse(NOW), create: false });
    opened.push(reader);
    expect(await reader.state({ pipeline: 'etl_orders' })).toEqual(await ledger.state({ pipeline: 'etl_orders' }));
  });
});
