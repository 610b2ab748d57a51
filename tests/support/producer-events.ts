/**
 * OpenLineage events in the shapes real producers send, written by this
 * project from the OpenLineage spec and the producers' documented test
 * expectations (the Airflow OpenLineage provider's system tests for Airflow 3,
 * openlineage-airflow for Airflow 2, the Spark integration's application and
 * SQL-job events, dbt-ol's parent run with model and test children). Each
 * batch comes with the pipelines that receive it and the state it must leave;
 * tests/fixtures/openlineage/producers/*.jsonl are written from these builders.
 */
import type { DefineInput } from '../../src/ledger/build-definition.js';
import { runIdOf } from './airflow-events.js';

type Json = Record<string, unknown>;
type JobSpec = { namespace: string; name: string; facets?: Json };
type EventSpec = { eventType: string; eventTime: string; runId: string; job: JobSpec; runFacets: Json; inputs?: Json[]; outputs?: Json[]; producer: string; schemaURL?: string };

const EVENT_SCHEMA = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';

function event(spec: EventSpec): Json {
  return {
    eventType: spec.eventType,
    eventTime: spec.eventTime,
    producer: spec.producer,
    schemaURL: spec.schemaURL ?? EVENT_SCHEMA,
    run: { runId: spec.runId, facets: spec.runFacets },
    job: { namespace: spec.job.namespace, name: spec.job.name, facets: spec.job.facets ?? {} },
    inputs: spec.inputs ?? [],
    outputs: spec.outputs ?? [],
  };
}

const facetOf = (producer: string) => (name: string, version: string) => ({ _producer: producer, _schemaURL: `https://openlineage.io/spec/facets/${version}/${name}.json#/$defs/${name}` });
const pointer = (namespace: string, name: string, runId: string) => ({ job: { namespace, name }, run: { runId } });

/** One date's expected row: status, attempt, run type, error, the producer's start and end, outputs. */
export type ExpectedRow = { status: string; attempt: number; runType: string; error: string | null; startedAt: string; finishedAt: string | null; outputs?: unknown[] };

export type ProducerBatch = {
  /** The fixture file (under tests/fixtures/openlineage/producers). */
  file: string;
  title: string;
  /** The pipelines, bound to the producer's jobs, that receive the batch. */
  pipelines: DefineInput[];
  events: () => Json[];
  /** pipeline → date → row. */
  expected: Record<string, Record<string, ExpectedRow>>;
  /** pipeline → run id → task id → state, for task-level pipelines. */
  tasks?: Record<string, Record<string, Record<string, string | null>>>;
};

// ---------------------------------------------------------------- Airflow 3 (apache-airflow-providers-openlineage)

const AIRFLOW = 'https://github.com/apache/airflow/tree/providers-openlineage/2.3.0';
const airflowOl = facetOf(AIRFLOW);
const airflowOwn = (name: string) => ({
  _producer: AIRFLOW,
  _schemaURL: `https://raw.githubusercontent.com/apache/airflow/providers-openlineage/2.3.0/providers/openlineage/src/airflow/providers/openlineage/facets/AirflowRunFacet.json#/$defs/${name}`,
});

type DagRunAt = { dagId: string; runId: string; start: string; end: string; runType?: string; schedule?: string; tasks?: string[] };

function airflowDag(run: DagRunAt) {
  return { dag_id: run.dagId, timetable: { expression: run.schedule ?? '0 0 * * *', timezone: 'UTC' }, timetable_summary: run.schedule ?? '0 0 * * *', owner: 'data-eng', tags: [], start_date: '2026-11-01T00:00:00+00:00' };
}

function airflowDagRun(run: DagRunAt, startDate: string) {
  const runType = run.runType ?? 'scheduled';
  return {
    dag_id: run.dagId,
    run_id: `${runType}__${run.start}`,
    run_type: runType,
    logical_date: run.start,
    data_interval_start: run.start,
    data_interval_end: run.end,
    run_after: run.end,
    start_date: startDate,
    conf: {},
  };
}

