import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { answerCache } from '../../src/serve/answer-cache.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

describe('answerCache', () => {
  test('requests with the same key share one build; a new key builds again', async () => {
    const cache = answerCache<number>();
    let builds = 0;
    const build = async () => ++builds;
    expect(await Promise.all([cache.get('1', build), cache.get('1', build)])).toEqual([1, 1]);
    expect(await cache.get('2', build)).toBe(2);
    expect(builds).toBe(2);
  });

  test('a build that failed is not kept', async () => {
    const cache = answerCache<string>();
    await expect(cache.get('1', async () => Promise.reject(new Error('locked')))).rejects.toThrow('locked');
    expect(await cache.get('1', async () => 'built')).toBe('built');
  });
});

describe('serve: answers kept per head position are rebuilt after a write', () => {
  test('a kept watermark is its pipeline\'s alone and changes with a success; an unknown pipeline is still 404', async () => {
    const nowMs = Date.parse('2026-11-05T00:00:00Z');
    const ledger = openMemoryLedger({ clock: () => nowMs });
    await ledger.define({ pipeline: 'etl_a', schedule: '@daily', start: '2026-11-01' });
    await ledger.define({ pipeline: 'etl_b', schedule: '@daily', start: '2026-11-01' });
    const app = await createServer({ ledger, clock: () => nowMs });
    apps.push(app);
    const watermark = async (p: string) => (await app.inject({ url: `/api/pipelines/${p}/watermark` })).json() as { pipeline: string; watermark: string | null };
    expect(await watermark('etl_a')).toMatchObject({ pipeline: 'etl_a', watermark: null });
    expect(await watermark('etl_b')).toMatchObject({ pipeline: 'etl_b', watermark: null });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl_b', date: '2026-11-02' })).runId });
    expect(await watermark('etl_b')).toMatchObject({ pipeline: 'etl_b', watermark: '2026-11-02' });
    expect(await watermark('etl_a')).toMatchObject({ pipeline: 'etl_a', watermark: null });
    const missing = await app.inject({ url: '/api/pipelines/etl_zzz/watermark' });
    expect(missing.statusCode).toBe(404);
    expect((await app.inject({ url: '/api/pipelines/etl_b/watermark' })).headers['content-type']).toBe('application/json; charset=utf-8');
  });

  test('/api/pipelines, /metrics and /api/status show a pipeline defined and a run recorded after they were first read', async () => {
    const nowMs = Date.parse('2026-11-05T00:00:00Z');
    const ledger = openMemoryLedger({ clock: () => nowMs });
    await ledger.define({ pipeline: 'etl_a', schedule: '@daily', start: '2026-11-01' });
    const app = await createServer({ ledger, clock: () => nowMs });
    apps.push(app);
    const names = async () => ((await app.inject({ url: '/api/pipelines' })).json() as { pipelines: Array<{ pipeline: string }> }).pipelines.map((p) => p.pipeline);
    expect(await names()).toEqual(['etl_a']);
    // Asked again at the same head: the answer kept is sent as it was built.
    expect(await names()).toEqual(['etl_a']);
    expect((await app.inject({ url: '/metrics' })).body).not.toMatch(/runledger_pipeline_watermark_timestamp_seconds\{pipeline="etl_a"\}/);
    expect((await app.inject({ url: '/api/status?pipeline=etl_a' })).json()).toMatchObject({ pipelines: [{ pipeline: 'etl_a', watermark: null }] });

    await ledger.define({ pipeline: 'etl_b', schedule: '@daily', start: '2026-11-01' });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl_a', date: '2026-11-01' })).runId });
    expect(await names()).toEqual(['etl_a', 'etl_b']);
    const metrics = (await app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/runledger_pipeline_watermark_timestamp_seconds\{pipeline="etl_a"\} 1793491200\n/);
    expect(metrics).toMatch(/runledger_pipeline_info\{pipeline="etl_b"/);
    const status = (await app.inject({ url: '/api/status?pipeline=etl_a' })).json() as { pipelines: Array<{ pipeline: string; watermark: string | null }> };
    expect(status.pipelines.map((p) => [p.pipeline, p.watermark])).toEqual([['etl_a', '2026-11-01']]);
  });
});
