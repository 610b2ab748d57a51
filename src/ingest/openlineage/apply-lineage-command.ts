import { olderThanCurrentAttempt } from '../../../projections/producer-time.js';
import { inZone } from '../../format/zoned-instant.js';
import { fitText, recordedTextLimits } from '../../../events/limits.js';
import type { OpenLineageJob } from '../../../events/pipeline-definition.js';
import { ExitCode, isLedgerError, LedgerError } from '../../errors.js';
import { requireTask } from '../../ledger/check-tasks.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { StartResult } from '../../ledger/ledger-types.js';
import type { BindingIndex } from './binding-index.js';
import { jobText } from '../../ledger/job-binding.js';
import type { LineageCommand, RunPointer } from './map-lineage-event.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';

/** What became of one OpenLineage event. Every event gets one: nothing is dropped without a reason. */
export type LineageOutcome = 'recorded' | 'duplicate' | 'ignored' | 'refused';

export type LineageResult = {
  outcome: LineageOutcome;
  /** The HTTP status of this event alone (200 for recorded, duplicate and ignored). */
  status: number;
  /** The stable error code of a refusal (the CLI's), else null. */
  code: string | null;
  /** One line: what was recorded, or why nothing was. */
  message: string;
  job?: string;
  pipeline?: string;
  date?: string;
  runId?: string;
};

export type ApplyContext = {
  ledger: Ledger;
  bindings: BindingIndex;
  /** Define unbound Airflow DAGs from their `dag` facet (`--openlineage-auto`). */
  auto: boolean;
  /**
   * Refuse (404) an event whose job is bound to no pipeline and that has no
   * bound parent (`serve --strict-lineage`, `ingest --strict`), and a task event
   * of a task its pipeline does not declare. Default: ignored, with the reason.
   */
  strict?: boolean;
};

type RunCommand = Extract<LineageCommand, { kind: 'run' }>;
/** A run command seen as a task of its parent's run: the ledger run is the parent's. */
type TaskCommand = RunCommand & { taskJob: OpenLineageJob };
type BoundCommand = RunCommand | TaskCommand;

const HTTP_OF_EXIT: Readonly<Record<number, number>> = { [ExitCode.badInput]: 400, [ExitCode.refused]: 409, [ExitCode.notFound]: 404 };

/**
 * Applies one mapped OpenLineage event to the ledger with the CLI's own
 * rules (start rules, fencing, idempotent repeats), so the ledger ends as the
 * producer meant whatever order events arrive in:
 *
 * - the event's own job decides where it goes when a pipeline is bound to it
 *   (or `--openlineage-auto` defines one from its Airflow `dag` facet); only
 *   when it is unbound does its `parent` facet make it a task of the parent's
 *   run (an Airflow task of a bound DAG); an unbound job under a bound parent
 *   or root (a dbt model, a Spark job) is ignored with the reason, and one
 *   with no bound parent too, unless `strict` (then 404);
 * - the producer's `runId` is the ledger run id, and its `eventTime` the run's
 *   own time (`at`): an event the ledger already holds (same run, kind and
 *   eventTime) is a duplicate, whatever happened since; a new runId for the
 *   same interval is the next attempt;
 * - an end (`COMPLETE`, `FAIL`, `ABORT`, `RUNNING`, a task's state) of a run
 *   whose `START` has not arrived starts it first, from the end's own facets;
 * - the end of a DAG run of a pipeline defined with tasks is Airflow's verdict:
 *   it is recorded, settling tasks that sent nothing from `airflowState`;
 * - an event of an attempt older (by `eventTime`) than the key's current one
 *   is refused as stale; a newer attempt supersedes a running older one (its
 *   end never came) and reprocesses a successful one (the producer re-ran it).
 *
 * Refusals come back as results with the CLI's code and message; only bugs throw.
 *
 * @example
 * await applyLineageCommand({ ledger, bindings, auto: false }, command) // { outcome: 'recorded', status: 200, … }
 */