function airflow3Dag(eventType: string, eventTime: string, run: DagRunAt, extra: { parent?: Json; states?: Record<string, string | null>; error?: string } = {}): Json {
  const facets: Json = {
    nominalTime: { ...airflowOl('NominalTimeRunFacet', '1-0-1'), nominalStartTime: run.start, nominalEndTime: run.end },
    airflowDagRun: { ...airflowOwn('AirflowDagRunFacet'), dag: airflowDag(run), dagRun: airflowDagRun(run, eventTime) },
    processing_engine: { ...airflowOl('ProcessingEngineRunFacet', '1-1-1'), name: 'Airflow', version: '3.1.0', openlineageAdapterVersion: '2.3.0' },
  };
  if (extra.parent) facets['parent'] = { ...airflowOl('ParentRunFacet', '1-1-0'), ...extra.parent };
  if (extra.states) facets['airflowState'] = { ...airflowOwn('AirflowStateRunFacet'), dagRunState: eventType === 'COMPLETE' ? 'success' : 'failed', tasksState: extra.states };
  if (extra.error) facets['errorMessage'] = { ...airflowOl('ErrorMessageRunFacet', '1-0-1'), message: extra.error, programmingLanguage: 'python' };
  return event({
    eventType,
    eventTime,
    runId: run.runId,
    producer: AIRFLOW,
    job: { namespace: 'default', name: run.dagId, facets: { jobType: { ...airflowOl('JobTypeJobFacet', '2-0-3'), integration: 'AIRFLOW', jobType: 'DAG', processingType: 'BATCH' } } },
    runFacets: facets,
  });
}

function airflow3Task(eventType: string, eventTime: string, run: DagRunAt, task: { id: string; runId: string; operator?: string; error?: string; tryNumber?: number }): Json {
  const facets: Json = {
    parent: { ...airflowOl('ParentRunFacet', '1-1-0'), ...pointer('default', run.dagId, run.runId), root: pointer('default', run.dagId, run.runId) },
    nominalTime: { ...airflowOl('NominalTimeRunFacet', '1-0-1'), nominalStartTime: run.start, nominalEndTime: run.end },
    airflow: {
      ...airflowOwn('AirflowRunFacet'),
      dag: airflowDag(run),
      dagRun: airflowDagRun(run, eventTime),
      task: { task_id: task.id, operator_class: task.operator ?? 'PythonOperator', trigger_rule: 'all_success', upstream_task_ids: '[]', downstream_task_ids: '[]' },
      taskInstance: { try_number: task.tryNumber ?? 1, map_index: -1 },
    },
    processing_engine: { ...airflowOl('ProcessingEngineRunFacet', '1-1-1'), name: 'Airflow', version: '3.1.0', openlineageAdapterVersion: '2.3.0' },
  };
  if (task.error) facets['errorMessage'] = { ...airflowOl('ErrorMessageRunFacet', '1-0-1'), message: task.error, programmingLanguage: 'python' };
  return event({
    eventType,
    eventTime,
    runId: task.runId,
    producer: AIRFLOW,
    job: { namespace: 'default', name: `${run.dagId}.${task.id}`, facets: { jobType: { ...airflowOl('JobTypeJobFacet', '2-0-3'), integration: 'AIRFLOW', jobType: 'TASK', processingType: 'BATCH' } } },
    runFacets: facets,
  });
}

