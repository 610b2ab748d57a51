import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { fitText, formatBytes, recordedTextLimits, utf8Bytes } from '../../events/limits.js';
import { PipelineDefinition } from '../../events/pipeline-definition.js';
import { parseByteSize } from '../../src/cli/parse-options.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { withRun } from '../../src/runner/with-run.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { dagRunEvent, dayInterval, runIdOf } from '../support/airflow-events.js';

const NOW = Date.parse('2026-11-10T12:00:00Z');
const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A ledger with `small` (metrics up to 2 KB, errors up to 1 KB, bound to an OpenLineage job) and `plain` (the defaults). */
async function ledgerWithCaps(): Promise<Ledger> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'small', schedule: '0 0 * * *', start: '2026-11-02', maxMetricsBytes: 2048, maxErrorBytes: 1024, openlineage: { namespace: 'default', job: 'small' } });
  await ledger.define({ pipeline: 'plain', schedule: '@daily', start: '2026-11-02' });
  return ledger;
}

const blob = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) }); // {"blob":"…"} is 11 bytes around the text

async function statusOf(ledger: Ledger, pipeline: string, date: string) {
  return (await ledger.state({ pipeline, to: date })).dates.find((d) => d.date === date);
}

describe('per-pipeline caps on metrics and error text', () => {
  test('define stores the caps only when given, so a definition on the defaults reads and hashes as before caps existed', async () => {
    const ledger = await ledgerWithCaps();
    const [plain, small] = [await ledger.pipeline('plain'), await ledger.pipeline('small')].map((p) => p.definition);
    expect(Object.keys(plain ?? {})).not.toContain('maxMetricsBytes');
    expect(Object.keys(plain ?? {})).not.toContain('maxErrorBytes');
    expect(small).toMatchObject({ maxMetricsBytes: 2048, maxErrorBytes: 1024 });
    expect(recordedTextLimits(plain)).toEqual({ metricsBytes: 65536, errorBytes: 65536 });
    // A definition recorded before caps existed still parses.
    const { maxMetricsBytes: _m, maxErrorBytes: _e, ...old } = small as PipelineDefinition;
    expect(PipelineDefinition.parse(old)).toEqual(old);
  });

  test('a redefinition changes a cap, and null goes back to the default', async () => {
    const ledger = await ledgerWithCaps();
    const raised = await ledger.define({ pipeline: 'small', maxMetricsBytes: 1024 * 1024 });
    expect(raised.changes).toEqual([{ field: 'maxMetricsBytes', from: 2048, to: 1048576 }]);
    const back = await ledger.define({ pipeline: 'small', maxErrorBytes: null });
    expect(back.changes).toEqual([{ field: 'maxErrorBytes', from: 1024, to: null }]);
    expect(back.definition.maxErrorBytes).toBeUndefined();
  });

  test.each([
    { label: 'under 1 KB', value: 512 },
    { label: 'over 16 MB', value: 16 * 1024 * 1024 + 1 },
    { label: 'not whole', value: 4096.5 },
  ])('a cap $label is refused with input.invalidSizeCap and nothing recorded', async ({ value }) => {
    const ledger = await ledgerWithCaps();
    const before = (await ledger.store.head()).position;
    await expect(ledger.define({ pipeline: 'small', maxMetricsBytes: value })).rejects.toMatchObject({ code: 'input.invalidSizeCap', message: expect.stringContaining('from 1 KB to 16 MB') });
    await expect(ledger.define({ pipeline: 'other', schedule: '@daily', start: '2026-11-02', maxErrorBytes: value })).rejects.toMatchObject({ code: 'input.invalidSizeCap' });
    expect((await ledger.store.head()).position).toBe(before);
  });

  test("succeed and fail are held to the run's pipeline's caps, not to a fixed 64 KB", async () => {
    const ledger = await ledgerWithCaps();
    const small = await ledger.start({ pipeline: 'small', date: '2026-11-02' });
    await expect(ledger.succeed({ runId: small.runId, metrics: blob(3000) })).rejects.toMatchObject({ code: 'input.invalidMetrics', message: expect.stringContaining('3,000 bytes, over the 2 KB limit') });
    await expect(ledger.fail({ runId: small.runId, error: 'e'.repeat(1500) })).rejects.toMatchObject({ code: 'input.errorTooLong', message: expect.stringContaining('over the 1 KB limit') });
    expect((await statusOf(ledger, 'small', '2026-11-02'))?.status).toBe('running');
    await ledger.succeed({ runId: small.runId, metrics: blob(2048) });
    expect((await statusOf(ledger, 'small', '2026-11-02'))?.status).toBe('success');

    // A pipeline allowed 1 MB takes what the default would refuse.
    await ledger.define({ pipeline: 'plain', maxMetricsBytes: 1024 * 1024, maxErrorBytes: 256 * 1024 });
    const big = await ledger.start({ pipeline: 'plain', date: '2026-11-02' });
    await ledger.succeed({ runId: big.runId, metrics: blob(200_000) });
    const failing = await ledger.start({ pipeline: 'plain', date: '2026-11-03' });
    await ledger.fail({ runId: failing.runId, error: 'e'.repeat(100_000) });
    expect((await statusOf(ledger, 'plain', '2026-11-03'))?.error).toHaveLength(100_000);
  });

  test("a task's error text and an interruption message are held to the error cap too", async () => {
    const ledger = openMemoryLedger({ clock: () => NOW });
    await ledger.define({ pipeline: 'tasks', schedule: '@daily', start: '2026-11-02', maxErrorBytes: 1024, tasks: [{ id: 'extract' }] });
    const run = await ledger.start({ pipeline: 'tasks', date: '2026-11-02' });
    await expect(ledger.task({ runId: run.runId, taskId: 'extract', state: 'failed', error: 'e'.repeat(2000) })).rejects.toMatchObject({ code: 'input.errorTooLong' });
    await expect(ledger.interrupt({ runId: run.runId, by: 'SIGTERM', message: 'm'.repeat(2000) })).rejects.toMatchObject({ code: 'input.errorTooLong' });
  });

  test('the runner fails a run whose metrics pass the cap, and cuts a long error to fit instead of leaving the date running', async () => {
    const ledger = await ledgerWithCaps();
    await expect(withRun(ledger, 'small', '2026-11-02', () => blob(3000))).rejects.toMatchObject({ code: 'input.invalidMetrics' });
    const day2 = await statusOf(ledger, 'small', '2026-11-02');
    expect(day2).toMatchObject({ status: 'failed', errorCode: 'invalidMetrics' });
    expect(day2?.error).toContain('over the 2 KB limit');

    await expect(
      withRun(ledger, 'small', '2026-11-03', () => {
        throw new Error(`load failed: ${'trace line\n'.repeat(400)}the real cause at the end`);
      }),
    ).rejects.toThrow(/load failed/);
    const day3 = await statusOf(ledger, 'small', '2026-11-03');
    expect(day3?.status).toBe('failed');
    expect(utf8Bytes(day3?.error ?? '')).toBeLessThanOrEqual(1024);
    expect(day3?.error).toMatch(/^load failed: trace line/);
    expect(day3?.error).toContain('bytes cut to fit the 1 KB limit');
    expect(day3?.error).toMatch(/the real cause at the end$/);
  });

  test("serve's write API refuses metrics over the pipeline's cap with 400 and the CLI's message", async () => {
    const ledger = await ledgerWithCaps();
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 'w' });
    apps.push(app);
    const headers = { authorization: 'Bearer w' };
    const run = (await app.inject({ method: 'POST', url: '/api/pipelines/small/runs', headers, payload: { date: '2026-11-02' } })).json() as { runId: string };
    const refused = await app.inject({ method: 'POST', url: `/api/runs/${run.runId}/succeed`, headers, payload: { metrics: blob(3000) } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: { code: 'input.invalidMetrics', message: expect.stringContaining('over the 2 KB limit') } });
    const long = await app.inject({ method: 'POST', url: `/api/runs/${run.runId}/fail`, headers, payload: { error: 'e'.repeat(1500) } });
    expect(long.statusCode).toBe(400);
    expect((await statusOf(ledger, 'small', '2026-11-02'))?.status).toBe('running');
  });

  test("an OpenLineage FAIL whose error message passes the cap is recorded, cut to the pipeline's cap", async () => {
    const ledger = await ledgerWithCaps();
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 'w' });
    apps.push(app);
    const interval = dayInterval('2026-11-04');
    const post = (event: unknown) =>
      app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { authorization: 'Bearer w', 'content-type': 'application/json' }, payload: JSON.stringify(event) });
    const trace = `Traceback (most recent call last):\n${'  File "dag.py", line 1, in extract\n'.repeat(200)}FileNotFoundError: orders_2026-11-04.csv`;
    await post(dagRunEvent({ eventType: 'START', runId: runIdOf(9), dagId: 'small', ...interval, eventTime: '2026-11-05T00:00:05Z' }));
    const failed = await post(dagRunEvent({ eventType: 'FAIL', runId: runIdOf(9), dagId: 'small', ...interval, eventTime: '2026-11-05T00:10:00Z', error: trace }));
    expect(failed.json()).toMatchObject({ results: [{ outcome: 'recorded' }] });
    const day = await statusOf(ledger, 'small', '2026-11-04');
    expect(day?.status).toBe('failed');
    expect(utf8Bytes(day?.error ?? '')).toBeLessThanOrEqual(1024);
    expect(day?.error).toMatch(/^Traceback/);
    expect(day?.error).toMatch(/FileNotFoundError: orders_2026-11-04\.csv$/);
  });
});

