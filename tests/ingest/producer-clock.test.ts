import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, test } from 'vitest';
import { olderThanCurrentAttempt, producerTimeProblem, DEFAULT_PRODUCER_TIME_WINDOW } from '../../projections/producer-time.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// A producer's clock must not lock a date: an OpenLineage eventTime (or a library/CLI `at`) more than the allowed
// skew ahead of the ledger's clock, or far behind it, is 400 naming the field and nothing is written; and a clear
// releases a date whatever instant its runs carried, so the next real START is a new attempt.

const NOW = Date.parse('2026-11-05T01:00:00Z');
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : undefined;
afterAll(() => schemas?.dropAll());
if (!schemas) console.log(pgSkipMessage('producer clock'));
const adapters: Array<[string, () => Promise<string>]> = [['sqlite', async () => join(tempDir(), 'l.db')]];
if (schemas) adapters.push(['postgres', () => schemas.fresh()]);

const facets = `"nominalTime":{"_producer":"https://example.com/p","_schemaURL":"https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json","nominalStartTime":"2026-11-03T00:00:00Z"}`;
const lineage = (eventType: string, runId: string, eventTime: string) =>
  `{"eventType":"${eventType}","eventTime":"${eventTime}","producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{"runId":"${runId}","facets":{${facets}}},"job":{"namespace":"ns","name":"orders"},"inputs":[],"outputs":[]}`;
const CI_RUN = '0190d3c1-9d2b-7c4e-8f00-00000000c1c1';
const REAL_RUN = '0190d3c1-9d2b-7c4e-8f00-000000000001';
const NEXT_RUN = '0190d3c1-9d2b-7c4e-8f00-000000000002';

async function serve(ledger: Ledger): Promise<{ app: FastifyInstance; post: (json: string) => Promise<{ status: number; body: { error?: { code: string; message: string } } }> }> {
  const app = await createServer({ ledger, clock: () => NOW, writeToken: 'w' });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const post = async (json: string) => {
    const res = await fetch(`${base}/api/v1/lineage`, { method: 'POST', headers: { authorization: 'Bearer w', 'content-type': 'application/json' }, body: json });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };
  return { app, post };
}

async function define(ledger: Ledger): Promise<void> {
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', openlineage: { namespace: 'ns', job: 'orders' } });
}

