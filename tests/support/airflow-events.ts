/**
 * OpenLineage events in the shape Airflow's OpenLineage provider sends
 * (Airflow 3; see docs/openlineage-producers.md): DAG-level START and
 * COMPLETE/FAIL with nominalTime and airflowDagRun, task-level events with a
 * parent facet, every facet with _producer and _schemaURL. The fixtures in
 * tests/fixtures/openlineage are written from these builders.
 */

const PRODUCER = 'https://github.com/apache/airflow/tree/providers-openlineage/2.3.0';
const EVENT_SCHEMA = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
const facet = (name: string, version = '1-0-1') => ({ _producer: PRODUCER, _schemaURL: `https://openlineage.io/spec/facets/${version}/${name}.json#/$defs/${name}` });
const airflowFacet = (name: string) => ({ _producer: PRODUCER, _schemaURL: `https://raw.githubusercontent.com/apache/airflow/providers-openlineage/2.3.0/providers/openlineage/src/airflow/providers/openlineage/facets/AirflowRunFacet.json#/$defs/${name}` });

export type DagRunSpec = {
  eventType: 'START' | 'COMPLETE' | 'FAIL' | 'ABORT' | 'RUNNING' | 'OTHER';
  runId: string;
  /** Data interval start, e.g. 2026-11-02T00:00:00+00:00. */
  intervalStart: string;
  intervalEnd: string;
  eventTime: string;
  dagId?: string;
  namespace?: string;
  runType?: 'scheduled' | 'manual' | 'backfill' | 'asset_triggered';
  error?: string;
  schedule?: string;
  timezone?: string;
};

function dagInfo(dagId: string, schedule: string, timezone: string) {
  return { dag_id: dagId, timetable: { expression: schedule, timezone }, timetable_summary: schedule, owner: 'data-eng', tags: ['orders'], start_date: '2026-11-02T00:00:00+00:00' };
}

function dagRunInfo(spec: DagRunSpec, dagId: string) {
  const runType = spec.runType ?? 'scheduled';
  return {
    dag_id: dagId,
    run_id: `${runType}__${spec.intervalStart}`,
    run_type: runType,
    logical_date: spec.intervalStart,
    data_interval_start: spec.intervalStart,
    data_interval_end: spec.intervalEnd,
    run_after: spec.intervalEnd,
    start_date: spec.eventTime,
    conf: {},
  };
}

/** A DAG-level event of one DAG run. */
export function dagRunEvent(spec: DagRunSpec): Record<string, unknown> {
  const dagId = spec.dagId ?? 'airflow_orders';
  const runFacets: Record<string, unknown> = {
    nominalTime: { ...facet('NominalTimeRunFacet'), nominalStartTime: spec.intervalStart, nominalEndTime: spec.intervalEnd },
    airflowDagRun: { ...airflowFacet('AirflowDagRunFacet'), dag: dagInfo(dagId, spec.schedule ?? '0 0 * * *', spec.timezone ?? 'UTC'), dagRun: dagRunInfo(spec, dagId) },
    processing_engine: { ...facet('ProcessingEngineRunFacet', '1-1-1'), name: 'Airflow', version: '3.1.0', openlineageAdapterVersion: '2.3.0' },
  };
  if (spec.error !== undefined) runFacets['errorMessage'] = { ...facet('ErrorMessageRunFacet'), message: spec.error, programmingLanguage: 'python' };
  return {
    eventType: spec.eventType,
    eventTime: spec.eventTime,
    producer: PRODUCER,
    schemaURL: EVENT_SCHEMA,
    run: { runId: spec.runId, facets: runFacets },
    job: {
      namespace: spec.namespace ?? 'default',
      name: dagId,
      facets: { jobType: { ...facet('JobTypeJobFacet', '2-0-4'), integration: 'AIRFLOW', jobType: 'DAG', processingType: 'BATCH' } },
    },
    inputs: [],
    outputs: [],
  };
}

export type TaskSpec = DagRunSpec & { taskId: string; taskRunId: string; tryNumber?: number };