export async function applyLineageCommand(ctx: ApplyContext, command: LineageCommand): Promise<LineageResult> {
  if (command.kind === 'ignore') return { outcome: 'ignored', status: 200, code: null, message: command.reason };
  const where: Pick<LineageResult, 'job' | 'runId'> = { job: jobText(command.job), runId: command.runId };
  try {
    const route = await routeOf(ctx, command);
    if (route.kind === 'ignored') return { ...where, outcome: 'ignored', status: 200, code: null, message: route.reason, ...(route.pipeline ? { pipeline: route.pipeline } : {}) };
    const { pipeline } = route;
    if (route.kind === 'run') return { ...where, pipeline, ...(await applyRun(ctx, pipeline, command)) };
    const task: TaskCommand = { ...command, taskJob: command.job, job: route.parent.job, runId: route.parent.runId };
    return { ...where, pipeline, ...(await applyTask(ctx, pipeline, task)) };
  } catch (error) {
    if (!isLedgerError(error) || error.exitCode === ExitCode.integrity || error.exitCode === ExitCode.unexpected) throw error;
    return { ...where, outcome: 'refused', status: HTTP_OF_EXIT[error.exitCode] ?? 400, code: error.code, message: error.message };
  }
}

type Route = { kind: 'run'; pipeline: string } | { kind: 'task'; pipeline: string; parent: RunPointer } | { kind: 'ignored'; reason: string; pipeline?: string };

/**
 * Where an event lands: its own job's pipeline; else, as a task, its parent's;
 * else (`--openlineage-auto`) a pipeline defined from the Airflow `dag` facet
 * for the job that is the DAG (the event's own, or its parent's for a task);
 * else nowhere, with the reason.
 */
async function routeOf(ctx: ApplyContext, command: RunCommand): Promise<Route> {
  const own = await ctx.bindings.pipelineOf(command.job);
  if (own) return { kind: 'run', pipeline: own };
  const parent = command.parent;
  const parentPipeline = parent ? await ctx.bindings.pipelineOf(parent.job) : undefined;
  if (parent && parentPipeline) return { kind: 'task', pipeline: parentPipeline, parent };
  const dag = command.dag;
  if (ctx.auto && dag) {
    if (dag.dagId === command.job.job) return { kind: 'run', pipeline: await ctx.bindings.exclusively(() => autoDefine(ctx, command.job, command)) };
    if (parent && dag.dagId === parent.job.job) return { kind: 'task', pipeline: await ctx.bindings.exclusively(() => autoDefine(ctx, parent.job, command)), parent };
  }
  const root = command.root;
  const rootPipeline = root ? await ctx.bindings.pipelineOf(root.job) : undefined;
  if (root && rootPipeline) {
    return { kind: 'ignored', pipeline: rootPipeline, reason: `${jobText(command.job)} is bound to no pipeline; it runs inside run ${root.runId} of ${jobText(root.job)} (pipeline ${rootPipeline}), which records that run, so this ${command.eventType} is not kept` };
  }
  const job = jobText(command.job);
  // An Airflow task's pipeline is its DAG's: advise binding the DAG, not the task.
  const target = parent && dag?.dagId === parent.job.job ? jobText(parent.job) : job;
  const hint = dag ? ', or let serve/ingest define it with --openlineage-auto' : '';
  const bind = `bind one with \`runledger define <pipeline> --openlineage ${target}\`${hint}`;
  const parentNote = parent ? ` (nor to its parent ${jobText(parent.job)})` : '';
  if (ctx.strict) throw new LedgerError('notFound.openlineageJob', `no pipeline is bound to the OpenLineage job ${job}${parentNote}; ${bind}`);
  return { kind: 'ignored', reason: `no pipeline is bound to the OpenLineage job ${job}${parentNote}, so this ${command.eventType} is not kept; ${bind}` };
}

type Applied = Omit<LineageResult, 'job' | 'runId' | 'pipeline'>;

function recorded(message: string, date: string): Applied {
  return { outcome: 'recorded', status: 200, code: null, message, date };
}

function duplicate(message: string, date: string): Applied {
  return { outcome: 'duplicate', status: 200, code: null, message, date };
}

