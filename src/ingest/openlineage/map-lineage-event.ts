import { z } from 'zod';
import type { RunType } from '../../../events/common.js';
import type { OpenLineageJob } from '../../../events/pipeline-definition.js';
import type { TaskState } from '../../../events/task-state-changed.js';
import { dateTimeMs, isDateTime, type EventType, type RunEvent } from './openlineage-event.js';

/** The data interval an event names: `nominalTime`, else Airflow's `data_interval_start`/`_end`. */
export type Nominal = { startMs: number; endMs: number | null; from: string };

/** What `--openlineage-auto` needs from Airflow's `dag` facet to define a pipeline. */
export type AirflowDag = { dagId: string; schedule: string | null; timezone: string | null; startDate: string | null };

type Common = {
  eventType: EventType;
  /** The producer's `eventTime`, in ms and as an ISO instant. */
  eventMs: number;
  eventTime: string;
  nominal: Nominal | null;
  runType: RunType;
  dag: AirflowDag | null;
};

/** A job's run another run points at (the `parent` facet, or its `root`). */
export type RunPointer = { job: OpenLineageJob; runId: string };

/** A dataset as OpenLineage names it: namespace and name kept apart. */
export type Dataset = { namespace: string; name: string };

/**
 * What one OpenLineage event asks of the ledger, before any pipeline or state
 * is looked at. Which binding it lands on is decided against the ledger
 * (`applyLineageCommand`): its own job first; when that is unbound, as a task
 * of its parent's run.
 */
export type LineageCommand =
  | { kind: 'ignore'; reason: string }
  | (Common & {
      kind: 'run';
      action: 'start' | 'succeed' | 'fail' | 'abort' | 'heartbeat';
      /** The event's own job and run. */
      job: OpenLineageJob;
      runId: string;
      error: string | null;
      /** The event's output datasets, recorded on a success. */
      outputs: Dataset[];
      /** The `parent` facet (also read under its older key `parentRun`), and its `root`. */
      parent: RunPointer | null;
      root: RunPointer | null;
      /** As a task of the parent's run: its task id (Airflow's `task_id`, else the job name after `<parent job>.`), state and try. */
      taskId: string;
      taskState: TaskState;
      tryNumber: number | null;
      /** Airflow's verdict on its tasks (`airflowState.tasksState`) on a DAG run's end, when sent. */
      taskStates: Record<string, string> | null;
    });

export type LineageMapping = { ok: true; command: LineageCommand } | { ok: false; code: 'input.invalidTime' | 'input.invalidFacet'; message: string };

const AIRFLOW_RUN_TYPES: Readonly<Record<string, RunType>> = { scheduled: 'scheduled', manual: 'manual', backfill: 'backfill', catchup: 'catchup' };
const RunledgerFacet = z.looseObject({ runType: z.string() });

const DagRunFacet = z.looseObject({
  run_type: z.string().optional(),
  data_interval_start: z.string().nullable().optional(),
  data_interval_end: z.string().nullable().optional(),
});
const DagFacet = z.looseObject({
  dag_id: z.string().optional(),
  timetable: z.looseObject({ expression: z.string().optional(), timezone: z.string().optional() }).nullable().optional(),
  schedule_interval: z.unknown().optional(),
  start_date: z.string().nullable().optional(),
  timezone: z.string().optional(),
});
const AirflowFacet = z.looseObject({
  dag: DagFacet.optional(),
  dagRun: DagRunFacet.optional(),
  task: z.looseObject({ task_id: z.string().optional() }).optional(),
  taskInstance: z.looseObject({ try_number: z.number().optional() }).optional(),
});