/** A DAG triggered by another DAG's TriggerDagRunOperator: its DAG-level START and FAIL carry `parent` = the triggering task. */
export const airflow3TriggeredDag: ProducerBatch = (() => {
  const upstream: DagRunAt = { dagId: 'orders_upstream', runId: runIdOf(0x301), start: '2026-11-02T06:00:00+00:00', end: '2026-11-03T06:00:00+00:00', schedule: '0 6 * * *' };
  const trigger = { id: 'trigger_report', runId: runIdOf(0x302), operator: 'TriggerDagRunOperator' };
  const report: DagRunAt = { dagId: 'orders_report', runId: runIdOf(0x303), start: '2026-11-02T06:00:00+00:00', end: '2026-11-03T06:00:00+00:00', runType: 'manual', schedule: '0 6 * * *' };
  const render = { id: 'render', runId: runIdOf(0x304), error: 'render failed: template orders.html not found' };
  const triggeredBy = { ...pointer('default', 'orders_upstream.trigger_report', trigger.runId), root: pointer('default', 'orders_upstream', upstream.runId) };
  return {
    file: 'airflow3-triggered-dag.jsonl',
    title: 'an Airflow 3 DAG triggered by another DAG',
    pipelines: [
      { pipeline: 'orders_upstream', schedule: '0 6 * * *', start: '2026-11-01', openlineage: { namespace: 'default', job: 'orders_upstream' } },
      { pipeline: 'orders_report', schedule: '0 6 * * *', start: '2026-11-01', openlineage: { namespace: 'default', job: 'orders_report' } },
    ],
    events: () => [
      airflow3Dag('START', '2026-11-03T06:00:02.114Z', upstream),
      airflow3Task('START', '2026-11-03T06:00:05.300Z', upstream, trigger),
      airflow3Dag('START', '2026-11-03T06:00:07.950Z', report, { parent: triggeredBy }),
      airflow3Task('COMPLETE', '2026-11-03T06:00:09.020Z', upstream, trigger),
      airflow3Task('START', '2026-11-03T06:00:10.411Z', report, render),
      airflow3Dag('COMPLETE', '2026-11-03T06:00:12.500Z', upstream, { states: { trigger_report: 'success' } }),
      airflow3Task('FAIL', '2026-11-03T06:01:40.007Z', report, render),
      airflow3Dag('FAIL', '2026-11-03T06:01:42.250Z', report, { parent: triggeredBy, states: { render: 'failed' } }),
    ],
    expected: {
      orders_upstream: { '2026-11-02T06:00:00+00:00': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2026-11-03T06:00:02.114Z', finishedAt: '2026-11-03T06:00:12.500Z' } },
      orders_report: {
        '2026-11-02T06:00:00+00:00': { status: 'failed', attempt: 1, runType: 'manual', error: 'the DAG run failed: task render failed', startedAt: '2026-11-03T06:00:07.950Z', finishedAt: '2026-11-03T06:01:42.250Z' },
      },
    },
  };
})();

/** A task-level pipeline whose DAG fails with `extract` failed and `load` upstream_failed (Airflow sends nothing for `load`). */
export const airflow3UpstreamFailed: ProducerBatch = (() => {
  const day = (n: number, date: string): DagRunAt => {
    const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    return { dagId: 'orders_tasks', runId: runIdOf(0x400 + n), start: `${date}T00:00:00+00:00`, end: `${next}T00:00:00+00:00` };
  };
  const d2 = day(1, '2026-11-02');
  const d3 = day(2, '2026-11-03');
  const d4 = day(3, '2026-11-04');
  // Each task run has its own runId, derived from its DAG run's.
  const task = (run: DagRunAt, id: string, error?: string) => ({ id, runId: `${run.runId.slice(0, -4)}${id === 'extract' ? 'e' : 'f'}${run.runId.slice(-3)}`, ...(error ? { error } : {}) });
  return {
    file: 'airflow3-upstream-failed.jsonl',
    title: 'a --tasks pipeline whose DAG fails with an upstream_failed task',
    pipelines: [
      { pipeline: 'orders_tasks', schedule: '0 0 * * *', start: '2026-11-01', openlineage: { namespace: 'default', job: 'orders_tasks' }, tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] },
    ],
    events: () => [
      // 11-02: extract fails; Airflow marks load upstream_failed without an event; the DAG's FAIL names both.
      airflow3Dag('START', '2026-11-03T00:00:03.000Z', d2),
      airflow3Task('START', '2026-11-03T00:00:06.000Z', d2, task(d2, 'extract')),
      airflow3Task('FAIL', '2026-11-03T00:01:30.000Z', d2, task(d2, 'extract', 'extract failed: upstream file orders_2026-11-02.csv is missing')),
      airflow3Dag('FAIL', '2026-11-03T00:01:33.000Z', d2, { states: { extract: 'failed', load: 'upstream_failed' } }),
      // 11-03: the same, from a provider that sends no airflowState: load is recorded as not reported.
      airflow3Dag('START', '2026-11-04T00:00:03.000Z', d3),
      airflow3Task('START', '2026-11-04T00:00:05.000Z', d3, task(d3, 'extract')),
      airflow3Task('FAIL', '2026-11-04T00:00:45.000Z', d3, task(d3, 'extract', 'extract failed: connection refused')),
      airflow3Dag('FAIL', '2026-11-04T00:00:47.000Z', d3, { error: 'task_failure' }),
      // 11-04: every task succeeds; the run's success follows from its leaves, and the DAG's COMPLETE agrees.
      airflow3Dag('START', '2026-11-05T00:00:03.000Z', d4),
      airflow3Task('START', '2026-11-05T00:00:05.000Z', d4, task(d4, 'extract')),
      airflow3Task('COMPLETE', '2026-11-05T00:02:05.000Z', d4, task(d4, 'extract')),
      airflow3Task('START', '2026-11-05T00:02:07.000Z', d4, task(d4, 'load')),
      airflow3Task('COMPLETE', '2026-11-05T00:06:00.000Z', d4, task(d4, 'load')),
      airflow3Dag('COMPLETE', '2026-11-05T00:06:02.000Z', d4, { states: { extract: 'success', load: 'success' } }),
    ],
    expected: {
      orders_tasks: {
        '2026-11-02': { status: 'failed', attempt: 1, runType: 'scheduled', error: 'the DAG run failed: task extract failed, task load upstream_failed', startedAt: '2026-11-03T00:00:03.000Z', finishedAt: '2026-11-03T00:01:33.000Z' },
        '2026-11-03': { status: 'failed', attempt: 1, runType: 'scheduled', error: 'task_failure', startedAt: '2026-11-04T00:00:03.000Z', finishedAt: '2026-11-04T00:00:47.000Z' },
        '2026-11-04': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2026-11-05T00:00:03.000Z', finishedAt: '2026-11-05T00:06:00.000Z' },
      },
    },
    tasks: {
      orders_tasks: {
        [d2.runId]: { extract: 'failed', load: 'upstream_failed' },
        [d3.runId]: { extract: 'failed', load: null },
        [d4.runId]: { extract: 'success', load: 'success' },
      },
    },
  };
})();

