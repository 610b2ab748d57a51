import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { BindingIndex } from '../../src/ingest/openlineage/binding-index.js';
import { datasetOf, exportOpenLineage } from '../../src/ingest/openlineage/export-openlineage.js';
import { ingestLineage, parseEachLineageEvent, type IngestReport } from '../../src/ingest/openlineage/ingest-lineage.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { collectMetrics } from '../../src/ops/collect-metrics.js';
import { readStatus } from '../../src/ops/read-status.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { deriveRunOutcome } from '../../projections/derive-run-outcome.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { openLineageSpecErrors } from '../support/openlineage-spec.js';
import { PRODUCER_BATCHES, airflow3UpstreamFailed, dbtRun, sparkApplication, type ExpectedRow, type ProducerBatch } from '../support/producer-events.js';
import { tempDir } from '../support/run-cli.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/openlineage/producers');
const NOW = Date.parse('2026-11-10T12:00:00Z');
const auth = { authorization: 'Bearer s3cret' };

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

type Json = Record<string, unknown>;

/** The batch as its file holds it. */
function fixture(batch: ProducerBatch): Json[] {
  return readFileSync(join(FIXTURES, batch.file), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
}

/** A fixed shuffle (mulberry32), so a failure names an order that can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const ORDERS: Array<[string, (events: Json[]) => Json[]]> = [
  ['in order', (e) => e],
  ['reversed', (e) => [...e].reverse()],
  ['shuffled', (e) => shuffled(e, 0x25)],
];

async function define(ledger: Ledger, batch: ProducerBatch): Promise<void> {
  for (const pipeline of batch.pipelines) await ledger.define(pipeline);
}

async function freshLedger(batch: ProducerBatch): Promise<Ledger> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await define(ledger, batch);
  return ledger;
}

/** Every date that had a run, as the expectation writes it. */
async function stateOf(ledger: Ledger, batch: ProducerBatch): Promise<Record<string, Record<string, ExpectedRow>>> {
  const out: Record<string, Record<string, ExpectedRow>> = {};
  for (const { pipeline } of batch.pipelines) {
    const rows: Record<string, ExpectedRow> = {};
    for (const d of (await ledger.state({ pipeline })).dates) {
      if (d.status === 'missing') continue;
      rows[d.date] = { status: d.status, attempt: d.attempt ?? 0, runType: d.runType ?? '', error: d.error, startedAt: d.startedAt ?? '', finishedAt: d.finishedAt, ...(d.outputs.length > 0 ? { outputs: d.outputs } : {}) };
    }
    out[pipeline] = rows;
  }
  return out;
}

async function tasksOf(ledger: Ledger, batch: ProducerBatch): Promise<ProducerBatch['tasks']> {
  const out: NonNullable<ProducerBatch['tasks']> = {};
  for (const [pipeline, runs] of Object.entries(batch.tasks ?? {})) {
    out[pipeline] = {};
    for (const runId of Object.keys(runs)) {
      const grid = await ledger.runTasks({ pipeline, runId });
      (out[pipeline] as Record<string, Record<string, string | null>>)[runId] = Object.fromEntries(grid.tasks.map((t) => [t.taskId, t.state]));
    }
  }
  return out;
}

/** What ingest answered, as the re-send must answer it: a recorded (or already recorded) event is a duplicate, an ignored one is ignored again. */
function resendAnswers(report: Pick<IngestReport, 'results'>): string[] {
  return report.results.map((r) => (r.outcome === 'recorded' ? 'duplicate' : r.outcome));
}

type Channel = (batch: ProducerBatch, events: Json[]) => Promise<{ first: IngestReport; again: IngestReport; ledger: Ledger; headMoved: boolean }>;

/** `ingest openlineage FILE --json` in-process, on a SQLite ledger in a temp dir, twice. */
const viaCli: Channel = async (batch, events) => {
  const dir = tempDir();
  const db = join(dir, 'ledger.db');
  const setup = await openLedger({ db, clock: () => NOW, actor: 'test' });
  await define(setup, batch);
  await setup.close();
  const file = join(dir, 'events.jsonl');
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const run = async () => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['--db', db, '--now', new Date(NOW).toISOString(), 'ingest', 'openlineage', file, '--json'], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: () => NOW, isTTY: false }, extraCommands);
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as IngestReport;
  };
  const first = await run();
  const ledger = await openLedger({ db, clock: () => NOW, actor: 'test' });
  const head = (await ledger.store.head()).position;
  await ledger.close();
  const again = await run();
  const after = await openLedger({ db, clock: () => NOW, actor: 'test' });
  return { first, again, ledger: after, headMoved: (await after.store.head()).position !== head };
};