const LEDGER_TYPE_OF = { start: 'RunStarted', succeed: 'RunSucceeded', fail: 'RunFailed', abort: 'RunInterrupted', heartbeat: 'RunHeartbeat' } as const;

/**
 * The date of the run when the ledger already holds this very event: the
 * same run, the same kind of change and the producer's same `eventTime`
 * (`at`), which together identify an OpenLineage event. Null otherwise. Runs
 * recorded before the ledger kept `at` have none to compare; their repeats
 * are told by the run's state instead, as before.
 */
async function alreadyHeld(ctx: ApplyContext, pipeline: string, runId: string, held: (event: RecordedEvent) => boolean): Promise<string | null> {
  const found = await knownRun(ctx, pipeline, runId);
  if (!found) return null;
  for await (const batch of ctx.ledger.store.read({ stream: found.stream })) {
    if (batch.some((event) => (event.data as { runId?: string }).runId === runId && held(event))) return found.date;
  }
  return null;
}

function atOf(event: RecordedEvent): string | undefined {
  const data = event.data as { at?: string; openlineage?: { eventTime: string } };
  return data.at ?? data.openlineage?.eventTime;
}

async function applyRun(ctx: ApplyContext, pipeline: string, command: RunCommand): Promise<Applied> {
  const { ledger } = ctx;
  const type = LEDGER_TYPE_OF[command.action];
  const heldOn = await alreadyHeld(ctx, pipeline, command.runId, (e) => e.type === type && atOf(e) === command.eventTime);
  if (heldOn !== null) return duplicate(`the ${command.eventType} of run ${command.runId} at ${inZone(command.eventTime, 'UTC')} (${pipeline} ${heldOn}) is already in the ledger; nothing written`, heldOn);
  let found = await knownRun(ctx, pipeline, command.runId);
  let started: StartResult | null = null;
  if (!found) {
    try {
      started = await startFromLineage(ctx, pipeline, command, command.action === 'start' ? null : 'its START had not arrived');
    } catch (error) {
      // Another request of the same run may have started it meanwhile: then this is that run's event after all.
      found = await knownRun(ctx, pipeline, command.runId);
      if (!found) throw error;
    }
  }
  const date = started?.date ?? found?.date ?? '';
  const startLine = started ? `started ${pipeline} ${date} attempt ${started.attempt} (${started.runType}${started.forced ? ', reprocessing a success' : ''})` : '';
  if (command.action === 'start') {
    return started ? recorded(startLine, date) : duplicate(`the START of run ${command.runId} (${pipeline} ${date}) was already recorded; nothing written`, date);
  }
  const then = (text: string) => (started ? `${startLine}, then ${text}` : text);
  const definition = await ctx.bindings.definition(pipeline);
  // A producer cannot shorten its error message (a stack trace); cut to the pipeline's cap, it is kept rather than refused.
  const fit = (text: string) => fitText(text, recordedTextLimits(definition).errorBytes);
  const at = command.eventTime;
  // The end of a DAG run of a task-level pipeline is Airflow's verdict: tasks that sent nothing are settled from its facet.
  const settle = definition?.tasks ? { settleTasks: command.taskStates ?? {} } : {};
  try {
    switch (command.action) {
      case 'heartbeat': {
        if (started) return recorded(startLine, date);
        const beat = await ledger.heartbeat({ runId: command.runId, at });
        return recorded(`${pipeline} ${date}: lease extended to ${beat.leaseExpiresAt}`, date);
      }
      case 'succeed': {
        const done = await ledger.succeed({ runId: command.runId, outputs: command.outputs, ...(command.inputs.length > 0 ? { inputs: command.inputs } : {}), at, ...settle });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'success') : recorded(then(`success recorded${await unreportedNote(ctx, pipeline, command.runId)}`), date);
      }
      case 'abort': {
        // An ABORT is the producer stopping the run, not the pipeline failing: the date becomes interrupted
        // (pending, and run again by every reprocess mode), as a backfill stopped with Ctrl-C.
        const done = await ledger.interrupt({ runId: command.runId, by: 'OpenLineage ABORT', message: fit(command.error ?? 'the producer aborted the run'), at });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'abort') : recorded(then('interruption recorded'), date);
      }
      case 'fail': {
        const error = fit(command.error ?? failedTasksText(command.taskStates) ?? 'the run failed (its FAIL event carried no errorMessage facet)');
        const done = await ledger.fail({ runId: command.runId, error, code: null, at, ...settle });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'failure') : recorded(then(`failure recorded${await unreportedNote(ctx, pipeline, command.runId)}`), date);
      }
    }
  } catch (error) {
    if (started && isLedgerError(error)) throw new LedgerError(error.code, `${startLine} from this ${command.eventType}, but ${error.message}`);
    throw error;
  }
}