// ---------------------------------------------------------------- Airflow 2 (openlineage-airflow)

const OL_AIRFLOW = 'https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow';
const olAirflow = facetOf(OL_AIRFLOW);

/** openlineage-airflow on Airflow 2: task events only (no DAG-level ones), each with `parent` = the DAG run and Airflow's own facets. */
export const airflow2TaskEvents: ProducerBatch = (() => {
  const dagRun = (date: string, n: number) => {
    const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    return { runId: runIdOf(0x500 + n), start: `${date}T00:00:00+00:00`, end: `${next}T00:00:00+00:00` };
  };
  const task = (eventType: string, eventTime: string, run: ReturnType<typeof dagRun>, taskId: string, taskRunId: string) =>
    event({
      eventType,
      eventTime,
      runId: taskRunId,
      producer: OL_AIRFLOW,
      job: { namespace: 'default', name: `legacy_sales.${taskId}`, facets: {} },
      runFacets: {
        nominalTime: { ...olAirflow('NominalTimeRunFacet', '1-0-0'), nominalStartTime: run.start, nominalEndTime: run.end },
        parent: { ...olAirflow('ParentRunFacet', '1-0-0'), ...pointer('default', 'legacy_sales', run.runId) },
        airflow_runArgs: { ...olAirflow('AirflowRunArgsRunFacet', '1-0-0'), externalTrigger: false },
        airflow_version: { ...olAirflow('AirflowVersionRunFacet', '1-0-0'), operator: 'airflow.operators.python.PythonOperator', taskInfo: `{'task_id': '${taskId}'}`, airflowVersion: '2.7.3', openlineageAirflowVersion: '1.9.0' },
        processing_engine: { ...olAirflow('ProcessingEngineRunFacet', '1-1-0'), version: '2.7.3', name: 'Airflow', openlineageAdapterVersion: '1.9.0' },
      },
    });
  const r2 = dagRun('2026-11-02', 1);
  const r3 = dagRun('2026-11-03', 2);
  return {
    file: 'airflow2-task-events.jsonl',
    title: 'Airflow 2 openlineage-airflow task events',
    pipelines: [{ pipeline: 'legacy_sales', schedule: '0 0 * * *', start: '2026-11-01', openlineage: { namespace: 'default', job: 'legacy_sales' }, tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] }],
    events: () => [
      task('START', '2026-11-03T00:00:10.000Z', r2, 'extract', runIdOf(0x5101)),
      task('COMPLETE', '2026-11-03T00:02:00.000Z', r2, 'extract', runIdOf(0x5101)),
      task('START', '2026-11-03T00:02:10.000Z', r2, 'load', runIdOf(0x5102)),
      task('COMPLETE', '2026-11-03T00:05:30.000Z', r2, 'load', runIdOf(0x5102)),
      task('START', '2026-11-04T00:00:09.000Z', r3, 'extract', runIdOf(0x5201)),
      task('COMPLETE', '2026-11-04T00:01:40.000Z', r3, 'extract', runIdOf(0x5201)),
      task('START', '2026-11-04T00:01:50.000Z', r3, 'load', runIdOf(0x5202)),
      task('FAIL', '2026-11-04T00:03:00.000Z', r3, 'load', runIdOf(0x5202)),
    ],
    expected: {
      legacy_sales: {
        '2026-11-02': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2026-11-03T00:00:10.000Z', finishedAt: '2026-11-03T00:05:30.000Z' },
        '2026-11-03': { status: 'failed', attempt: 1, runType: 'scheduled', error: "leaf task 'load' failed", startedAt: '2026-11-04T00:00:09.000Z', finishedAt: '2026-11-04T00:03:00.000Z' },
      },
    },
    tasks: { legacy_sales: { [r2.runId]: { extract: 'success', load: 'success' }, [r3.runId]: { extract: 'success', load: 'failed' } } },
  };
})();

