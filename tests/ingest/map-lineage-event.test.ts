import { describe, expect, test } from 'vitest';
import { mapLineageEvent } from '../../src/ingest/openlineage/map-lineage-event.js';
import { parseLineageEvent, type RunEvent } from '../../src/ingest/openlineage/openlineage-event.js';
import { openLineageRunId } from '../../src/ingest/openlineage/export-openlineage.js';
import { dagRunEvent, dayInterval, runIdOf, taskEvent } from '../support/airflow-events.js';

function runEvent(value: unknown): RunEvent {
  const parsed = parseLineageEvent(value);
  if (!parsed.ok || parsed.value.kind !== 'run') throw new Error(`not a run event: ${JSON.stringify(parsed)}`);
  return parsed.value.event;
}

const day = { runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:05.120Z' };

describe('mapLineageEvent (pure: an OpenLineage event in, the ledger command out)', () => {
  test.each([
    ['START', 'start'],
    ['COMPLETE', 'succeed'],
    ['FAIL', 'fail'],
    ['ABORT', 'abort'],
    ['RUNNING', 'heartbeat'],
  ] as const)('a DAG-level %s is a %s of the job run', (eventType, action) => {
    const mapped = mapLineageEvent(runEvent(dagRunEvent({ ...day, eventType })));
    expect(mapped).toMatchObject({ ok: true, command: { kind: 'run', action, runId: runIdOf(1), job: { namespace: 'default', job: 'airflow_orders' }, runType: 'scheduled' } });
  });

  test('the nominal start comes from nominalTime; the eventTime is kept as an ISO instant', () => {
    const mapped = mapLineageEvent(runEvent(dagRunEvent({ ...day, eventType: 'START' })));
    expect(mapped).toMatchObject({ ok: true, command: { nominal: { startMs: Date.parse('2026-11-02T00:00:00Z'), endMs: Date.parse('2026-11-03T00:00:00Z'), from: 'nominalTime' }, eventTime: '2026-11-03T00:00:05.120Z' } });
  });

  test("without nominalTime, Airflow's data_interval_start; without either, no nominal time", () => {
    const event = dagRunEvent({ ...day, eventType: 'START' }) as { run: { facets: Record<string, unknown> } };
    delete event.run.facets['nominalTime'];
    expect(mapLineageEvent(runEvent(event))).toMatchObject({ ok: true, command: { nominal: { startMs: Date.parse('2026-11-02T00:00:00Z'), from: 'run.facets.airflowDagRun.dagRun.data_interval_start' } } });
    delete event.run.facets['airflowDagRun'];
    expect(mapLineageEvent(runEvent(event))).toMatchObject({ ok: true, command: { nominal: null, runType: 'scheduled', dag: null } });
  });

  test.each([
    ['scheduled', 'scheduled'],
    ['manual', 'manual'],
    ['backfill', 'backfill'],
    ['asset_triggered', 'manual'],
  ] as const)("Airflow's run_type %s is the run type %s", (runType, expected) => {
    expect(mapLineageEvent(runEvent(dagRunEvent({ ...day, eventType: 'START', runType })))).toMatchObject({ ok: true, command: { runType: expected } });
  });

  test("FAIL carries the errorMessage facet's message; the dag facet gives schedule and zone", () => {
    const mapped = mapLineageEvent(runEvent(dagRunEvent({ ...day, eventType: 'FAIL', error: 'boom', schedule: '30 2 * * *', timezone: 'Europe/Amsterdam' })));
    expect(mapped).toMatchObject({ ok: true, command: { error: 'boom', dag: { dagId: 'airflow_orders', schedule: '30 2 * * *', timezone: 'Europe/Amsterdam', startDate: '2026-11-02T00:00:00.000Z' } } });
  });

  test.each([
    ['START', 'running'],
    ['RUNNING', 'running'],
    ['COMPLETE', 'success'],
    ['FAIL', 'failed'],
    ['ABORT', 'failed'],
  ] as const)('a task-level %s keeps its own job and run, and is the task state %s of the parent run when that job is unbound', (eventType, state) => {
    const mapped = mapLineageEvent(runEvent(taskEvent({ ...day, eventType, taskId: 'extract', taskRunId: runIdOf(2), tryNumber: 2 })));
    expect(mapped).toMatchObject({
      ok: true,
      command: { kind: 'run', runId: runIdOf(2), job: { job: 'airflow_orders.extract' }, parent: { runId: runIdOf(1), job: { job: 'airflow_orders' } }, taskId: 'extract', taskState: state, tryNumber: 2 },
    });
  });

  test('OTHER is ignored with the reason', () => {
    expect(mapLineageEvent(runEvent(dagRunEvent({ ...day, eventType: 'OTHER' })))).toMatchObject({ ok: true, command: { kind: 'ignore', reason: expect.stringContaining('metadata only') } });
  });
});

describe('openLineageRunId', () => {
  test.each([
    ['a UUID stays itself (lowercased)', '0193A000-0000-7000-8000-00000000000A', '0193a000-0000-7000-8000-00000000000a'],
    ['a ULID is the UUID of the same 128 bits', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '01563e3a-b5d3-d676-4c61-efb99302bd5b'],
    ['the zero ULID is the zero UUID', '00000000000000000000000000', '00000000-0000-0000-0000-000000000000'],
  ])('%s', (_label, runId, uuid) => {
    expect(openLineageRunId(runId)).toBe(uuid);
  });

  test('any other id gets a stable UUID', () => {
    expect(openLineageRunId('my-run-7')).toBe(openLineageRunId('my-run-7'));
    expect(openLineageRunId('my-run-7')).toMatch(/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/);
    expect(openLineageRunId('my-run-7')).not.toBe(openLineageRunId('my-run-8'));
  });
});