/** "the DAG run failed: task extract failed, load upstream_failed", from Airflow's task states, or null without any failed one. */
function failedTasksText(states: Record<string, string> | null): string | null {
  const failed = Object.entries(states ?? {}).filter(([, state]) => state === 'failed' || state === 'upstream_failed');
  return failed.length === 0 ? null : `the DAG run failed: ${failed.map(([task, state]) => `task ${task} ${state}`).join(', ')}`;
}

/** "; tasks x, y reported no state (not reported)" after a verdict that left some unsettled. */
async function unreportedNote(ctx: ApplyContext, pipeline: string, runId: string): Promise<string> {
  const run = (await ctx.ledger.pipeline(pipeline)).history.runs.get(runId);
  const tasks = run?.unreportedTasks ?? [];
  return tasks.length === 0 ? '' : `; task${tasks.length === 1 ? '' : 's'} ${tasks.join(', ')} sent no state and ${tasks.length === 1 ? 'is' : 'are'} recorded as not reported`;
}

function duplicateEnd(pipeline: string, date: string, command: RunCommand, what: string): Applied {
  return duplicate(`the ${what} of run ${command.runId} (${pipeline} ${date}) was already recorded; nothing written`, date);
}

async function applyTask(ctx: ApplyContext, pipeline: string, command: TaskCommand): Promise<Applied> {
  const { ledger } = ctx;
  const definition = await ctx.bindings.definition(pipeline);
  if (!definition?.tasks) {
    return {
      outcome: 'ignored',
      status: 200,
      code: null,
      message: `${jobText(command.taskJob)} is bound to no pipeline; it runs inside run ${command.runId} of ${jobText(command.job)} (pipeline ${pipeline}), which records no task-level state, so this ${command.eventType} is not kept; redefine ${pipeline} with --tasks to keep the states of its tasks`,
    };
  }
  if (!definition.tasks.some((t) => t.id === command.taskId)) {
    if (ctx.strict) requireTask(definition, command.taskId);
    return {
      outcome: 'ignored',
      status: 200,
      code: null,
      message: `${pipeline} declares no task ${command.taskId}, so the ${command.eventType} of ${jobText(command.taskJob)} is not kept; declare it with define --tasks to keep its state`,
    };
  }
  const heldOn = await alreadyHeld(ctx, pipeline, command.runId, (e) => e.type === 'TaskStateChanged' && e.data.taskId === command.taskId && e.data.state === command.taskState && e.data.at === command.eventTime);
  if (heldOn !== null) return duplicate(`task ${command.taskId} ${command.taskState} of run ${command.runId} at ${inZone(command.eventTime, 'UTC')} is already in the ledger; nothing written`, heldOn);
  let found = await knownRun(ctx, pipeline, command.runId);
  let startLine = '';
  if (!found) {
    try {
      const started = await startFromLineage(ctx, pipeline, command, "its DAG run's START had not arrived");
      startLine = `started ${pipeline} ${started.date} attempt ${started.attempt} from task ${command.taskId}'s ${command.eventType}, then `;
      found = { date: started.date, stream: '' };
    } catch (error) {
      found = await knownRun(ctx, pipeline, command.runId);
      if (!found) throw error;
    }
  }
  const grid = await ledger.runTasks({ pipeline, runId: command.runId });
  const row = grid.tasks.find((t) => t.taskId === command.taskId);
  if (command.taskState === 'running') {
    // A START or RUNNING that arrives after the same try ended is late, not a rerun.
    const sameTry = command.tryNumber === null || command.tryNumber === row?.tryNumber;
    if (row?.state && sameTry && ['success', 'failed', 'skipped', 'upstream_failed', 'removed'].includes(row.state)) {
      return duplicate(`task ${command.taskId} of run ${command.runId} already ended (${row.state}) in try ${row.tryNumber}; this late ${command.eventType} changes nothing`, found.date);
    }
  }
  if (grid.run.status !== 'running' && (grid.run.unreportedTasks ?? []).includes(command.taskId)) {
    // The DAG run's verdict came first and recorded this task as not reported; its own late event changes nothing now.
    return duplicate(`run ${command.runId} of ${pipeline} ${found.date} already ended (${grid.run.status}) by its DAG run's verdict, which recorded task ${command.taskId} as not reported; this late ${command.eventType} changes nothing`, found.date);
  }
  const result = await ledger.task({
    runId: command.runId,
    taskId: command.taskId,
    state: command.taskState,
    error: command.taskState === 'failed' ? fitText(command.error ?? (command.eventType === 'ABORT' ? 'aborted' : ''), recordedTextLimits(definition).errorBytes) || null : null,
    at: command.eventTime,
    ...(command.tryNumber === null ? {} : { tryNumber: command.tryNumber }),
  });
  if (result.repeated) return duplicate(`task ${command.taskId} ${command.taskState} (try ${result.tryNumber}) of run ${command.runId} was already recorded; nothing written`, result.date);
  const outcome = result.run.status === 'running' ? '' : `; the run ${result.run.status === 'success' ? 'succeeded' : 'failed'}`;
  return recorded(`${startLine}recorded task ${command.taskId} ${command.taskState} (try ${result.tryNumber}) of ${pipeline} ${result.date}${outcome}`, result.date);
}