/** `POST /api/v1/lineage` with the batch as one JSON array, twice. */
const viaHttp: Channel = async (batch, events) => {
  const ledger = await freshLedger(batch);
  const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret' });
  apps.push(app);
  const post = async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(events) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as IngestReport;
  };
  const first = await post();
  const head = (await ledger.store.head()).position;
  const again = await post();
  return { first, again, ledger, headMoved: (await ledger.store.head()).position !== head };
};

describe.each(PRODUCER_BATCHES.map((b) => [b.title, b] as const))('%s', (_title, batch) => {
  test.each(ORDERS.flatMap(([order, arrange]) => [
    [`${order}, through ingest openlineage`, arrange, viaCli] as const,
    [`${order}, through POST /api/v1/lineage`, arrange, viaHttp] as const,
  ]))('%s: the state is the expected one, the times are the producer\'s, and re-sending the batch records nothing', async (_label, arrange, channel) => {
    const { first, again, ledger, headMoved } = await channel(batch, arrange(fixture(batch)));
    try {
      expect(first.results.filter((r) => r.outcome === 'refused')).toEqual([]);
      expect(await stateOf(ledger, batch)).toEqual(batch.expected);
      if (batch.tasks) expect(await tasksOf(ledger, batch)).toEqual(batch.tasks);
      expect(again.results.map((r) => r.outcome)).toEqual(resendAnswers(first));
      expect(again.recorded).toBe(0);
      expect(headMoved).toBe(false);
    } finally {
      await ledger.close();
    }
  });

  test('the export validates against the OpenLineage JSON Schema and, ingested into a fresh ledger, gives the same state', async () => {
    const ledger = await freshLedger(batch);
    await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent(fixture(batch)), { auto: false });
    const lines: string[] = [];
    for await (const line of exportOpenLineage(ledger, { toolVersion: '9.9.9' })) lines.push(line);
    const exported = lines.map((l) => JSON.parse(l) as Json);
    for (const event of exported) expect(openLineageSpecErrors(event)).toEqual([]);
    const fresh = await freshLedger(batch);
    const report = await ingestLineage(fresh, new BindingIndex(fresh.store), parseEachLineageEvent(exported), { auto: false });
    expect(report.refused).toBe(0);
    expect(await stateOf(fresh, batch)).toEqual(batch.expected);
  });

  test('every event of the fixture is valid OpenLineage, and the fixture is what its builder writes', () => {
    const text = batch.events().map((e) => JSON.stringify(e)).join('\n') + '\n';
    if (process.env['UPDATE_FIXTURES']) writeFileSync(join(FIXTURES, batch.file), text);
    expect(readFileSync(join(FIXTURES, batch.file), 'utf8')).toBe(text);
    for (const event of fixture(batch)) expect(openLineageSpecErrors(event)).toEqual([]);
  });
});