/** A task-level event: its own runId, the DAG run as parent. */
export function taskEvent(spec: TaskSpec): Record<string, unknown> {
  const dagId = spec.dagId ?? 'airflow_orders';
  const namespace = spec.namespace ?? 'default';
  const runFacets: Record<string, unknown> = {
    parent: { ...facet('ParentRunFacet', '1-2-0'), job: { namespace, name: dagId }, run: { runId: spec.runId }, root: { job: { namespace, name: dagId }, run: { runId: spec.runId } } },
    nominalTime: { ...facet('NominalTimeRunFacet'), nominalStartTime: spec.intervalStart, nominalEndTime: spec.intervalEnd },
    airflow: {
      ...airflowFacet('AirflowRunFacet'),
      dag: dagInfo(dagId, spec.schedule ?? '0 0 * * *', spec.timezone ?? 'UTC'),
      dagRun: dagRunInfo(spec, dagId),
      task: { task_id: spec.taskId, trigger_rule: 'all_success', operator_class: 'PythonOperator' },
      taskInstance: { try_number: spec.tryNumber ?? 1 },
    },
  };
  if (spec.error !== undefined) runFacets['errorMessage'] = { ...facet('ErrorMessageRunFacet'), message: spec.error, programmingLanguage: 'python' };
  return {
    eventType: spec.eventType,
    eventTime: spec.eventTime,
    producer: PRODUCER,
    schemaURL: EVENT_SCHEMA,
    run: { runId: spec.taskRunId, facets: runFacets },
    job: { namespace, name: `${dagId}.${spec.taskId}`, facets: { jobType: { ...facet('JobTypeJobFacet', '2-0-4'), integration: 'AIRFLOW', jobType: 'TASK', processingType: 'BATCH' } } },
    inputs: [],
    outputs: [],
  };
}