/** The date of a run the ledger already holds, refusing a run id that belongs to another pipeline. */
async function knownRun(ctx: ApplyContext, pipeline: string, runId: string): Promise<{ date: string; stream: string } | null> {
  const found = await ctx.ledger.store.findRun(runId);
  if (!found) return null;
  if (found.pipeline !== pipeline) {
    throw new LedgerError('ledger.runElsewhere', `OpenLineage run ${runId} is already a run of pipeline ${found.pipeline}, not of ${pipeline}; a runId names one run of one job`);
  }
  return { date: found.stream.slice(found.pipeline.length + 1), stream: found.stream };
}

/**
 * Starts the ledger run of an OpenLineage run: the slot of its nominal start
 * (else the latest slot due at its eventTime), the run type, the producer's
 * runId, and the ordering rules against the key's current attempt.
 */
async function startFromLineage(ctx: ApplyContext, pipeline: string, command: BoundCommand, late: string | null): Promise<StartResult> {
  const { ledger } = ctx;
  const { definition, timetable, state, history } = await ledger.pipeline(pipeline);
  const iso = (ms: number) => timetable.formatInstant(ms);
  let date: string;
  let onSchedule = true;
  if (command.nominal) {
    const slot = timetable.slotAt(command.nominal.startMs);
    if (!slot && command.runType !== 'manual') {
      throw new LedgerError(
        'ledger.notASlot',
        `the nominal start ${iso(command.nominal.startMs)} (${command.nominal.from}) is not a slot of ${pipeline}'s timetable (${definition.schedule} in ${definition.timezone}); make the pipeline's schedule match the producer's`,
      );
    }
    onSchedule = slot !== undefined;
    date = slot?.date ?? iso(command.nominal.startMs);
  } else {
    const slot = timetable.lastDue(command.eventMs);
    if (!slot) {
      throw new LedgerError('ledger.notDue', `the event has no nominal time and no slot of ${pipeline} is due at its eventTime ${command.eventTime}; send nominalTime, or check the pipeline's --start`);
    }
    date = slot.date;
  }
  const current = state.dates.get(date);
  let force = false;
  let supersede: { runId: string; message: string } | undefined;
  if (current) {
    const prior = history.runs.get(current.runId);
    const priorTime = prior?.openlineage?.eventTime ?? current.startedAt;
    if (olderThanCurrentAttempt(current, priorTime, command.eventMs)) {
      throw new LedgerError(
        'ledger.staleRun',
        `OpenLineage run ${command.runId} of ${pipeline} ${date} is older (${command.eventType} at ${command.eventTime}) than its attempt ${current.attempt} (run ${current.runId}, started ${priorTime}); it is not recorded`,
      );
    }
    force = current.status === 'success';
    if (current.status === 'running' && prior?.openlineage) {
      supersede = { runId: current.runId, message: `superseded by OpenLineage run ${command.runId} (${command.eventType} at ${command.eventTime}); no end of this attempt was received` };
    }
  }
  const nominal = command.nominal;
  const explicitInterval = command.runType === 'manual' && nominal && nominal.endMs !== null && nominal.endMs >= nominal.startMs;
  const notes = [late, force ? 'the producer re-ran an interval that had succeeded' : null, onSchedule ? null : 'off-schedule'].filter(Boolean).join('; ');
  return ledger.start({
    pipeline,
    date,
    runType: command.runType,
    runId: command.runId,
    force,
    ...(supersede === undefined ? {} : { supersede }),
    ...(explicitInterval ? { dataInterval: { start: iso(nominal.startMs), end: iso(nominal.endMs as number) } } : {}),
    openlineage: { namespace: command.job.namespace, job: command.job.job, eventTime: command.eventTime },
    at: command.eventTime,
    reason: `OpenLineage ${command.eventType} of ${jobText('taskJob' in command ? command.taskJob : command.job)} run ${command.runId} at ${command.eventTime}${notes ? ` (${notes})` : ''}`,
  });
}

