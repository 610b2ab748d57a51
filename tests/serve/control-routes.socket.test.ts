// Pause, unpause, retire and unretire over HTTP (issue 40), through a real socket with Node's fetch: the write token
// guards them, a refused one writes nothing, and what they record is what status and check then read.
import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';

const NOW = Date.parse('2026-11-05T01:00:00Z');
const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(): Promise<{ ledger: Ledger; address: string }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'raw', schedule: '@daily', start: '2026-11-02' });
  await ledger.define({ pipeline: 'daily', schedule: '@daily', start: '2026-11-02', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] });
  const app = await createServer({ ledger, clock: () => NOW, writeToken: 'w' });
  apps.push(app);
  return { ledger, address: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

async function post(address: string, path: string, body: object | undefined, token: string | null = 'w'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${address}${path}`, {
    method: 'POST',
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

describe('run control over HTTP', () => {
  test('pause and unpause: the token guards them, a pause needs its reason, and status, check and the ledger agree', async () => {
    const { ledger, address } = await serve();
    const head = async () => (await ledger.store.head()).position;
    const before = await head();

    expect((await post(address, '/api/pipelines/raw/pause', { reason: 'vendor outage' }, null)).status).toBe(401);
    const noReason = await post(address, '/api/pipelines/raw/pause', {});
    expect(noReason.status).toBe(400);
    expect(noReason.json.error.message).toMatch(/reason/);
    expect((await post(address, '/api/pipelines/nosuch/pause', { reason: 'x' })).status).toBe(404);
    expect(await head()).toBe(before);

    const paused = await post(address, '/api/pipelines/raw/pause', { reason: 'vendor outage' });
    expect(paused.status).toBe(200);
    expect(paused.json.results).toMatchObject([{ pipeline: 'raw', paused: { since: new Date(NOW).toISOString(), reason: 'vendor outage' } }]);
    expect(await head()).toBe(before + 1);
    const status = (await (await fetch(`${address}/api/status`)).json()) as { pipelines: Array<{ pipeline: string; paused?: unknown }> };
    expect(status.pipelines.find((p) => p.pipeline === 'raw')?.paused).toMatchObject({ reason: 'vendor outage' });
    // check leaves a paused pipeline's lag alone unless asked to include it.
    const check = await fetch(`${address}/api/check?maxLag=1h`);
    const included = await fetch(`${address}/api/check?maxLag=1h&includePaused=true`);
    const violated = async (res: Response) => ((await res.json()) as { violations: Array<{ pipeline: string }> }).violations.map((v) => v.pipeline);
    expect(await violated(check)).not.toContain('raw');
    expect(included.status).toBe(422);
    expect(await violated(included)).toContain('raw');

    const unpaused = await post(address, '/api/pipelines/raw/unpause', undefined);
    expect(unpaused.status).toBe(200);
    expect((await ledger.controls(['raw'])).get('raw')?.paused ?? null).toBeNull();
  });

  test('retire is refused while an active pipeline names it as upstream, and the refusal writes nothing; unretire brings it back', async () => {
    const { ledger, address } = await serve();
    const before = (await ledger.store.head()).position;
    const refused = await post(address, '/api/pipelines/raw/retire', { reason: 'replaced' });
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain('daily');
    expect((await ledger.store.head()).position).toBe(before);

    expect((await post(address, '/api/pipelines/daily/retire', { reason: 'replaced by daily_v2' })).status).toBe(200);
    const status = (await (await fetch(`${address}/api/status`)).json()) as { pipelines: Array<{ pipeline: string }> };
    expect(status.pipelines.map((p) => p.pipeline)).toEqual(['raw']);
    expect((await post(address, '/api/pipelines/daily/unretire', undefined)).status).toBe(200);
    const back = (await (await fetch(`${address}/api/status`)).json()) as { pipelines: Array<{ pipeline: string }> };
    expect(back.pipelines.map((p) => p.pipeline).sort()).toEqual(['daily', 'raw']);
  });
});