describe("the producer's clock", () => {
  test('run durations (runledger_run_duration_seconds) are the producer\'s, not the time of ingest', async () => {
    const ledger = await freshLedger(sparkApplication);
    await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent(fixture(sparkApplication)), { auto: false });
    const runs = (await ledger.runs({ pipeline: 'spark_orders' })).runs.map((r) => (Date.parse(r.finishedAt ?? '') - Date.parse(r.startedAt)) / 1000);
    expect(runs).toEqual([381.593, 234.119]);
    const { text } = await collectMetrics(ledger, { nowMs: NOW, verify: null });
    expect(text).toContain('runledger_run_duration_seconds_sum{pipeline="spark_orders",outcome="success"} 381.593');
    expect(text).toContain('runledger_run_duration_seconds_sum{pipeline="spark_orders",outcome="failed"} 234.119');
    // The ledger's own record of when it heard of them stays the ingest time.
    const log = await ledger.log({ pipeline: 'spark_orders', types: ['RunStarted'] });
    expect(log.events.map((e) => e.recordedAt)).toEqual([new Date(NOW).toISOString(), new Date(NOW).toISOString()]);
  });

  test('library callers pass the producer\'s time as `at`: the run\'s start, end and duration follow it; a time without a zone is refused', async () => {
    const ledger = openMemoryLedger({ clock: () => NOW });
    await ledger.define({ pipeline: 'etl', schedule: '0 0 * * *', start: '2026-11-01' });
    const run = await ledger.start({ pipeline: 'etl', date: '2026-11-02', at: '2026-11-03T01:00:00+01:00' });
    await expect(ledger.succeed({ runId: run.runId, at: '2026-11-03T00:30:00' })).rejects.toMatchObject({ code: 'input.invalidInstant' });
    await ledger.succeed({ runId: run.runId, at: '2026-11-03T00:30:00Z', outputs: [{ namespace: 's3://lake', name: 'orders/2026-11-02' }] });
    const [row] = (await ledger.runs({ pipeline: 'etl' })).runs;
    expect(row).toMatchObject({ startedAt: '2026-11-03T00:00:00.000Z', finishedAt: '2026-11-03T00:30:00.000Z', outputs: [{ namespace: 's3://lake', name: 'orders/2026-11-02' }] });
    const [event] = (await ledger.log({ pipeline: 'etl', types: ['RunSucceeded'] })).events;
    expect(event?.recordedAt).toBe(new Date(NOW).toISOString());
  });

  test('the CLI takes it too: start --at and succeed --at record a run that ran elsewhere with its own times', async () => {
    const dir = tempDir();
    const db = join(dir, 'ledger.db');
    const cli = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(['--db', db, '--now', '2026-11-10T12:00:00Z', ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: () => NOW, isTTY: false }, extraCommands);
      return { code, stdout, stderr };
    };
    expect((await cli(['define', 'etl', '--schedule', '0 0 * * *', '--start', '2026-11-01'])).code).toBe(0);
    const run = (await cli(['start', 'etl', '2026-11-02', '--at', '2026-11-03T00:00:00Z'])).stdout.trim();
    const bad = await cli(['succeed', run, '--at', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'yesterday' is not an instant");
    expect((await cli(['succeed', run, '--at', '2026-11-03T00:12:30Z'])).code).toBe(0);
    const runs = JSON.parse((await cli(['runs', 'etl', '--json'])).stdout) as { runs: Array<{ startedAt: string; finishedAt: string }> };
    expect(runs.runs.map((r) => [r.startedAt, r.finishedAt])).toEqual([['2026-11-03T00:00:00.000Z', '2026-11-03T00:12:30.000Z']]);
  });

  test('outputs recorded as text (succeed --output, older ingests) are exported split after the URI authority, else at the first /', () => {
    expect(datasetOf('postgres://db:5432/public.orders')).toEqual({ namespace: 'postgres://db:5432', name: 'public.orders' });
    expect(datasetOf('s3://bucket/orders/2026-11-02.csv')).toEqual({ namespace: 's3://bucket', name: 'orders/2026-11-02.csv' });
    expect(datasetOf('dbfs//user/hive/warehouse/temp')).toEqual({ namespace: 'dbfs', name: '/user/hive/warehouse/temp' });
    expect(datasetOf('orders_table')).toEqual({ namespace: 'runledger', name: 'orders_table' });
    expect(datasetOf({ namespace: 'dbfs', name: '/user/hive/warehouse/temp' })).toEqual({ namespace: 'dbfs', name: '/user/hive/warehouse/temp' });
  });

  test('the last failure of a dbt project is the one that failed last at the source, whatever order the events came in', async () => {
    for (const [, arrange] of ORDERS) {
      const ledger = await freshLedger(dbtRun);
      for (const event of arrange(fixture(dbtRun))) await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent([event]), { auto: false });
      const [status] = (await readStatus(ledger, { pipelines: ['jaffle_shop'] })).pipelines;
      expect(status?.lastFailure).toMatchObject({ date: '2024-12-15T06:00:00+00:00', at: '2024-12-16T06:00:43.000Z' });
    }
  });
});