/**
 * Turns one valid OpenLineage `RunEvent` into the ledger command it asks
 * for. Pure: no ledger, no clock. Which pipeline, date key and attempt it
 * lands on is decided against the ledger by `applyLineageCommand`.
 *
 * - A job's `START` starts a run, `COMPLETE` succeeds it, `FAIL` fails it with
 *   the `errorMessage` facet's message, `ABORT` fails it as aborted,
 *   `RUNNING` is a heartbeat; `OTHER` (metadata only) is ignored.
 * - An event with a `parent` facet also says what it is as a task of the
 *   parent's run (START → running, COMPLETE → success, FAIL/ABORT → failed),
 *   used only when its own job is bound to no pipeline.
 * - The interval is `nominalTime`, else Airflow's `data_interval_start`;
 *   Airflow's `run_type` gives the run type (asset- or dataset-triggered runs
 *   and unknown types are manual: something other than the schedule started them).
 *
 * @example
 * mapLineageEvent(event) // { ok: true, command: { kind: 'run', action: 'start', job: { namespace: 'default', job: 'airflow_orders' }, … } }
 */
export function mapLineageEvent(event: RunEvent): LineageMapping {
  const eventType = event.eventType ?? 'OTHER';
  if (eventType === 'OTHER') return { ok: true, command: { kind: 'ignore', reason: `${event.eventType ? 'an OTHER event' : 'an event without eventType'} carries metadata only; no run state changes` } };
  const facets = (event.run.facets ?? {}) as Record<string, unknown>;
  const dagRunFacet = airflowFacet(facets['airflowDagRun'], 'run.facets.airflowDagRun');
  if (!dagRunFacet.ok) return dagRunFacet;
  const taskFacet = airflowFacet(facets['airflow'], 'run.facets.airflow');
  if (!taskFacet.ok) return taskFacet;
  const airflow = dagRunFacet.value ?? taskFacet.value;
  const nominal = nominalOf(event, airflow?.dagRun, dagRunFacet.value ? 'run.facets.airflowDagRun.dagRun' : 'run.facets.airflow.dagRun');
  if (!nominal.ok) return nominal;
  // runledger's own export carries the run type in its `runledger` facet, so an export ingested elsewhere keeps it.
  const own = RunledgerFacet.safeParse(facets['runledger']);
  const runTypeText = airflow?.dagRun?.run_type ?? (own.success ? own.data.runType : undefined);
  const common: Common = {
    eventType,
    eventMs: dateTimeMs(event.eventTime),
    eventTime: new Date(dateTimeMs(event.eventTime)).toISOString(),
    nominal: nominal.value,
    runType: runTypeText === undefined ? 'scheduled' : (AIRFLOW_RUN_TYPES[runTypeText] ?? 'manual'),
    dag: dagOf(airflow?.dag),
  };
  const error = event.run.facets?.errorMessage?.message ?? null;
  const parentFacet = parentOf(facets);
  if (!parentFacet.ok) return parentFacet;
  const parent = parentFacet.value;
  const job = { namespace: event.job.namespace, job: event.job.name };
  const prefix = parent ? `${parent.job.job}.` : null;
  const taskId = taskFacet.value?.task?.task_id ?? (prefix && event.job.name.startsWith(prefix) ? event.job.name.slice(prefix.length) : event.job.name);
  const tryNumber = taskFacet.value?.taskInstance?.try_number;
  const taskState: TaskState = eventType === 'START' || eventType === 'RUNNING' ? 'running' : eventType === 'COMPLETE' ? 'success' : 'failed';
  const action = ({ START: 'start', RUNNING: 'heartbeat', COMPLETE: 'succeed', FAIL: 'fail', ABORT: 'abort' } as const)[eventType];
  const outputs = (event.outputs ?? []).map((d) => ({ namespace: d.namespace, name: d.name }));
  const state = AirflowStateFacet.safeParse(facets['airflowState']);
  return {
    ok: true,
    command: {
      ...common,
      kind: 'run',
      action,
      job,
      runId: event.run.runId,
      error,
      outputs,
      parent: parent ? { job: parent.job, runId: parent.runId } : null,
      root: parent?.root ?? null,
      taskId,
      taskState,
      tryNumber: tryNumber !== undefined && Number.isSafeInteger(tryNumber) && tryNumber >= 1 ? tryNumber : null,
      taskStates: state.success && state.data.tasksState ? state.data.tasksState : null,
    },
  };
}