async function autoDefine(ctx: ApplyContext, job: OpenLineageJob, command: BoundCommand): Promise<string> {
  const again = await ctx.bindings.pipelineOf(job);
  if (again) return again;
  const dag = command.dag;
  if (!dag) throw new LedgerError('notFound.openlineageJob', `no pipeline is bound to the OpenLineage job ${jobText(job)}`);
  const name = dag.dagId;
  if (!dag.schedule || dag.schedule === 'None' || dag.schedule === '@once') {
    throw new LedgerError('input.noCronTimetable', `DAG ${name} has no cron timetable in its dag facet (${dag.schedule ?? 'none'}), so no pipeline can be defined for it; define one with \`runledger define <pipeline> --schedule … --openlineage ${jobText(job)}\``);
  }
  if (!/^[a-z0-9][a-z0-9_.-]{0,127}$/.test(name)) {
    throw new LedgerError('input.invalidPipelineName', `DAG id '${name}' is not a pipeline name (lowercase letters, digits, _ . -); define a pipeline yourself with \`runledger define <pipeline> … --openlineage ${jobText(job)}\``);
  }
  if (await ctx.bindings.definition(name)) {
    throw new LedgerError('ledger.pipelineExists', `pipeline ${name} exists and is not bound to ${jobText(job)}; bind it with \`runledger define ${name} --openlineage ${jobText(job)}\``);
  }
  const start = dag.startDate ?? (command.nominal ? new Date(command.nominal.startMs).toISOString() : null);
  if (start === null) throw new LedgerError('input.missingOption', `DAG ${name}'s dag facet has no start_date and the event no nominal time, so no pipeline start is known; define it yourself with --openlineage ${jobText(job)}`);
  const trigger = command.nominal !== null && command.nominal.endMs === command.nominal.startMs;
  await ctx.ledger.define({
    pipeline: name,
    schedule: dag.schedule,
    start,
    timezone: dag.timezone ?? 'UTC',
    timetable: trigger ? 'trigger' : 'interval',
    openlineage: job,
    reason: `defined from the Airflow dag facet of OpenLineage job ${jobText(job)} (--openlineage-auto)`,
  });
  return name;
}