describe('task-level pipelines: the DAG run\'s end is Airflow\'s verdict', () => {
  test('tasks settled from airflowState are what deriveRunOutcome needs to give the verdict, so the masking lint\'s view holds', async () => {
    const ledger = await freshLedger(airflow3UpstreamFailed);
    await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent(fixture(airflow3UpstreamFailed)), { auto: false });
    const { definition, tasks } = await ledger.pipeline('orders_tasks');
    const runId = Object.keys(airflow3UpstreamFailed.tasks?.['orders_tasks'] ?? {})[0] as string;
    expect(deriveRunOutcome(definition.tasks ?? [], tasks.runs.get(runId) ?? new Map())).toMatchObject({ status: 'failed', failedLeaves: [{ taskId: 'load', state: 'upstream_failed' }] });
    const unreported = (await ledger.runs({ pipeline: 'orders_tasks', date: '2026-11-03' })).runs[0];
    expect(unreported?.unreportedTasks).toEqual(['load']);
  });

  test('a DAG whose all_done leaf masks a failure: the lint warns, and Airflow\'s COMPLETE is recorded as the success the lint predicts', async () => {
    const tasks = [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }, { id: 'cleanup', upstream: ['load'], triggerRule: 'all_done' as const }];
    const ledger = openMemoryLedger({ clock: () => NOW });
    await ledger.define({ pipeline: 'orders_tasks', schedule: '0 0 * * *', start: '2026-11-01', openlineage: { namespace: 'default', job: 'orders_tasks' }, tasks });
    const { definition } = await ledger.pipeline('orders_tasks');
    expect(lintTasks(definition.tasks ?? []).map((w) => w.leaf)).toEqual(['cleanup']);
    const events = fixture(airflow3UpstreamFailed).slice(0, 4).map((e) => structuredClone(e));
    const dagFail = events[3] as { eventType: string; run: { facets: { airflowState: { dagRunState: string; tasksState: Record<string, string> } } } };
    dagFail.eventType = 'COMPLETE';
    dagFail.run.facets.airflowState = { ...dagFail.run.facets.airflowState, dagRunState: 'success', tasksState: { extract: 'failed', load: 'upstream_failed', cleanup: 'success' } };
    const report = await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent(events), { auto: false });
    expect(report.refused).toBe(0);
    const row = (await ledger.state({ pipeline: 'orders_tasks', from: '2026-11-02', to: '2026-11-02' })).dates[0];
    expect(row).toMatchObject({ status: 'success' });
    const grid = await ledger.runTasks({ pipeline: 'orders_tasks', runId: row?.runId as string });
    expect(grid.tasks.map((t) => [t.taskId, t.state])).toEqual([['extract', 'failed'], ['load', 'upstream_failed'], ['cleanup', 'success']]);
    expect(grid.outcome).toMatchObject({ status: 'success' });
  });

  test('runs --run shows the tasks a verdict left unreported as not reported, not as unfinished', async () => {
    const dir = tempDir();
    const db = join(dir, 'ledger.db');
    const setup = await openLedger({ db, clock: () => NOW, actor: 'test' });
    await define(setup, airflow3UpstreamFailed);
    await ingestLineage(setup, new BindingIndex(setup.store), parseEachLineageEvent(fixture(airflow3UpstreamFailed)), { auto: false });
    await setup.close();
    const runId = Object.keys(airflow3UpstreamFailed.tasks?.['orders_tasks'] ?? {})[1] as string;
    let stdout = '';
    const code = await runCli(['--db', db, 'runs', 'orders_tasks', '--run', runId], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, clock: () => NOW, isTTY: false }, extraCommands);
    expect(code).toBe(0);
    expect(stdout).toContain(`run ${runId} of orders_tasks 2026-11-03, attempt 1: failed; ended by the producer's verdict; not reported: load`);
    expect(stdout).toMatch(/\nload\s+not reported\s+0\s+-/);
  });

  test('a task event that arrives after the verdict recorded it as not reported changes nothing', async () => {
    const ledger = await freshLedger(airflow3UpstreamFailed);
    const events = fixture(airflow3UpstreamFailed);
    await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent(events.slice(4, 8)), { auto: false });
    const late = structuredClone(events[6] as Json) as { eventTime: string; job: { name: string }; run: { runId: string; facets: { airflow: { task: { task_id: string } } } } };
    late.job.name = 'orders_tasks.load';
    late.run.facets.airflow.task.task_id = 'load';
    late.run.runId = late.run.runId.replace(/e(...)$/, 'f$1');
    late.eventTime = '2026-11-04T00:05:00.000Z';
    const report = await ingestLineage(ledger, new BindingIndex(ledger.store), parseEachLineageEvent([late]), { auto: false });
    expect(report.results[0]).toMatchObject({ outcome: 'duplicate', message: expect.stringContaining('recorded task load as not reported') });
  });
});