const Pointer = z.looseObject({ run: z.looseObject({ runId: z.string() }), job: z.looseObject({ namespace: z.string(), name: z.string() }) });
const ParentRunFacet = Pointer.extend({ root: Pointer.optional() });
/** Airflow's state facet on a DAG run's end: the run's state and each task's (`null` for a task that never got one). */
const AirflowStateFacet = z.looseObject({ dagRunState: z.string().optional(), tasksState: z.record(z.string(), z.string().nullable()).optional() }).transform((f) => ({
  ...f,
  tasksState: f.tasksState ? Object.fromEntries(Object.entries(f.tasksState).filter((e): e is [string, string] => e[1] !== null)) : undefined,
}));

/**
 * The `parent` facet (checked by the event schema), else the `parentRun` key
 * that openlineage-airflow (Airflow 2) used for the same facet.
 */
function parentOf(facets: Record<string, unknown>): { ok: true; value: (RunPointer & { root: RunPointer | null }) | null } | { ok: false; code: 'input.invalidFacet'; message: string } {
  const key = facets['parent'] !== undefined ? 'parent' : facets['parentRun'] !== undefined ? 'parentRun' : null;
  if (key === null) return { ok: true, value: null };
  const parsed = ParentRunFacet.safeParse(facets[key]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, code: 'input.invalidFacet', message: `${['run.facets', key, ...(issue?.path ?? []).map(String)].join('.')}: ${issue?.message ?? 'invalid'}` };
  }
  const pointer = (p: z.infer<typeof Pointer>): RunPointer => ({ job: { namespace: p.job.namespace, job: p.job.name }, runId: p.run.runId });
  return { ok: true, value: { ...pointer(parsed.data), root: parsed.data.root ? pointer(parsed.data.root) : null } };
}

type AirflowFacet = z.infer<typeof AirflowFacet>;

function airflowFacet(value: unknown, path: string): { ok: true; value: AirflowFacet | null } | { ok: false; code: 'input.invalidFacet'; message: string } {
  if (value === undefined) return { ok: true, value: null };
  const parsed = AirflowFacet.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, code: 'input.invalidFacet', message: `${[path, ...(issue?.path ?? []).map(String)].join('.')}: ${issue?.message ?? 'invalid'}` };
}

function nominalOf(event: RunEvent, dagRun: AirflowFacet['dagRun'], dagRunPath: string): { ok: true; value: Nominal | null } | { ok: false; code: 'input.invalidTime'; message: string } {
  const facet = event.run.facets?.nominalTime;
  if (facet) {
    return { ok: true, value: { startMs: dateTimeMs(facet.nominalStartTime), endMs: facet.nominalEndTime === undefined ? null : dateTimeMs(facet.nominalEndTime), from: 'nominalTime' } };
  }
  const start = dagRun?.data_interval_start;
  if (start === undefined || start === null) return { ok: true, value: null };
  const end = dagRun?.data_interval_end ?? null;
  for (const [field, text] of [['data_interval_start', start], ['data_interval_end', end]] as const) {
    if (text !== null && !isDateTime(text)) {
      return { ok: false, code: 'input.invalidTime', message: `${dagRunPath}.${field}: '${text}' is not an RFC 3339 date-time with a zone` };
    }
  }
  return { ok: true, value: { startMs: dateTimeMs(start), endMs: end === null ? null : dateTimeMs(end), from: `${dagRunPath}.data_interval_start` } };
}

function dagOf(dag: AirflowFacet['dag']): AirflowDag | null {
  if (!dag?.dag_id) return null;
  const legacy = typeof dag.schedule_interval === 'string' ? dag.schedule_interval : null;
  return {
    dagId: dag.dag_id,
    schedule: dag.timetable?.expression ?? legacy,
    timezone: dag.timetable?.timezone ?? dag.timezone ?? null,
    startDate: dag.start_date && isDateTime(dag.start_date) ? new Date(dateTimeMs(dag.start_date)).toISOString() : null,
  };
}
