import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const NOW = Date.parse('2026-11-05T01:00:00Z');
const auth = { authorization: 'Bearer w' };

async function server(tokens: { readToken?: string; writeToken?: string } = { writeToken: 'w' }): Promise<{ app: FastifyInstance; ledger: Ledger }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
  const app = await createServer({ ledger, clock: () => NOW, ...tokens });
  apps.push(app);
  return { app, ledger };
}

function post(app: FastifyInstance, url: string, payload?: object, headers: Record<string, string> = auth) {
  return app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });
}

describe('HTTP write API', () => {
  test('start returns the run as `start --json` does; succeed records the success with its metrics', async () => {
    const { app, ledger } = await server();
    const started = await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' });
    expect(started.statusCode).toBe(201);
    const run = started.json();
    expect(run).toMatchObject({ pipeline: 'etl_orders', date: '2026-11-02', attempt: 1, runType: 'scheduled' });
    const done = await post(app, `/api/runs/${run.runId}/succeed`, { metrics: { rows: 42 }, outputs: ['gold/orders.csv'] });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ status: 'success', repeated: false });
    const state = await ledger.state({ pipeline: 'etl_orders' });
    expect(state.dates[0]).toMatchObject({ date: '2026-11-02', status: 'success', metrics: { rows: 42 }, outputs: ['gold/orders.csv'] });
    const again = await post(app, `/api/runs/${run.runId}/succeed`, { metrics: { rows: 42 } });
    expect(again.json()).toMatchObject({ repeated: true });
  });

  test('fail, heartbeat and clear do what the CLI commands do', async () => {
    const { app, ledger } = await server();
    const run = (await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-03', lease: '2h' })).json();
    expect(run.leaseExpiresAt).toBe(new Date(NOW + 2 * 3_600_000).toISOString());
    const beat = await post(app, `/api/runs/${run.runId}/heartbeat`, { lease: '3h' });
    expect(beat.json().leaseExpiresAt).toBe(new Date(NOW + 3 * 3_600_000).toISOString());
    const failed = await post(app, `/api/runs/${run.runId}/fail`, { error: 'raw file missing', code: 'noInput' });
    expect(failed.json()).toMatchObject({ status: 'failed' });
    const dry = await post(app, '/api/pipelines/etl_orders/clear', { dates: ['2026-11-03'], dryRun: true });
    expect(dry.json()).toMatchObject({ dryRun: true, cleared: [{ date: '2026-11-03', previousStatus: 'failed' }] });
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates.find((d) => d.date === '2026-11-03')?.status).toBe('failed');
    const cleared = await post(app, '/api/pipelines/etl_orders/clear', { dates: ['2026-11-03'], reason: 'bad file' });
    expect(cleared.json()).toMatchObject({ dryRun: false, cleared: [{ date: '2026-11-03' }] });
    expect((await ledger.state({ pipeline: 'etl_orders' })).dates.find((d) => d.date === '2026-11-03')?.status).toBe('cleared');
  });

  test('a manual run with an explicit data interval', async () => {
    const { app } = await server();
    const res = await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-04T12:00:00Z', type: 'manual', intervalStart: '2026-11-04T00:00:00Z', intervalEnd: '2026-11-04T12:00:00Z' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ offSchedule: true, dataInterval: { start: '2026-11-04T00:00:00+00:00', end: '2026-11-04T12:00:00+00:00' } });
  });

  test.each([
    ['a date that is not a string', '/api/pipelines/etl_orders/runs', { date: 5 }, 400, 'input.invalidBody', 'body.date'],
    ['an unknown field', '/api/pipelines/etl_orders/runs', { date: '2026-11-02', forse: true }, 400, 'input.invalidBody', 'forse'],
    ['an unknown run type', '/api/pipelines/etl_orders/runs', { date: '2026-11-02', type: 'hourly' }, 400, 'input.invalidBody', 'body.type'],
    ['a bad lease', '/api/pipelines/etl_orders/runs', { date: '2026-11-02', lease: 'soon' }, 400, 'input.invalidDuration', "lease 'soon'"],
    ['half an interval', '/api/pipelines/etl_orders/runs', { date: '2026-11-02', type: 'manual', intervalStart: '2026-11-02' }, 400, 'input.incompleteInterval', 'intervalEnd'],
    ['an invalid date', '/api/pipelines/etl_orders/runs', { date: '2026-02-30' }, 400, 'input.invalidDate', '2026-02-30'],
    ['a future date', '/api/pipelines/etl_orders/runs', { date: '2026-11-09' }, 409, 'ledger.futureDate', 'in the future'],
    ['an unknown pipeline', '/api/pipelines/nope/runs', { date: '2026-11-02' }, 404, 'notFound.pipeline', "no pipeline 'nope'"],
    ['an unknown run', '/api/runs/01JXXXXXXXXXXXXXXXXXXXXXXX/succeed', {}, 404, 'notFound.run', 'no run'],
    ['a failure without a message', '/api/runs/x/fail', {}, 400, 'input.invalidBody', 'body.error'],
    ['metrics that are not an object', '/api/runs/x/succeed', { metrics: [1] }, 400, 'input.invalidBody', 'body.metrics'],
    ['a clear without dates', '/api/pipelines/etl_orders/clear', {}, 400, 'input.nothingToClear', 'name the dates'],
  ])('%s is refused: %s → %i %s', async (_label, url, body, status, code, text) => {
    const { app, ledger } = await server();
    const before = (await ledger.store.head()).position;
    const res = await post(app, url, body);
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(res.json().error.message).toContain(text);
    expect(res.json().error.message.split('\n')).toHaveLength(1);
    expect((await ledger.store.head()).position).toBe(before);
  });

  test('a second start of a running date is 409 with the CLI message; a stale completion is 409 too', async () => {
    const { app } = await server();
    const first = (await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' })).json();
    const second = await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' });
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('ledger.alreadyRunning');
    await post(app, '/api/pipelines/etl_orders/clear', { dates: ['2026-11-02'] });
    const stale = await post(app, `/api/runs/${first.runId}/succeed`, {});
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe('ledger.staleRun');
  });

  test('writes need the write token: 401 without it or with the read token, 403 when the server takes no writes; nothing written', async () => {
    const { app, ledger } = await server({ readToken: 'r', writeToken: 'w' });
    const before = (await ledger.store.head()).position;
    expect((await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' }, {})).statusCode).toBe(401);
    expect((await post(app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' }, { authorization: 'Bearer r' })).statusCode).toBe(401);
    const readOnly = await server({});
    const refused = await post(readOnly.app, '/api/pipelines/etl_orders/runs', { date: '2026-11-02' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('auth.writeDisabled');
    expect((await ledger.store.head()).position).toBe(before);
    expect((await readOnly.ledger.store.head()).position).toBe(1);
  });

  test('a body that is not JSON is 400', async () => {
    const { app } = await server();
    const res = await app.inject({ method: 'POST', url: '/api/pipelines/etl_orders/runs', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"date":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'input.invalidBody', message: expect.stringMatching(/^the body is not valid JSON \(.+\); send one JSON document$/) });
  });
});