// ---------------------------------------------------------------- Spark (openlineage-spark)

const SPARK = 'https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/spark';
const sparkOl = facetOf(SPARK);

/** A Spark application (its events' `parent` is the Airflow task that submitted it) and its SQL jobs (`parent` = the application). */
export const sparkApplication: ProducerBatch = (() => {
  const app = { namespace: 'spark-prod', name: 'nightly_orders_etl' };
  const insertJob = 'nightly_orders_etl.execute_insert_into_hadoop_fs_relation_command.user_hive_warehouse_temp';
  const collectJob = 'nightly_orders_etl.collect_limit';
  const engine = { ...sparkOl('ProcessingEngineRunFacet', '1-1-1'), version: '3.5.1', name: 'spark', openlineageAdapterVersion: '1.24.2' };
  const appJobFacets = { jobType: { ...sparkOl('JobTypeJobFacet', '2-0-3'), processingType: 'NONE', integration: 'SPARK', jobType: 'APPLICATION' } };
  const sqlJobFacets = { jobType: { ...sparkOl('JobTypeJobFacet', '2-0-3'), processingType: 'BATCH', integration: 'SPARK', jobType: 'SQL_JOB' } };
  const submittedBy = (n: number) => ({ ...pointer('default', 'spark_dag.submit_orders_etl', runIdOf(0x600 + n)), root: pointer('default', 'spark_dag', runIdOf(0x610 + n)) });
  const appEvent = (eventType: string, eventTime: string, n: number, error?: string) =>
    event({
      eventType,
      eventTime,
      runId: runIdOf(0x620 + n),
      producer: SPARK,
      job: { ...app, facets: appJobFacets },
      runFacets: {
        parent: { ...sparkOl('ParentRunFacet', '1-1-0'), ...submittedBy(n) },
        spark_applicationDetails: { _producer: SPARK, _schemaURL: 'https://openlineage.io/spec/facets/1-0-0/SparkApplicationDetailsRunFacet.json#/$defs/SparkApplicationDetailsRunFacet', master: 'yarn', appName: 'nightly_orders_etl', applicationId: `application_1730000000000_00${n}`, deployMode: 'cluster', userName: 'etl' },
        processing_engine: engine,
        ...(error ? { errorMessage: { ...sparkOl('ErrorMessageRunFacet', '1-0-1'), message: error, programmingLanguage: 'JAVA', stackTrace: `${error}\n\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2898)` } } : {}),
      },
    });
  const sqlEvent = (eventType: string, eventTime: string, n: number, name: string, runId: string, io: { inputs?: Json[]; outputs?: Json[] } = {}, error?: string) =>
    event({
      eventType,
      eventTime,
      runId,
      producer: SPARK,
      job: { namespace: 'spark-prod', name, facets: sqlJobFacets },
      runFacets: {
        parent: { ...sparkOl('ParentRunFacet', '1-1-0'), ...pointer(app.namespace, app.name, runIdOf(0x620 + n)), root: pointer('default', 'spark_dag', runIdOf(0x610 + n)) },
        processing_engine: engine,
        ...(error ? { errorMessage: { ...sparkOl('ErrorMessageRunFacet', '1-0-1'), message: error, programmingLanguage: 'JAVA' } } : {}),
      },
      ...io,
    });
  const input = (date: string) => ({ namespace: 's3://raw-orders', name: `orders/${date}` });
  const temp = { namespace: 'dbfs', name: '/user/hive/warehouse/temp' };
  const failure = 'org.apache.spark.SparkException: Job aborted due to stage failure: Task 3 in stage 2.0 failed 4 times';
  return {
    file: 'spark-application.jsonl',
    title: 'Spark application and job events',
    pipelines: [
      { pipeline: 'spark_orders', schedule: '0 2 * * *', start: '2026-11-01', openlineage: { namespace: app.namespace, job: app.name } },
      { pipeline: 'spark_orders_temp', schedule: '0 2 * * *', start: '2026-11-01', openlineage: { namespace: 'spark-prod', job: insertJob } },
    ],
    events: () => [
      appEvent('START', '2026-11-03T02:00:41.802Z', 1),
      sqlEvent('START', '2026-11-03T02:01:02.117Z', 1, collectJob, runIdOf(0x6301)),
      sqlEvent('COMPLETE', '2026-11-03T02:01:09.490Z', 1, collectJob, runIdOf(0x6301)),
      sqlEvent('START', '2026-11-03T02:01:15.003Z', 1, insertJob, runIdOf(0x6302), { inputs: [input('2026-11-02')] }),
      sqlEvent('RUNNING', '2026-11-03T02:03:15.003Z', 1, insertJob, runIdOf(0x6302), { inputs: [input('2026-11-02')] }),
      sqlEvent('COMPLETE', '2026-11-03T02:06:58.671Z', 1, insertJob, runIdOf(0x6302), { inputs: [input('2026-11-02')], outputs: [temp] }),
      appEvent('COMPLETE', '2026-11-03T02:07:03.395Z', 1),
      appEvent('START', '2026-11-04T02:00:39.001Z', 2),
      sqlEvent('START', '2026-11-04T02:01:12.250Z', 2, insertJob, runIdOf(0x6402), { inputs: [input('2026-11-03')] }),
      sqlEvent('FAIL', '2026-11-04T02:04:30.900Z', 2, insertJob, runIdOf(0x6402), { inputs: [input('2026-11-03')] }, failure),
      appEvent('FAIL', '2026-11-04T02:04:33.120Z', 2, failure),
    ],
    expected: {
      spark_orders: {
        '2026-11-02T02:00:00+00:00': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2026-11-03T02:00:41.802Z', finishedAt: '2026-11-03T02:07:03.395Z' },
        '2026-11-03T02:00:00+00:00': { status: 'failed', attempt: 1, runType: 'scheduled', error: failure, startedAt: '2026-11-04T02:00:39.001Z', finishedAt: '2026-11-04T02:04:33.120Z' },
      },
      spark_orders_temp: {
        '2026-11-02T02:00:00+00:00': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2026-11-03T02:01:15.003Z', finishedAt: '2026-11-03T02:06:58.671Z', outputs: [temp] },
        '2026-11-03T02:00:00+00:00': { status: 'failed', attempt: 1, runType: 'scheduled', error: failure, startedAt: '2026-11-04T02:01:12.250Z', finishedAt: '2026-11-04T02:04:30.900Z' },
      },
    },
  };
})();

