import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { BindingIndex } from '../../src/ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage } from '../../src/ingest/openlineage/ingest-lineage.js';
import { acceptanceEvents, dagRunEvent, dailyDagStream, dayInterval, runIdOf, taskEvent } from '../support/airflow-events.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const NOW = Date.parse('2026-11-10T12:00:00Z');
const auth = { authorization: 'Bearer s3cret' };

async function setup(options: { tasks?: boolean; auto?: boolean; bind?: boolean } = {}): Promise<{ app: FastifyInstance; ledger: Ledger }> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  if (options.bind !== false) {
    await ledger.define({
      pipeline: 'airflow_orders',
      schedule: '0 0 * * *',
      start: '2026-11-02',
      openlineage: { namespace: 'default', job: 'airflow_orders' },
      ...(options.tasks ? { tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] } : {}),
    });
  }
  const app = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret', ...(options.auto ? { openlineageAuto: true } : {}) });
  apps.push(app);
  return { app, ledger };
}

function post(app: FastifyInstance, payload: unknown, headers: Record<string, string> = auth) {
  return app.inject({ method: 'POST', url: '/api/v1/lineage', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
}

async function postEach(app: FastifyInstance, events: unknown[]) {
  const answers = [];
  for (const event of events) answers.push(await post(app, event));
  return answers;
}

const statusOf = async (ledger: Ledger) =>
  Object.fromEntries((await ledger.state({ pipeline: 'airflow_orders' })).dates.map((d) => [d.date, `${d.status}/${d.attempt ?? '-'}/${d.runType ?? '-'}`]));

describe('POST /api/v1/lineage: Airflow DAG runs become ledger runs', () => {
  test('acceptance: START/COMPLETE for two dates and START/FAIL for a third leave only the third pending, failed, with the message', async () => {
    const { app, ledger } = await setup();
    const answers = await postEach(app, acceptanceEvents());
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.json().results[0].outcome)).toEqual(['recorded', 'recorded', 'recorded', 'recorded', 'recorded', 'recorded']);
    const pending = await ledger.pending({ pipeline: 'airflow_orders', to: '2026-11-04' });
    expect(pending.pending).toEqual([expect.objectContaining({ date: '2026-11-04', reason: 'failed', error: 'extract_orders failed: upstream file orders_2026-11-04.csv is missing' })]);
    const state = await ledger.state({ pipeline: 'airflow_orders', to: '2026-11-04' });
    expect(state.dates.find((d) => d.date === '2026-11-04')).toMatchObject({ status: 'failed', error: 'extract_orders failed: upstream file orders_2026-11-04.csv is missing', runId: runIdOf(3) });
    expect(state.watermark).toBe('2026-11-03');
  });

  test('the OpenLineage runId is the run id and the producer event time is kept on the run', async () => {
    const { app, ledger } = await setup();
    await postEach(app, acceptanceEvents().slice(0, 2));
    const runs = await ledger.runs({ pipeline: 'airflow_orders' });
    expect(runs.runs[0]).toMatchObject({ runId: runIdOf(1), date: '2026-11-02', runType: 'scheduled', openlineage: { namespace: 'default', job: 'airflow_orders', eventTime: '2026-11-03T00:00:05.120Z' } });
    const log = await ledger.log({ pipeline: 'airflow_orders', types: ['RunStarted'] });
    expect(log.events[0]?.metadata.reason).toContain('OpenLineage START of default/airflow_orders run');
  });

  test('a real delivery (duplicates, reversed order, a retry, a re-sent FAIL of a superseded attempt, manual and backfill runs) ends as the producer meant', async () => {
    const { app, ledger } = await setup();
    const answers = await postEach(app, dailyDagStream());
    const outcomes = answers.map((a) => a.json().results[0].outcome);
    // START and COMPLETE of 11-05 again, the late START of 11-06, and attempt 2's FAIL re-sent after attempt 3 started: it was recorded.
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(4);
    expect(answers.filter((a) => a.statusCode !== 200)).toEqual([]);
    expect(answers[15]?.json().results[0]).toMatchObject({ outcome: 'duplicate', message: expect.stringContaining('is already in the ledger') });
    expect(await statusOf(ledger)).toMatchObject({
      '2026-11-02': 'success/1/scheduled',
      '2026-11-03': 'success/1/scheduled',
      '2026-11-04': 'success/3/scheduled',
      '2026-11-05': 'success/1/scheduled',
      '2026-11-06': 'success/1/scheduled',
      '2026-11-07': 'success/1/manual',
      '2026-11-08': 'success/1/backfill',
    });
    const attempts = (await ledger.runs({ pipeline: 'airflow_orders', date: '2026-11-04' })).runs.map((r) => [r.runId, r.status, r.error]);
    expect(attempts).toEqual([
      [runIdOf(12), 'failed', 'load_orders failed: duplicate key value violates unique constraint "orders_pkey"'],
      [runIdOf(15), 'failed', 'load_orders failed: connection reset'],
      [runIdOf(16), 'success', null],
    ]);
  });

  test('the whole stream reversed in one batch ends in the same state (a batch is applied in eventTime order)', async () => {
    const one = await setup();
    await postEach(one.app, dailyDagStream());
    const batch = await setup();
    const res = await post(batch.app, [...dailyDagStream()].reverse());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ received: 21, refused: 0 });
    expect(await statusOf(batch.ledger)).toEqual(await statusOf(one.ledger));
  });

  test('a re-sent batch changes nothing: every event is a duplicate', async () => {
    const { app, ledger } = await setup();
    await post(app, acceptanceEvents());
    const head = (await ledger.store.head()).position;
    const again = await post(app, acceptanceEvents());
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ recorded: 0, duplicates: 6 });
    expect((await ledger.store.head()).position).toBe(head);
  });

  test('a newer attempt while an older one still runs supersedes it; the older one\'s late COMPLETE is fenced out', async () => {
    const { app, ledger } = await setup();
    const day = dayInterval('2026-11-04');
    await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...day, eventTime: '2026-11-05T00:00:00Z' }));
    const newer = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(2), ...day, eventTime: '2026-11-05T06:00:00Z' }));
    expect(newer.json().results[0]).toMatchObject({ outcome: 'recorded', date: '2026-11-04' });
    const late = await post(app, dagRunEvent({ eventType: 'COMPLETE', runId: runIdOf(1), ...day, eventTime: '2026-11-05T06:30:00Z' }));
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('ledger.staleRun');
    const runs = (await ledger.runs({ pipeline: 'airflow_orders' })).runs;
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([[1, 'failed'], [2, 'running']]);
    expect(runs[0]?.error).toContain(`superseded by OpenLineage run ${runIdOf(2)}`);
  });

  test('a START of an older attempt that arrives after a newer attempt failed is refused as stale, not counted as attempt 3', async () => {
    const { app, ledger } = await setup();
    const day = dayInterval('2026-11-04');
    await post(app, [
      dagRunEvent({ eventType: 'START', runId: runIdOf(2), ...day, eventTime: '2026-11-05T06:00:00Z' }),
      dagRunEvent({ eventType: 'FAIL', runId: runIdOf(2), ...day, eventTime: '2026-11-05T06:10:00Z', error: 'boom' }),
    ]);
    const old = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...day, eventTime: '2026-11-05T00:00:00Z' }));
    expect(old.statusCode).toBe(409);
    expect(old.json().error.message).toContain('is older');
    expect((await ledger.state({ pipeline: 'airflow_orders', to: '2026-11-04' })).dates.find((d) => d.date === '2026-11-04')).toMatchObject({ status: 'failed', attempt: 1, runId: runIdOf(2) });
  });

  test('a new run of a date that succeeded is a recorded reprocess (the producer re-ran it)', async () => {
    const { app, ledger } = await setup();
    const day = dayInterval('2026-11-02');
    await post(app, [
      dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...day, eventTime: '2026-11-03T00:00:00Z' }),
      dagRunEvent({ eventType: 'COMPLETE', runId: runIdOf(1), ...day, eventTime: '2026-11-03T00:10:00Z' }),
      dagRunEvent({ eventType: 'START', runId: runIdOf(2), ...day, eventTime: '2026-11-06T00:00:00Z' }),
    ]);
    const row = (await ledger.state({ pipeline: 'airflow_orders', to: '2026-11-02' })).dates[0];
    expect(row).toMatchObject({ status: 'running', attempt: 2, runId: runIdOf(2) });
    const started = (await ledger.log({ pipeline: 'airflow_orders', types: ['RunStarted'] })).events.map((e) => (e.data as { force: boolean }).force);
    expect(started).toEqual([false, true]);
  });

  test('ABORT records the run as interrupted (pending again, not failed); RUNNING extends its lease', async () => {
    const { app, ledger } = await setup();
    const day = dayInterval('2026-11-05');
    await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...day, eventTime: '2026-11-06T00:00:00Z' }));
    const beat = await post(app, dagRunEvent({ eventType: 'RUNNING', runId: runIdOf(1), ...day, eventTime: '2026-11-06T00:30:00Z' }));
    expect(beat.json().results[0].message).toContain('lease extended');
    await post(app, dagRunEvent({ eventType: 'ABORT', runId: runIdOf(1), ...day, eventTime: '2026-11-06T01:00:00Z' }));
    const row = (await ledger.state({ pipeline: 'airflow_orders', from: '2026-11-05', to: '2026-11-05' })).dates[0];
    expect(row).toMatchObject({ status: 'interrupted' });
    const pending = await ledger.pending({ pipeline: 'airflow_orders', from: '2026-11-05', to: '2026-11-05' });
    expect(pending.pending.map((p) => [p.date, p.reason])).toEqual([['2026-11-05', 'interrupted']]);
  });

  test('OTHER events and JobEvents are answered as ignored, with the reason', async () => {
    const { app } = await setup();
    const other = await post(app, dagRunEvent({ eventType: 'OTHER', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' }));
    expect(other.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('metadata only') });
    const jobEvent = { eventTime: '2026-11-03T00:00:00Z', producer: 'https://example.com/p', schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent', job: { namespace: 'default', name: 'airflow_orders' } };
    expect((await post(app, jobEvent)).json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('JobEvent') });
  });

  test('manual runs keep the nominal data interval; an off-slot manual run is off-schedule; an off-slot scheduled run is refused', async () => {
    const { app, ledger } = await setup();
    const manual = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), intervalStart: '2026-11-05T06:00:00+00:00', intervalEnd: '2026-11-05T12:00:00+00:00', eventTime: '2026-11-05T12:01:00Z', runType: 'manual' }));
    expect(manual.json().results[0]).toMatchObject({ outcome: 'recorded', date: '2026-11-05T06:00:00+00:00' });
    const run = (await ledger.runs({ pipeline: 'airflow_orders' })).runs[0];
    expect(run).toMatchObject({ runType: 'manual', offSchedule: true, dataInterval: { start: '2026-11-05T06:00:00+00:00', end: '2026-11-05T12:00:00+00:00' } });
    const scheduled = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(2), intervalStart: '2026-11-05T06:00:00+00:00', intervalEnd: '2026-11-06T06:00:00+00:00', eventTime: '2026-11-06T06:01:00Z' }));
    expect(scheduled.statusCode).toBe(409);
    expect(scheduled.json().error).toMatchObject({ code: 'ledger.notASlot', message: expect.stringContaining('is not a slot of airflow_orders') });
  });

  test('an unbound job without a bound parent is ignored with how to bind it; with --strict-lineage it is 404; nothing written either way', async () => {
    const { app, ledger } = await setup();
    const head = (await ledger.store.head()).position;
    const event = dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z', dagId: 'other_dag' });
    const res = await post(app, event);
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('runledger define <pipeline> --openlineage default/other_dag') });
    const strict = await createServer({ ledger, clock: () => NOW, writeToken: 's3cret', strictLineage: true });
    apps.push(strict);
    const refused = await post(strict, event);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error).toEqual({ code: 'notFound.openlineageJob', message: expect.stringContaining('runledger define <pipeline> --openlineage default/other_dag') });
    expect((await ledger.store.head()).position).toBe(head);
  });

  test('a malformed event is 400 naming the path; a batch with one is refused whole', async () => {
    const { app, ledger } = await setup();
    const head = (await ledger.store.head()).position;
    const bad = dagRunEvent({ eventType: 'START', runId: 'not-a-uuid', ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' });
    const res = await post(app, [acceptanceEvents()[0], bad]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'input.invalidOpenLineageEvent', message: expect.stringContaining('event 2 breaks the OpenLineage schema at run.runId: must be a UUID'), invalid: [{ index: 1, path: 'run.runId' }] });
    expect((await ledger.store.head()).position).toBe(head);
  });

  test("an unparsable time in Airflow's facet is 400 naming it", async () => {
    const { app } = await setup();
    const event = dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' }) as { run: { facets: Record<string, { dagRun?: Record<string, unknown> }> } };
    delete event.run.facets['nominalTime'];
    (event.run.facets['airflowDagRun']?.dagRun as Record<string, unknown>)['data_interval_start'] = 'yesterday';
    const res = await post(app, event);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'input.invalidTime', message: expect.stringContaining("run.facets.airflowDagRun.dagRun.data_interval_start: 'yesterday'") });
  });

  test('without the write token: 401 and nothing written; without a write token on the server: 403', async () => {
    const { app, ledger } = await setup();
    const head = (await ledger.store.head()).position;
    for (const event of acceptanceEvents()) expect((await post(app, event, {})).statusCode).toBe(401);
    expect((await ledger.store.head()).position).toBe(head);
    const readOnly = await createServer({ ledger, clock: () => NOW });
    apps.push(readOnly);
    expect((await readOnly.inject({ method: 'POST', url: '/api/v1/lineage', payload: acceptanceEvents()[0] as object })).statusCode).toBe(403);
  });

  test('a run id that belongs to another pipeline is refused', async () => {
    const { app, ledger } = await setup();
    await ledger.define({ pipeline: 'other', schedule: '@daily', start: '2026-11-02', openlineage: { namespace: 'default', job: 'other' } });
    await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z', dagId: 'other' }));
    const res = await post(app, dagRunEvent({ eventType: 'COMPLETE', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:01:00Z' }));
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('ledger.runElsewhere');
  });
});

describe('task-level events', () => {
  const task = (eventType: 'START' | 'COMPLETE' | 'FAIL', taskId: string, at: string, extra: { error?: string; tryNumber?: number } = {}) =>
    taskEvent({ eventType, taskId, taskRunId: runIdOf(100 + taskId.length + (extra.tryNumber ?? 1)), runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: at, ...extra });

  test('of a pipeline with tasks become TaskStateChanged of the DAG run, and the run outcome follows its leaves', async () => {
    const { app, ledger } = await setup({ tasks: true });
    const answers = await postEach(app, [
      dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' }),
      task('START', 'extract', '2026-11-03T00:00:10Z'),
      task('COMPLETE', 'extract', '2026-11-03T00:01:00Z'),
      task('START', 'load', '2026-11-03T00:01:10Z'),
      task('FAIL', 'load', '2026-11-03T00:02:00Z', { error: 'load failed: disk full' }),
      dagRunEvent({ eventType: 'FAIL', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:02:05Z', error: 'load failed: disk full' }),
    ]);
    expect(answers.map((a) => a.json().results[0].outcome)).toEqual(['recorded', 'recorded', 'recorded', 'recorded', 'recorded', 'duplicate']);
    const grid = await ledger.runTasks({ pipeline: 'airflow_orders', runId: runIdOf(1) });
    expect(grid.tasks.map((t) => [t.taskId, t.state])).toEqual([['extract', 'success'], ['load', 'failed']]);
    expect((await ledger.state({ pipeline: 'airflow_orders', to: '2026-11-02' })).dates[0]).toMatchObject({ status: 'failed' });
  });

  test('a task event before its DAG run START starts the run from its own facets; a late task START after its end changes nothing', async () => {
    const { app, ledger } = await setup({ tasks: true });
    const first = await post(app, task('COMPLETE', 'extract', '2026-11-03T00:01:00Z'));
    expect(first.json().results[0]).toMatchObject({ outcome: 'recorded', message: expect.stringContaining("started airflow_orders 2026-11-02 attempt 1 from task extract's COMPLETE") });
    const late = await post(app, task('START', 'extract', '2026-11-03T00:00:10Z'));
    expect(late.json().results[0]).toMatchObject({ outcome: 'duplicate' });
    const dagStart = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' }));
    expect(dagStart.json().results[0].outcome).toBe('duplicate');
    expect((await ledger.runTasks({ pipeline: 'airflow_orders', runId: runIdOf(1) })).tasks[0]).toMatchObject({ taskId: 'extract', state: 'success' });
  });

  test('of a pipeline without tasks are ignored with the reason; of an undeclared task too, and 404 with --strict-lineage', async () => {
    const plain = await setup();
    await post(plain.app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z' }));
    const ignored = await post(plain.app, task('START', 'extract', '2026-11-03T00:00:10Z'));
    expect(ignored.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('records no task-level state') });
    const withTasks = await setup({ tasks: true });
    const unknown = await post(withTasks.app, task('START', 'transform', '2026-11-03T00:00:10Z'));
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('declares no task transform') });
    const strict = await createServer({ ledger: withTasks.ledger, clock: () => NOW, writeToken: 's3cret', strictLineage: true });
    apps.push(strict);
    const refused = await post(strict, task('START', 'transform', '2026-11-03T00:00:10Z'));
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.code).toBe('notFound.task');
  });
});