describe('unbound children', () => {
  test('dbt models and tests under a bound invocation are answered ignored (2xx) with the reason; so is every event of an unbound project, 404 only with --strict-lineage', async () => {
    const ledger = await freshLedger(dbtRun);
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret' });
    apps.push(app);
    const res = await app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(fixture(dbtRun)) });
    expect(res.statusCode).toBe(200);
    const results = (res.json() as IngestReport).results;
    const model = results.find((r) => r.job === 'dbt-prod/model.jaffle_shop.orders');
    expect(model).toMatchObject({ outcome: 'ignored', pipeline: 'jaffle_shop', message: expect.stringContaining('it runs inside run') });
    const sql = results.find((r) => r.job === 'dbt-prod/model.jaffle_shop.orders.sql.1');
    expect(sql).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('(pipeline jaffle_shop)') });

    const unbound = openMemoryLedger({ clock: () => NOW });
    const lenient = await createServer({ ledger: unbound, clock: () => NOW, writeToken: 's3cret' });
    const strict = await createServer({ ledger: unbound, clock: () => NOW, writeToken: 's3cret', strictLineage: true });
    apps.push(lenient, strict);
    const one = JSON.stringify(fixture(dbtRun)[0]);
    const lenientRes = await lenient.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json' }, payload: one });
    expect(lenientRes.statusCode).toBe(200);
    expect(lenientRes.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('no pipeline is bound to the OpenLineage job dbt-prod/dbt-run-jaffle_shop') });
    const strictRes = await strict.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json' }, payload: one });
    expect(strictRes.statusCode).toBe(404);
    expect(strictRes.json().error.code).toBe('notFound.openlineageJob');
  });

  test("--openlineage-auto binds the triggered DAG's own job, not the triggering task's", async () => {
    const ledger = openMemoryLedger({ clock: () => NOW });
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret', openlineageAuto: true });
    apps.push(app);
    const events = fixture(PRODUCER_BATCHES[0] as ProducerBatch).filter((e) => (e['job'] as { name: string }).name === 'orders_report');
    const res = await app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(events) });
    expect(res.statusCode).toBe(200);
    expect((await ledger.pipelines()).map((p) => [p.pipeline, p.openlineage])).toEqual([['orders_report', { namespace: 'default', job: 'orders_report' }]]);
    expect((await ledger.state({ pipeline: 'orders_report' })).dates.find((d) => d.status !== 'missing')).toMatchObject({ status: 'failed', runType: 'manual' });
  });
});

describe('compressed bodies', () => {
  const post = (app: FastifyInstance, body: Buffer, encoding: string) =>
    app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': encoding }, payload: body });

  test('a gzip or deflate POST (the HTTP transport\'s compression: gzip) is decoded and recorded', async () => {
    const events = fixture(sparkApplication);
    for (const [encoding, encode] of [['gzip', gzipSync], ['deflate', deflateSync]] as const) {
      const ledger = await freshLedger(sparkApplication);
      const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret' });
      apps.push(app);
      const res = await post(app, encode(Buffer.from(JSON.stringify(events))), encoding);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ received: events.length, refused: 0 });
      expect(await stateOf(ledger, sparkApplication)).toEqual(sparkApplication.expected);
    }
  });

  test('a 1 KB gzip body that inflates past the body limit is 413, nothing written', async () => {
    const ledger = await freshLedger(sparkApplication);
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret', bodyLimit: 64 * 1024 });
    apps.push(app);
    const bomb = gzipSync(Buffer.from(`[${' '.repeat(900 * 1024)}]`), { level: 9 });
    expect(bomb.length).toBeLessThanOrEqual(1024);
    const head = (await ledger.store.head()).position;
    const res = await post(app, bomb, 'gzip');
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('input.bodyTooLarge');
    expect((await ledger.store.head()).position).toBe(head);
  });

  test('a body that is not what its Content-Encoding says is 400; an unknown encoding is 415', async () => {
    const ledger = await freshLedger(sparkApplication);
    const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret' });
    apps.push(app);
    const notGzip = await post(app, Buffer.from(JSON.stringify(fixture(sparkApplication)[0])), 'gzip');
    expect(notGzip.statusCode).toBe(400);
    expect(notGzip.json().error.message).toContain('the body is not valid gzip data');
    const brotli = await post(app, Buffer.from('{}'), 'br');
    expect(brotli.statusCode).toBe(415);
    expect(brotli.json().error.message).toContain("Content-Encoding 'br' is not supported");
  });
});