describe('fitText', () => {
  test.each([
    { label: 'ASCII', text: 'a'.repeat(5000) },
    { label: 'two-byte characters', text: 'é'.repeat(3000) },
    { label: 'surrogate pairs', text: '😀'.repeat(2000) },
  ])('cuts $label to at most the limit, keeping its start and its end whole', ({ text }) => {
    const fitted = fitText(text, 1024);
    expect(utf8Bytes(fitted)).toBeLessThanOrEqual(1024);
    expect(utf8Bytes(fitted)).toBeGreaterThan(900);
    expect(fitted).toContain('cut to fit the 1 KB limit');
    // No half of a surrogate pair is left at a cut.
    expect(fitted).toBe(Buffer.from(fitted, 'utf8').toString('utf8'));
  });

  test('a text within the limit is kept as it is', () => {
    expect(fitText('short', 1024)).toBe('short');
  });
});

describe('sizes as the CLI takes and prints them', () => {
  test.each([
    ['65536', 65536],
    ['64KB', 65536],
    ['64kb', 65536],
    ['1MB', 1048576],
    ['16 MiB', 16777216],
  ])('%s is %i bytes', (text, bytes) => {
    expect(parseByteSize(text, '--max-metrics-bytes')).toBe(bytes);
  });

  test.each(['', '1.5MB', '-1', '64 GB', 'lots'])("'%s' is refused", (text) => {
    expect(() => parseByteSize(text, '--max-metrics-bytes')).toThrow(/--max-metrics-bytes must be a size in bytes/);
  });

  test('formatBytes prints MB, KB or bytes', () => {
    expect([formatBytes(16 * 1024 * 1024), formatBytes(65536), formatBytes(1000)]).toEqual(['16 MB', '64 KB', '1000 bytes']);
  });
});