describe('unbound DAGs', () => {
  test("a task event of an unbound DAG is ignored, advising to bind the DAG (its parent), not the task", async () => {
    const { app } = await setup({ bind: false });
    const res = await post(app, taskEvent({ eventType: 'START', taskId: 'extract', taskRunId: runIdOf(2), runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:10Z' }));
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toMatchObject({
      outcome: 'ignored',
      message: expect.stringContaining('no pipeline is bound to the OpenLineage job default/airflow_orders.extract (nor to its parent default/airflow_orders), so this START is not kept; bind one with `runledger define <pipeline> --openlineage default/airflow_orders`'),
    });
  });
});

describe('--openlineage-auto', () => {
  test("defines an unbound DAG from its dag facet's cron timetable and zone, once", async () => {
    const { app, ledger } = await setup({ bind: false, auto: true });
    const res = await post(app, acceptanceEvents());
    expect(res.statusCode).toBe(200);
    const [definition] = await ledger.pipelines();
    expect(definition).toMatchObject({ pipeline: 'airflow_orders', schedule: '0 0 * * *', timezone: 'UTC', timetable: 'interval', openlineage: { namespace: 'default', job: 'airflow_orders' } });
    expect((await ledger.pending({ pipeline: 'airflow_orders', to: '2026-11-04' })).pending.map((p) => p.date)).toEqual(['2026-11-04']);
    expect((await ledger.log({ types: ['PipelineDefined', 'PipelineRedefined'] })).events).toHaveLength(1);
  });

  test('without it an unbound DAG is ignored and the reason names the option', async () => {
    const { app } = await setup({ bind: false });
    const res = await post(app, acceptanceEvents()[0]);
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('--openlineage-auto') });
  });

  test('a DAG without a cron timetable is refused with the reason', async () => {
    const { app } = await setup({ bind: false, auto: true });
    const res = await post(app, dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:00Z', schedule: '@once' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('input.noCronTimetable');
  });
});

describe('dry run', () => {
  test('shows what each event would record and writes nothing', async () => {
    const ledger = openMemoryLedger({ clock: () => NOW });
    await ledger.define({ pipeline: 'airflow_orders', schedule: '0 0 * * *', start: '2026-11-02', openlineage: { namespace: 'default', job: 'airflow_orders' } });
    const head = (await ledger.store.head()).position;
    const report = await ingestLineage(ledger, new BindingIndex(ledger.store), checkLineageEvents(acceptanceEvents()), { auto: false, dryRun: true });
    expect(report).toMatchObject({ dryRun: true, recorded: 6, refused: 0 });
    expect(report.written.map((w) => `${w.type} ${w.date}`)).toEqual([
      'RunStarted 2026-11-02',
      'RunSucceeded 2026-11-02',
      'RunStarted 2026-11-03',
      'RunSucceeded 2026-11-03',
      'RunStarted 2026-11-04',
      'RunFailed 2026-11-04',
    ]);
    expect((await ledger.store.head()).position).toBe(head);
  });
});