/** A run id that reads as its role in a test (UUID-shaped, version 7 like recent providers). */
export function runIdOf(n: number): string {
  return `0193a000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The daily DAG's data interval of a date: [date, next day). */
export function dayInterval(date: string): { intervalStart: string; intervalEnd: string } {
  const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { intervalStart: `${date}T00:00:00+00:00`, intervalEnd: `${next}T00:00:00+00:00` };
}

/** Acceptance 1–3: START/COMPLETE for 2026-11-02 and -03, START/FAIL for -04, as Airflow posts them. */
export function acceptanceEvents(): Array<Record<string, unknown>> {
  const run = (n: number, date: string, end: 'COMPLETE' | 'FAIL', error?: string) => {
    const interval = dayInterval(date);
    const nextDay = interval.intervalEnd.slice(0, 10);
    return [
      dagRunEvent({ eventType: 'START', runId: runIdOf(n), ...interval, eventTime: `${nextDay}T00:00:05.120Z` }),
      dagRunEvent({ eventType: end, runId: runIdOf(n), ...interval, eventTime: `${nextDay}T00:14:31.007Z`, ...(error === undefined ? {} : { error }) }),
    ];
  };
  return [...run(1, '2026-11-02', 'COMPLETE'), ...run(2, '2026-11-03', 'COMPLETE'), ...run(3, '2026-11-04', 'FAIL', 'extract_orders failed: upstream file orders_2026-11-04.csv is missing')];
}

/**
 * The daily DAG over eight dates, as a real stream delivers it: three
 * START/COMPLETE, one FAIL with its message, a retry (a cleared DAG run: new
 * runId, same interval) that fails and then succeeds, a manual run, a
 * backfill run, every event of 11-05 sent twice, 11-06 delivered in reverse
 * (COMPLETE before START), and the FAIL of an attempt re-sent after a newer one started.
 */
export function dailyDagStream(): Array<Record<string, unknown>> {
  const ev = (eventType: DagRunSpec['eventType'], n: number, date: string, at: string, extra: Partial<DagRunSpec> = {}) =>
    dagRunEvent({ eventType, runId: runIdOf(n), ...dayInterval(date), eventTime: at, ...extra });
  return [
    ev('START', 10, '2026-11-02', '2026-11-03T00:00:04Z'),
    ev('COMPLETE', 10, '2026-11-02', '2026-11-03T00:10:00Z'),
    ev('START', 11, '2026-11-03', '2026-11-04T00:00:04Z'),
    ev('COMPLETE', 11, '2026-11-03', '2026-11-04T00:11:00Z'),
    ev('START', 12, '2026-11-04', '2026-11-05T00:00:04Z'),
    ev('FAIL', 12, '2026-11-04', '2026-11-05T00:03:00Z', { error: 'load_orders failed: duplicate key value violates unique constraint "orders_pkey"' }),
    // 11-05: every event sent twice (the transport retried).
    ev('START', 13, '2026-11-05', '2026-11-06T00:00:04Z'),
    ev('START', 13, '2026-11-05', '2026-11-06T00:00:04Z'),
    ev('COMPLETE', 13, '2026-11-05', '2026-11-06T00:09:00Z'),
    ev('COMPLETE', 13, '2026-11-05', '2026-11-06T00:09:00Z'),
    // 11-06: delivered in reverse.
    ev('COMPLETE', 14, '2026-11-06', '2026-11-07T00:12:00Z'),
    ev('START', 14, '2026-11-06', '2026-11-07T00:00:04Z'),
    // 11-04 retried after the fix: attempt 2 (a new runId for the same interval) fails, attempt 3 succeeds.
    ev('START', 15, '2026-11-04', '2026-11-07T09:00:00Z'),
    ev('FAIL', 15, '2026-11-04', '2026-11-07T09:02:00Z', { error: 'load_orders failed: connection reset' }),
    ev('START', 16, '2026-11-04', '2026-11-07T09:30:00Z'),
    // The FAIL of attempt 2 sent again after attempt 3 started: it is in the ledger, so a duplicate.
    ev('FAIL', 15, '2026-11-04', '2026-11-07T09:02:00Z', { error: 'load_orders failed: connection reset' }),
    ev('COMPLETE', 16, '2026-11-04', '2026-11-07T09:41:00Z'),
    // A manual run of 11-07 and a backfill run of 11-08.
    ev('START', 17, '2026-11-07', '2026-11-08T08:00:00Z', { runType: 'manual' }),
    ev('COMPLETE', 17, '2026-11-07', '2026-11-08T08:07:00Z', { runType: 'manual' }),
    ev('START', 18, '2026-11-08', '2026-11-09T10:00:00Z', { runType: 'backfill' }),
    ev('COMPLETE', 18, '2026-11-08', '2026-11-09T10:06:00Z', { runType: 'backfill' }),
  ];
}

const DBT_PRODUCER = 'https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/dbt';
const dbtFacet = (name: string, version = '1-0-1') => ({ _producer: DBT_PRODUCER, _schemaURL: `https://openlineage.io/spec/facets/${version}/${name}.json#/$defs/${name}` });

/**
 * What dbt-ol sends for one `dbt run` (after the dbt example in
 * tests/fixtures/openlineage/vendor/examples): a JOB event pair for the invocation without nominalTime, and a
 * MODEL pair per model with a parent facet pointing at the invocation.
 */
export function dbtInvocation(spec: { runId: string; modelRunId: string; startedAt: string; endedAt: string; failed?: string }): Array<Record<string, unknown>> {
  const job = (name: string, jobType: string) => ({
    namespace: 'dbt-test-namespace',
    name,
    facets: { jobType: { ...dbtFacet('JobTypeJobFacet', '2-0-4'), processingType: 'BATCH', integration: 'DBT', jobType } },
  });
  const runFacets = () => ({
    dbt_version: { ...dbtFacet('DbtVersionRunFacet'), version: '1.8.2' },
    processing_engine: { ...dbtFacet('ProcessingEngineRunFacet', '1-1-1'), name: 'dbt', version: '1.8.2', openlineageAdapterVersion: '1.24.2' },
    dbt_run: { ...dbtFacet('DbtRunRunFacet'), invocation_id: 'b0ed168e-1926-42da-aa25-6b3eb826074b' },
  });
  const error = spec.failed === undefined ? {} : { errorMessage: { ...dbtFacet('ErrorMessageRunFacet'), message: spec.failed, programmingLanguage: 'sql' } };
  const parent = { parent: { ...dbtFacet('ParentRunFacet', '1-2-0'), run: { runId: spec.runId }, job: { namespace: 'dbt-test-namespace', name: 'dbt-run-jaffle_shop' } } };
  const end = spec.failed === undefined ? 'COMPLETE' : 'FAIL';
  const base = { producer: DBT_PRODUCER, schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent', inputs: [], outputs: [] };
  const model = new Date(Date.parse(spec.startedAt) + 5_000).toISOString();
  const modelEnd = new Date(Date.parse(spec.endedAt) - 1_000).toISOString();
  return [
    { ...base, eventType: 'START', eventTime: spec.startedAt, run: { runId: spec.runId, facets: runFacets() }, job: job('dbt-run-jaffle_shop', 'JOB') },
    { ...base, eventType: 'START', eventTime: model, run: { runId: spec.modelRunId, facets: { ...parent, ...runFacets() } }, job: job('model.jaffle_shop.orders', 'MODEL') },
    {
      ...base,
      eventType: end,
      eventTime: modelEnd,
      run: { runId: spec.modelRunId, facets: { ...parent, ...runFacets(), ...error } },
      job: job('model.jaffle_shop.orders', 'MODEL'),
      outputs: [{ namespace: 'postgres://postgres:5432', name: 'postgres.public.orders' }],
    },
    { ...base, eventType: end, eventTime: spec.endedAt, run: { runId: spec.runId, facets: { ...runFacets(), ...error } }, job: job('dbt-run-jaffle_shop', 'JOB') },
  ];
}

type Mutable = Record<string, unknown> & { run: { runId?: unknown; facets: Record<string, Record<string, unknown>> }; job: Record<string, unknown> & { facets: Record<string, Record<string, unknown>> } };

/** One event breaking each rule of the OpenLineage schema, with the path a validator must name. */
export function malformedEvents(): Array<{ rule: string; path: string; event: unknown }> {
  const good = (): Mutable => dagRunEvent({ eventType: 'START', runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:04Z', error: 'x' }) as Mutable;
  const change = (rule: string, path: string, edit: (e: Mutable) => void) => {
    const event = good();
    edit(event);
    return { rule, path, event };
  };
  return [
    change('eventTime is required', 'eventTime', (e) => delete e['eventTime']),
    change('eventTime is a date-time', 'eventTime', (e) => (e['eventTime'] = '2026-11-03 at midnight')),
    change('eventTime has a zone', 'eventTime', (e) => (e['eventTime'] = '2026-11-03T00:00:04')),
    change('producer is required', 'producer', (e) => delete e['producer']),
    change('producer is a URI', 'producer', (e) => (e['producer'] = 'airflow 3')),
    change('eventType is one of the six', 'eventType', (e) => (e['eventType'] = 'SUCCESS')),
    change('run.runId is required', 'run.runId', (e) => delete e.run.runId),
    change('run.runId is a UUID', 'run.runId', (e) => (e.run.runId = 'scheduled__2026-11-02T00:00:00+00:00')),
    change('job.namespace is required', 'job.namespace', (e) => delete e.job['namespace']),
    change('job.name is a string', 'job.name', (e) => (e.job['name'] = 42)),
    change('a run facet has _producer', 'run.facets.processing_engine._producer', (e) => delete e.run.facets['processing_engine']?.['_producer']),
    change('a run facet has a URI _schemaURL', 'run.facets.airflowDagRun._schemaURL', (e) => ((e.run.facets['airflowDagRun'] as Record<string, unknown>)['_schemaURL'] = 'AirflowDagRunFacet')),
    change('nominalTime has nominalStartTime', 'run.facets.nominalTime.nominalStartTime', (e) => delete e.run.facets['nominalTime']?.['nominalStartTime']),
    change('nominalStartTime is a date-time', 'run.facets.nominalTime.nominalStartTime', (e) => ((e.run.facets['nominalTime'] as Record<string, unknown>)['nominalStartTime'] = '2026-02-30T00:00:00Z')),
    change('errorMessage has programmingLanguage', 'run.facets.errorMessage.programmingLanguage', (e) => delete e.run.facets['errorMessage']?.['programmingLanguage']),
    change('a job facet has _producer', 'job.facets.jobType._producer', (e) => delete e.job.facets['jobType']?.['_producer']),
    change('jobType has integration', 'job.facets.jobType.integration', (e) => delete e.job.facets['jobType']?.['integration']),
    change('inputs are datasets with a name', 'inputs[0].name', (e) => (e['inputs'] = [{ namespace: 'postgres://db:5432' }])),
    {
      rule: "parent's run.runId is a UUID",
      path: 'run.facets.parent.run.runId',
      event: (() => {
        const e = taskEvent({ eventType: 'START', taskId: 'extract', taskRunId: runIdOf(2), runId: runIdOf(1), ...dayInterval('2026-11-02'), eventTime: '2026-11-03T00:00:04Z' }) as Mutable;
        (e.run.facets['parent']?.['run'] as Record<string, unknown>)['runId'] = 'manual__2026-11-02';
        return e;
      })(),
    },
  ];
}