describe.each(adapters)('a producer clock on %s', (_name, fresh) => {
  test.each([
    ['far in the future', '2999-01-01T00:00:00Z', /^eventTime 2999-01-01T00:00:00\+00:00 is \d+d ahead of the ledger's clock .*--max-clock-skew/],
    ['just past the default skew', '2026-11-05T01:05:01Z', /^eventTime 2026-11-05T01:05:01\+00:00 is 5m ahead/],
    ['in year 1', '0001-01-01T00:00:00Z', /^eventTime 0001-01-01T00:00:00\+00:00 is \d+d before the ledger's clock .*--max-event-age/],
  ])('an eventTime %s is 400 naming eventTime, nothing written; the real producer is then recorded', async (_label, eventTime, message) => {
    const ledger = await openLedger({ db: await fresh(), clock: () => NOW, actor: 'test' });
    const { app, post } = await serve(ledger);
    try {
      await define(ledger);
      const head = (await ledger.store.head()).position;
      const ci = await post(lineage('START', CI_RUN, eventTime));
      expect(ci.status).toBe(400);
      expect(ci.body.error?.code).toBe('input.eventTimeOutOfRange');
      expect(ci.body.error?.message).toMatch(message);
      expect((await ledger.store.head()).position).toBe(head);
      expect((await post(lineage('START', REAL_RUN, '2026-11-05T00:10:00Z'))).status).toBe(200);
      expect((await post(lineage('COMPLETE', REAL_RUN, '2026-11-05T00:20:00Z'))).status).toBe(200);
      expect((await ledger.state({ pipeline: 'etl_orders', from: '2026-11-03', to: '2026-11-03' })).dates[0]).toMatchObject({ status: 'success', runId: REAL_RUN, attempt: 1 });
    } finally {
      await app.close();
      await ledger.close();
    }
  });

  test('the skew is the ledger option maxClockSkew: within it a time ahead is recorded', async () => {
    const ledger = await openLedger({ db: await fresh(), clock: () => NOW, actor: 'test', maxClockSkew: '1h' });
    try {
      await define(ledger);
      const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03', at: '2026-11-05T01:30:00Z' });
      await expect(ledger.succeed({ runId: run.runId, at: '2026-11-05T02:30:00Z' })).rejects.toMatchObject({ code: 'input.eventTimeOutOfRange', exitCode: 2, message: expect.stringMatching(/^at 2026-11-05T02:30:00\+00:00 is 1h ahead/) });
      await ledger.succeed({ runId: run.runId, at: '2026-11-05T01:45:00Z' });
    } finally {
      await ledger.close();
    }
  });

  test('a date held by a far-future START (recorded before the refusal) is released by clear', async () => {
    const db = await fresh();
    // As an older release recorded it: a producer's START at 2999 was taken as it came.
    const old = await openLedger({ db, clock: () => NOW, actor: 'old', maxClockSkew: '3650d' });
    try {
      await define(old);
      await old.start({ pipeline: 'etl_orders', date: '2026-11-03', runId: CI_RUN, openlineage: { namespace: 'ns', job: 'orders', eventTime: '2999-01-01T00:00:00.000Z' }, at: '2036-01-01T00:00:00.000Z' });
    } finally {
      await old.close();
    }
    const ledger = await openLedger({ db, clock: () => NOW, actor: 'test' });
    const { app, post } = await serve(ledger);
    try {
      const refused = await post(lineage('START', REAL_RUN, '2026-11-05T00:10:00Z'));
      expect(refused.status).toBe(409);
      expect(refused.body.error?.code).toBe('ledger.staleRun');
      await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: 'the ci writer had a wrong clock' });
      expect((await post(lineage('START', NEXT_RUN, '2026-11-05T00:30:00Z'))).status).toBe(200);
      expect((await post(lineage('COMPLETE', NEXT_RUN, '2026-11-05T00:40:00Z'))).status).toBe(200);
      expect((await ledger.state({ pipeline: 'etl_orders', from: '2026-11-03', to: '2026-11-03' })).dates[0]).toMatchObject({ status: 'success', runId: NEXT_RUN, attempt: 2 });
    } finally {
      await app.close();
      await ledger.close();
    }
  });
});

describe('the producer time rules', () => {
  const now = Date.parse('2026-11-05T00:00:00Z');
  test.each([
    ['now', '2026-11-05T00:00:00Z', null],
    ['five minutes ahead (the limit)', '2026-11-05T00:05:00Z', null],
    ['a millisecond past it', '2026-11-05T00:05:00.001Z', 'future'],
    ['ten years back (the limit)', new Date(now - DEFAULT_PRODUCER_TIME_WINDOW.maxEventAgeMs).toISOString(), null],
    ['a millisecond older', new Date(now - DEFAULT_PRODUCER_TIME_WINDOW.maxEventAgeMs - 1).toISOString(), 'past'],
  ])('%s: %s → %s', (_label, at, kind) => {
    expect(producerTimeProblem(Date.parse(at), now, DEFAULT_PRODUCER_TIME_WINDOW)?.kind ?? null).toBe(kind);
  });

  test.each([
    ['no current attempt', undefined, null, false],
    ['an older START against a running attempt', { status: 'running' }, '2026-11-05T01:00:00Z', true],
    ['a newer START', { status: 'failed' }, '2026-11-04T00:00:00Z', false],
    ['any START once the date is cleared', { status: 'cleared' }, '2999-01-01T00:00:00Z', false],
  ])('%s', (_label, current, time, older) => {
    expect(olderThanCurrentAttempt(current, time, now)).toBe(older);
  });
});
