import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { collectMetrics, metricsCollector } from '../../src/ops/collect-metrics.js';
import { toolVersion } from '../../src/runtime.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Two pipelines: etl_orders two days behind with one failure (the demo's story) and a stalled hourly one. */
async function story(clock: { now: number }): Promise<Ledger> {
  const ledger = openMemoryLedger({ clock: () => clock.now });
  clock.now = Date.parse('2026-11-05T01:00:00+07:00');
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', freshnessMs: 86_400_000 });
  for (const date of ['2026-11-02', '2026-11-03', '2026-11-04']) {
    const run = await ledger.start({ pipeline: 'etl_orders', date, runType: 'backfill' });
    clock.now += 90_000;
    await ledger.succeed({ runId: run.runId, metrics: { rows: 7 } });
  }
  clock.now = Date.parse('2026-11-07T01:00:00+07:00');
  const failed = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05', runType: 'backfill' });
  clock.now += 4000;
  await ledger.fail({ runId: failed.runId, error: 'no raw partition for 2026-11-05' });
  const later = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-06', runType: 'backfill' });
  await ledger.succeed({ runId: later.runId });
  // A success that is cleared afterwards still counts as a success: counters never go down.
  await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-06'], reason: 'bad input file' });

  await ledger.define({ pipeline: 'hourly', schedule: '@hourly', start: '2026-11-06T15:00:00Z', leaseMs: 600_000 });
  await ledger.start({ pipeline: 'hourly', date: '2026-11-06T15:00:00Z' });
  clock.now += 3_600_000;
  return ledger;
}

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name} in ${families.map((f) => f.name).join(', ')}`);
  return found;
}
function value(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  const sample = family(families, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (!sample?.value) throw new Error(`no sample of ${name} with ${JSON.stringify(labels)}`);
  return Number(sample.value);
}

/**
 * One labelled series of a histogram. The parser folds a histogram's samples
 * into one unlabelled series (it keeps no labels beside `le`), so the family
 * is read again typed `untyped`: then every `_bucket`, `_sum` and `_count`
 * sample comes back with its labels.
 */
function histogramSeries(text: string, name: string, labels: Record<string, string>): { buckets: Record<string, number>; sum: number; count: number } {
  const untyped = text.replace(`# TYPE ${name} histogram`, `# TYPE ${name} untyped`);
  const samples = parsePrometheusTextFormat(untyped).filter((f) => f.name.startsWith(name)).flatMap((f) => f.metrics.map((m) => ({ family: f.name, ...m })));
  const mine = samples.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  const one = (suffix: string) => Number(mine.find((m) => m.family === `${name}${suffix}`)?.value);
  const buckets = Object.fromEntries(mine.filter((m) => m.family === `${name}_bucket`).map((m) => [m.labels?.['le'] ?? '', Number(m.value)]));
  return { buckets, sum: one('_sum'), count: one('_count') };
}