// ---------------------------------------------------------------- dbt (dbt-ol)

const DBT = 'https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/dbt';
const dbtOl = facetOf(DBT);

/**
 * Three `dbt run` invocations of one project: the invocation's JOB pair, a
 * MODEL pair per model and a TEST pair per test (each with `parent` = the
 * invocation), and the SQL statements under a model (parent = the model,
 * root = the invocation). No nominalTime: dbt is not scheduled by itself.
 */
export const dbtRun: ProducerBatch = (() => {
  const ns = 'dbt-prod';
  const invocation = 'dbt-run-jaffle_shop';
  const jobFacets = (jobType: string) => ({ jobType: { ...dbtOl('JobTypeJobFacet', '2-0-3'), processingType: 'BATCH', integration: 'DBT', jobType } });
  const runFacets = (invocationId: string) => ({
    dbt_version: { _producer: DBT, _schemaURL: 'https://openlineage.io/spec/facets/1-0-0/DbtVersionRunFacet.json#/$defs/DbtVersionRunFacet', version: '1.8.2' },
    processing_engine: { ...dbtOl('ProcessingEngineRunFacet', '1-1-1'), name: 'dbt', version: '1.8.2', openlineageAdapterVersion: '1.24.2' },
    dbt_run: { _producer: DBT, _schemaURL: 'https://openlineage.io/spec/facets/1-0-0/DbtRunRunFacet.json#/$defs/DbtRunRunFacet', invocation_id: invocationId },
  });
  const error = (message: string) => ({ errorMessage: { ...dbtOl('ErrorMessageRunFacet', '1-0-1'), message, programmingLanguage: 'sql' } });
  const one = (n: number, at: (seconds: number) => string, failing: { model?: string; test?: string; message?: string }) => {
    const invocationRun = runIdOf(0x700 + n);
    const facets = runFacets(`b0ed168e-1926-42da-aa25-6b3eb82607${n.toString().padStart(2, '0')}`);
    const parent = { parent: { ...dbtOl('ParentRunFacet', '1-1-0'), ...pointer(ns, invocation, invocationRun), root: pointer(ns, invocation, invocationRun) } };
    const child = (eventType: string, seconds: number, name: string, jobType: string, runId: string, extra: Json = {}, outputs: Json[] = []) =>
      event({ eventType, eventTime: at(seconds), runId, producer: DBT, job: { namespace: ns, name, facets: jobFacets(jobType) }, runFacets: { ...parent, ...facets, ...extra }, outputs });
    const sql = (eventType: string, seconds: number, model: string, modelRun: string, runId: string) =>
      event({
        eventType,
        eventTime: at(seconds),
        runId,
        producer: DBT,
        job: { namespace: ns, name: `${model}.sql.1`, facets: jobFacets('SQL') },
        runFacets: { parent: { ...dbtOl('ParentRunFacet', '1-1-0'), ...pointer(ns, model, modelRun), root: pointer(ns, invocation, invocationRun) }, ...facets },
      });
    const model = (name: string, table: string, k: number, from: number, to: number) => {
      const runId = runIdOf(0x7000 + n * 16 + k);
      const fails = failing.model === name;
      return [
        child('START', from, name, 'MODEL', runId),
        sql('START', from + 1, name, runId, runIdOf(0x7800 + n * 16 + k)),
        sql(fails ? 'FAIL' : 'COMPLETE', to - 1, name, runId, runIdOf(0x7800 + n * 16 + k)),
        child(fails ? 'FAIL' : 'COMPLETE', to, name, 'MODEL', runId, fails ? error(failing.message ?? '') : {}, fails ? [] : [{ namespace: 'postgres://warehouse:5432', name: `analytics.jaffle_shop.${table}` }]),
      ];
    };
    const test = (name: string, k: number, from: number, to: number) => {
      const runId = runIdOf(0x7000 + n * 16 + k);
      const fails = failing.test === name;
      return [child('START', from, name, 'TEST', runId), child(fails ? 'FAIL' : 'COMPLETE', to, name, 'TEST', runId, fails ? error(failing.message ?? '') : {})];
    };
    const failed = failing.model !== undefined || failing.test !== undefined;
    return [
      event({ eventType: 'START', eventTime: at(0), runId: invocationRun, producer: DBT, job: { namespace: ns, name: invocation, facets: jobFacets('JOB') }, runFacets: facets }),
      ...model('model.jaffle_shop.stg_orders', 'stg_orders', 1, 3, 9),
      ...model('model.jaffle_shop.orders', 'orders', 2, 10, 31),
      ...(failing.model === undefined ? test('test.jaffle_shop.not_null_orders_order_id', 3, 32, 35) : []),
      event({
        eventType: failed ? 'FAIL' : 'COMPLETE',
        eventTime: at(37),
        runId: invocationRun,
        producer: DBT,
        job: { namespace: ns, name: invocation, facets: jobFacets('JOB') },
        runFacets: { ...facets, ...(failed ? error(`Command \`dbt run\` failed: ${failing.message}`) : {}) },
      }),
    ];
  };
  const clock = (base: string) => (seconds: number) => new Date(Date.parse(base) + seconds * 1000).toISOString();
  return {
    file: 'dbt-run.jsonl',
    title: 'a dbt-ol run with model and test children',
    pipelines: [{ pipeline: 'jaffle_shop', schedule: '0 6 * * *', start: '2024-12-01', openlineage: { namespace: ns, job: invocation } }],
    events: () => [
      ...one(1, clock('2024-12-08T06:00:05Z'), { model: 'model.jaffle_shop.orders', message: 'Database Error in model orders: relation "raw.orders" does not exist' }),
      ...one(2, clock('2024-12-12T06:00:04Z'), {}),
      ...one(3, clock('2024-12-16T06:00:06Z'), { test: 'test.jaffle_shop.not_null_orders_order_id', message: 'Failure in test not_null_orders_order_id: Got 3 results, configured to fail if != 0' }),
    ],
    expected: {
      jaffle_shop: {
        '2024-12-07T06:00:00+00:00': { status: 'failed', attempt: 1, runType: 'scheduled', error: 'Command `dbt run` failed: Database Error in model orders: relation "raw.orders" does not exist', startedAt: '2024-12-08T06:00:05.000Z', finishedAt: '2024-12-08T06:00:42.000Z' },
        '2024-12-11T06:00:00+00:00': { status: 'success', attempt: 1, runType: 'scheduled', error: null, startedAt: '2024-12-12T06:00:04.000Z', finishedAt: '2024-12-12T06:00:41.000Z' },
        '2024-12-15T06:00:00+00:00': { status: 'failed', attempt: 1, runType: 'scheduled', error: 'Command `dbt run` failed: Failure in test not_null_orders_order_id: Got 3 results, configured to fail if != 0', startedAt: '2024-12-16T06:00:06.000Z', finishedAt: '2024-12-16T06:00:43.000Z' },
      },
    },
  };
})();

export const PRODUCER_BATCHES: readonly ProducerBatch[] = [airflow3TriggeredDag, airflow2TaskEvents, airflow3UpstreamFailed, sparkApplication, dbtRun];
