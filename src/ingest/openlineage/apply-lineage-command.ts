import { fitText, recordedTextLimits } from '../../../events/limits.js';
import type { OpenLineageJob } from '../../../events/pipeline-definition.js';
import { ExitCode, isLedgerError, LedgerError } from '../../errors.js';
import { requireTask } from '../../ledger/check-tasks.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { StartResult } from '../../ledger/ledger-types.js';
import type { BindingIndex } from './binding-index.js';
import { jobText } from './job-binding.js';
import type { LineageCommand } from './map-lineage-event.js';

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
};

type RunCommand = Extract<LineageCommand, { kind: 'run' }>;
type TaskCommand = Extract<LineageCommand, { kind: 'task' }>;
type BoundCommand = RunCommand | TaskCommand;

const HTTP_OF_EXIT: Readonly<Record<number, number>> = { [ExitCode.badInput]: 400, [ExitCode.refused]: 409, [ExitCode.notFound]: 404 };

/**
 * Applies one mapped OpenLineage event to the ledger with the CLI's own
 * rules (start rules, fencing, idempotent repeats), so the ledger ends as the
 * producer meant whatever order events arrive in:
 *
 * - the producer's `runId` is the ledger run id: a re-sent event is a no-op,
 *   a new runId for the same interval is the next attempt;
 * - an end (`COMPLETE`, `FAIL`, `ABORT`, `RUNNING`, a task's state) of a run
 *   whose `START` has not arrived starts it first, from the end's own facets;
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
  const where: Pick<LineageResult, 'job' | 'runId'> = { job: jobText(command.kind === 'task' ? command.taskJob : command.job), runId: command.runId };
  try {
    const pipeline = await resolvePipeline(ctx, command);
    const result = command.kind === 'run' ? await applyRun(ctx, pipeline, command) : await applyTask(ctx, pipeline, command);
    return { ...where, pipeline, ...result };
  } catch (error) {
    if (!isLedgerError(error) || error.exitCode === ExitCode.integrity || error.exitCode === ExitCode.unexpected) throw error;
    return { ...where, outcome: 'refused', status: HTTP_OF_EXIT[error.exitCode] ?? 400, code: error.code, message: error.message };
  }
}

type Applied = Omit<LineageResult, 'job' | 'runId' | 'pipeline'>;

function recorded(message: string, date: string): Applied {
  return { outcome: 'recorded', status: 200, code: null, message, date };
}

async function applyRun(ctx: ApplyContext, pipeline: string, command: RunCommand): Promise<Applied> {
  const { ledger } = ctx;
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
    return started ? recorded(startLine, date) : { outcome: 'duplicate', status: 200, code: null, message: `the START of run ${command.runId} (${pipeline} ${date}) was already recorded; nothing written`, date };
  }
  const then = (text: string) => (started ? `${startLine}, then ${text}` : text);
  // A producer cannot shorten its error message (a stack trace); cut to the pipeline's cap, it is kept rather than refused.
  const fit = async (text: string) => fitText(text, recordedTextLimits(await ctx.bindings.definition(pipeline)).errorBytes);
  try {
    switch (command.action) {
      case 'heartbeat': {
        if (started) return recorded(startLine, date);
        const beat = await ledger.heartbeat({ runId: command.runId });
        return recorded(`${pipeline} ${date}: lease extended to ${beat.leaseExpiresAt}`, date);
      }
      case 'succeed': {
        const done = await ledger.succeed({ runId: command.runId, outputs: command.outputs, ...(command.inputs.length > 0 ? { inputs: command.inputs } : {}) });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'success') : recorded(then('success recorded'), date);
      }
      case 'abort': {
        // An ABORT is the producer stopping the run, not the pipeline failing: the date becomes interrupted
        // (pending, and run again by every reprocess mode), as a backfill stopped with Ctrl-C.
        const done = await ledger.interrupt({ runId: command.runId, by: 'OpenLineage ABORT', message: await fit(command.error ?? 'the producer aborted the run') });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'abort') : recorded(then('interruption recorded'), date);
      }
      case 'fail': {
        const error = await fit(command.error ?? 'the run failed (its FAIL event carried no errorMessage facet)');
        const done = await ledger.fail({ runId: command.runId, error, code: null });
        return done.repeated ? duplicateEnd(pipeline, date, command, 'failure') : recorded(then('failure recorded'), date);
      }
    }
  } catch (error) {
    if (started && isLedgerError(error)) throw new LedgerError(error.code, `${startLine} from this ${command.eventType}, but ${error.message}`);
    throw error;
  }
}

function duplicateEnd(pipeline: string, date: string, command: RunCommand, what: string): Applied {
  return { outcome: 'duplicate', status: 200, code: null, message: `the ${what} of run ${command.runId} (${pipeline} ${date}) was already recorded; nothing written`, date };
}

async function applyTask(ctx: ApplyContext, pipeline: string, command: TaskCommand): Promise<Applied> {
  const { ledger } = ctx;
  const definition = await ctx.bindings.definition(pipeline);
  if (!definition?.tasks) {
    return {
      outcome: 'ignored',
      status: 200,
      code: null,
      message: `${pipeline} records no task-level state, so the ${command.eventType} of task ${command.taskId} is not kept; redefine it with --tasks to keep task states`,
    };
  }
  requireTask(definition, command.taskId);
  let found = await knownRun(ctx, pipeline, command.runId);
  let startLine = '';
  if (!found) {
    try {
      const started = await startFromLineage(ctx, pipeline, command, "its DAG run's START had not arrived");
      startLine = `started ${pipeline} ${started.date} attempt ${started.attempt} from task ${command.taskId}'s ${command.eventType}, then `;
      found = { date: started.date };
    } catch (error) {
      found = await knownRun(ctx, pipeline, command.runId);
      if (!found) throw error;
    }
  }
  if (command.state === 'running') {
    // A START or RUNNING that arrives after the same try ended is late, not a rerun.
    const grid = await ledger.runTasks({ pipeline, runId: command.runId });
    const row = grid.tasks.find((t) => t.taskId === command.taskId);
    const sameTry = command.tryNumber === null || command.tryNumber === row?.tryNumber;
    if (row?.state && row.state !== 'running' && row.state !== 'up_for_retry' && sameTry && ['success', 'failed', 'skipped', 'upstream_failed', 'removed'].includes(row.state)) {
      return { outcome: 'duplicate', status: 200, code: null, message: `task ${command.taskId} of run ${command.runId} already ended (${row.state}) in try ${row.tryNumber}; this late ${command.eventType} changes nothing`, date: found.date };
    }
  }
  const result = await ledger.task({
    runId: command.runId,
    taskId: command.taskId,
    state: command.state,
    error: command.error === null ? null : fitText(command.error, recordedTextLimits(definition).errorBytes),
    ...(command.tryNumber === null ? {} : { tryNumber: command.tryNumber }),
  });
  if (result.repeated) return { outcome: 'duplicate', status: 200, code: null, message: `task ${command.taskId} ${command.state} (try ${result.tryNumber}) of run ${command.runId} was already recorded; nothing written`, date: result.date };
  const outcome = result.run.status === 'running' ? '' : `; the run ${result.run.status === 'success' ? 'succeeded' : 'failed'}`;
  return recorded(`${startLine}recorded task ${command.taskId} ${command.state} (try ${result.tryNumber}) of ${pipeline} ${result.date}${outcome}`, result.date);
}

/** The date of a run the ledger already holds, refusing a run id that belongs to another pipeline. */
async function knownRun(ctx: ApplyContext, pipeline: string, runId: string): Promise<{ date: string } | null> {
  const found = await ctx.ledger.store.findRun(runId);
  if (!found) return null;
  if (found.pipeline !== pipeline) {
    throw new LedgerError('ledger.runElsewhere', `OpenLineage run ${runId} is already a run of pipeline ${found.pipeline}, not of ${pipeline}; a runId names one run of one job`);
  }
  return { date: found.stream.slice(found.pipeline.length + 1) };
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
    if (command.eventMs < Date.parse(priorTime)) {
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
    reason: `OpenLineage ${command.eventType} of ${jobText(command.kind === 'task' ? command.taskJob : command.job)} run ${command.runId} at ${command.eventTime}${notes ? ` (${notes})` : ''}`,
  });
}

/** The pipeline bound to the command's job, or with `--openlineage-auto` one defined from Airflow's `dag` facet. */
async function resolvePipeline(ctx: ApplyContext, command: BoundCommand): Promise<string> {
  const bound = await ctx.bindings.pipelineOf(command.job);
  if (bound) return bound;
  const job = jobText(command.job);
  if (!ctx.auto || !command.dag) {
    const hint = command.dag ? ', or let serve/ingest define it with --openlineage-auto' : '';
    throw new LedgerError('notFound.openlineageJob', `no pipeline is bound to the OpenLineage job ${job}; bind one with \`runledger define <pipeline> --openlineage ${job}\`${hint}`);
  }
  return ctx.bindings.exclusively(() => autoDefine(ctx, command.job, command));
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