describe('GET /metrics', () => {
  test('is Prometheus text a parser reads: per pipeline timestamps, lag, pending, running, stalled, runs, durations; head and verify', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const f = parsePrometheusTextFormat(res.body);
    const orders = { pipeline: 'etl_orders' };

    expect(family(f, 'runledger_pipeline_lag_seconds').type).toBe('GAUGE');
    // Complete through 2026-11-04, whose interval ends 2026-11-05T00:00+07:00; now is 2026-11-07T02:00:04+07:00.
    expect(value(f, 'runledger_pipeline_lag_seconds', orders)).toBe(2 * 86_400 + 2 * 3600 + 4);
    expect(value(f, 'runledger_pipeline_watermark_timestamp_seconds', orders)).toBe(Date.parse('2026-11-06T00:00:00+07:00') / 1000);
    expect(value(f, 'runledger_pipeline_complete_through_timestamp_seconds', orders)).toBe(Date.parse('2026-11-04T00:00:00+07:00') / 1000);
    expect(value(f, 'runledger_pipeline_freshness_seconds', orders)).toBe(86_400);
    expect(value(f, 'runledger_pipeline_pending', { ...orders, reason: 'failed' })).toBe(1);
    expect(value(f, 'runledger_pipeline_pending', { ...orders, reason: 'cleared' })).toBe(1);
    expect(value(f, 'runledger_pipeline_pending', { ...orders, reason: 'missing' })).toBe(0);
    expect(value(f, 'runledger_pipeline_running', orders)).toBe(0);

    expect(family(f, 'runledger_runs_total').type).toBe('COUNTER');
    expect(value(f, 'runledger_runs_total', { ...orders, outcome: 'success' })).toBe(4);
    expect(value(f, 'runledger_runs_total', { ...orders, outcome: 'failed' })).toBe(1);
    expect(value(f, 'runledger_runs_total', { ...orders, outcome: 'abandoned' })).toBe(0);

    expect(family(f, 'runledger_run_duration_seconds').type).toBe('HISTOGRAM');
    const success = histogramSeries(res.body, 'runledger_run_duration_seconds', { ...orders, outcome: 'success' });
    // Three runs of 90 s and one of 0 s.
    expect(success).toMatchObject({ count: 4, sum: 270 });
    expect(success.buckets['1']).toBe(1);
    expect(success.buckets['60']).toBe(1);
    expect(success.buckets['120']).toBe(4);
    expect(success.buckets['+Inf']).toBe(4);
    expect(histogramSeries(res.body, 'runledger_run_duration_seconds', { ...orders, outcome: 'failed' })).toMatchObject({ count: 1, sum: 4 });

    const hourly = { pipeline: 'hourly' };
    expect(value(f, 'runledger_pipeline_stalled', hourly)).toBe(1);
    expect(value(f, 'runledger_pipeline_pending', { ...hourly, reason: 'stalled' })).toBe(1);

    expect(value(f, 'runledger_ledger_head_position')).toBe((await ledger.store.head()).position);
    expect(value(f, 'runledger_ledger_verify_ok')).toBe(1);
    expect(value(f, 'runledger_ledger_verified_position')).toBe((await ledger.store.head()).position);
  });

  test('a later scrape verifies what was appended since and counts the new run', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    await ledger.store.consumers.save('alerts', 3, '2026-11-07T00:00:00Z');
    const before = parsePrometheusTextFormat((await app.inject({ url: '/metrics' })).body);
    expect(value(before, 'runledger_consumer_position', { consumer: 'alerts' })).toBe(3);
    expect(value(before, 'runledger_consumer_behind_events', { consumer: 'alerts' })).toBe(value(before, 'runledger_ledger_head_position') - 3);
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05', runType: 'backfill' });
    await ledger.fail({ runId: run.runId, error: 'still missing' });
    const after = parsePrometheusTextFormat((await app.inject({ url: '/metrics' })).body);
    expect(value(after, 'runledger_runs_total', { pipeline: 'etl_orders', outcome: 'failed' })).toBe(value(before, 'runledger_runs_total', { pipeline: 'etl_orders', outcome: 'failed' }) + 1);
    expect(value(after, 'runledger_ledger_verified_position')).toBe(value(before, 'runledger_ledger_verified_position') + 2);
    expect(value(after, 'runledger_ledger_verify_ok')).toBe(1);
  });

  test('per pipeline when the last success and the last failure were recorded, the definition as an info metric, and the build', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', freshnessMs: 86_400_000, openlineage: { namespace: 'airflow', job: 'orders.load' } });
    clock.now += 60_000;
    const retry = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05', runType: 'backfill' });
    clock.now += 5_000;
    await ledger.succeed({ runId: retry.runId });
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    const f = parsePrometheusTextFormat((await app.inject({ url: '/metrics' })).body);
    const orders = { pipeline: 'etl_orders' };
    expect(family(f, 'runledger_last_success_timestamp_seconds').type).toBe('GAUGE');
    expect(value(f, 'runledger_last_success_timestamp_seconds', orders)).toBe(clock.now / 1000);
    // The failure of 2026-11-05 was recorded 4 s after its start; the successful retry does not erase it.
    expect(value(f, 'runledger_last_failure_timestamp_seconds', orders)).toBe(Date.parse('2026-11-07T01:00:04+07:00') / 1000);
    // Neither exists for a pipeline that never finished a run.
    expect(family(f, 'runledger_last_success_timestamp_seconds').metrics.map((m) => m.labels?.['pipeline'])).toEqual(['etl_orders']);
    expect(family(f, 'runledger_pipeline_info').metrics).toEqual([
      { labels: { pipeline: 'etl_orders', schedule: '@daily', timezone: 'Asia/Jakarta', timetable: 'interval', openlineage_job: 'airflow/orders.load' }, value: '1' },
      { labels: { pipeline: 'hourly', schedule: '@hourly', timezone: 'UTC', timetable: 'interval', openlineage_job: '' }, value: '1' },
    ]);
    expect(family(f, 'runledger_build_info').metrics).toEqual([{ labels: { version: toolVersion, node_version: process.version }, value: '1' }]);
  });

  test("serve adds the process's own metrics (prom-client's default collectors); runledger metrics does not", async () => {
    const clock = { now: Date.parse('2026-11-05T00:00:00Z') };
    const ledger = openMemoryLedger({ clock: () => clock.now });
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    const served = parsePrometheusTextFormat((await app.inject({ url: '/metrics' })).body);
    expect(family(served, 'process_cpu_user_seconds_total').type).toBe('COUNTER');
    expect(value(served, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(family(served, 'nodejs_eventloop_lag_seconds').type).toBe('GAUGE');
    expect(value(served, 'runledger_ledger_head_position')).toBe(0);
    const printed = parsePrometheusTextFormat((await collectMetrics(ledger, { nowMs: clock.now, verify: null })).text);
    expect(printed.filter((f) => f.name.startsWith('process_') || f.name.startsWith('nodejs_'))).toEqual([]);
    expect(family(printed, 'runledger_build_info').metrics).toHaveLength(1);
  });

  test('needs the read token when the server has one', async () => {
    const clock = { now: Date.parse('2026-11-05T00:00:00Z') };
    const app = await createServer({ ledger: openMemoryLedger({ clock: () => clock.now }), clock: () => clock.now, readToken: 's3cret' });
    apps.push(app);
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const ok = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer s3cret' } });
    expect(ok.statusCode).toBe(200);
    expect(value(parsePrometheusTextFormat(ok.body), 'runledger_ledger_head_position')).toBe(0);
  });
});

describe('metricsCollector', () => {
  test('a collector kept across scrapes prints what a fresh registry prints at each, also when series go away between them', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const collector = metricsCollector();
    const verify = { ok: true, events: 20, head: await ledger.store.head(), firstBadPosition: null, problem: null, atMs: clock.now };
    const first = await collector.collect(ledger, { nowMs: clock.now, verify });
    expect(first.text).toBe((await collectMetrics(ledger, { nowMs: clock.now, verify })).text);
    expect(first.text).toContain('runledger_ledger_verify_ok 1');
    // The next scrape has no verification and a new run: the verify series are as a fresh registry starts them, the run counted once.
    const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05', runType: 'backfill' });
    await ledger.succeed({ runId: run.runId });
    clock.now += 60_000;
    const second = await collector.collect(ledger, { nowMs: clock.now, verify: null });
    expect(second.text).toBe((await collectMetrics(ledger, { nowMs: clock.now, verify: null })).text);
    expect(second.text).not.toBe(first.text);
    expect(second.text).toContain('runledger_ledger_verify_ok 0');
  });

  test('scrapes of one collector asked at once each get their own whole answer', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const collector = metricsCollector();
    const at = [clock.now, clock.now + 3_600_000, clock.now + 7_200_000];
    const together = await Promise.all(at.map((nowMs) => collector.collect(ledger, { nowMs, verify: null })));
    for (const [i, nowMs] of at.entries()) expect(together[i]?.text).toBe((await collectMetrics(ledger, { nowMs, verify: null })).text);
    expect(new Set(together.map((t) => t.text)).size).toBe(3);
  });
});

describe('GET /api/status', () => {
  test('answers the document of status --json, worst first', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    const res = await app.inject({ url: '/api/status' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { now: string; pipelines: Array<{ pipeline: string; lagSeconds: number }> };
    expect(body.now).toBe(new Date(clock.now).toISOString());
    expect(body.pipelines.map((p) => p.pipeline)).toEqual(['etl_orders', 'hourly']);
    expect((await app.inject({ url: '/api/status?pipeline=hourly' })).json().pipelines.map((p: { pipeline: string }) => p.pipeline)).toEqual(['hourly']);
    const missing = await app.inject({ url: '/api/status?pipeline=nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('notFound.pipeline');
  });
});

describe('GET /api/check', () => {
  test('200 with the report of check --json when the rules hold, 422 with it when one breaks, 400 without a rule', async () => {
    const clock = { now: 0 };
    const ledger = await story(clock);
    const app = await createServer({ ledger, clock: () => clock.now });
    apps.push(app);
    const fine = await app.inject({ url: '/api/check?pipeline=etl_orders&maxLag=3d' });
    expect(fine.statusCode).toBe(200);
    expect(fine.json()).toMatchObject({ ok: true, checked: ['etl_orders'], violations: [] });
    const late = await app.inject({ url: '/api/check?pipeline=etl_orders&maxLag=1d&noFailed' });
    expect(late.statusCode).toBe(422);
    expect(late.json().violations.map((v: { rule: string }) => v.rule)).toEqual(['lag', 'failed']);
    // Without options, etl_orders' own freshness (1d) is its rule; hourly has none.
    const own = await app.inject({ url: '/api/check' });
    expect(own.statusCode).toBe(422);
    expect(own.json()).toMatchObject({ ok: false, checked: ['etl_orders'] });
    const none = await app.inject({ url: '/api/check?pipeline=hourly' });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.code).toBe('input.nothingToCheck');
    const bad = await app.inject({ url: '/api/check?maxPending=lots' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('input.invalidQuery');
  });
});
