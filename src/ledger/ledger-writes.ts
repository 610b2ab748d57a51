import type { DatasetRef, RunLog, RunOutput } from '../../events/types/common.js';
import { INSTANT_PATTERN } from '../../events/name-patterns.js';
import type { LedgerEvent } from '../../events/types/ledger-event.js';
import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { runStream } from '../../events/recorded-event.js';
import { formatBytes, MAX_SIZE_CAP_BYTES, recordedTextLimits, utf8Bytes } from '../../events/limits.js';
import { decideClear } from '../../projections/decide-clear.js';
import { decideMark } from '../../projections/decide-mark.js';
import { previousSlotBlocks } from '../../projections/depends-on-past.js';
import { producerTimeProblem } from '../../projections/producer-time.js';
import type { Slot } from '../../projections/slot.js';
import { previousSlot } from './slots.js';
import { decideCompletion, type CompletionCommand } from '../../projections/decide-completion.js';
import { decideStart } from '../../projections/decide-start.js';
import { decideTaskState, refuseUnfinishedTasks, settleUnfinishedTasks } from '../../projections/decide-task-state.js';
import type { Refusal } from '../../projections/refusal.js';
import { LedgerError } from '../errors.js';
import { refuseTakenBinding, sameJob } from './job-binding.js';
import { handleCommand } from './handle-command.js';
import { buildDefinition, checkPipelineName, completeDefinitionInput, diffDefinitions, type DefineChanges } from './build-definition.js';
import { checkTaskState, checkTryNumber, requireTask } from './check-tasks.js';
import { refuseBadUpstreams, refuseRetiredName, refuseRetiredUpstreams, upstreamsChanged } from './check-upstreams.js';
import { listControls } from './list-controls.js';
import { retiredText } from '../../projections/pipeline-control.js';
import { clearWithDownstream } from './clear-downstream.js';
import type { LedgerCore } from './ledger-core.js';
import type { ClearInput, ClearResult, CompletionResult, MarkInput, MarkResult, StartInput, StartResult } from './ledger-types.js';
import { listPipelines, loadPipeline, readPipeline } from './load-pipeline.js';
import { measureMetrics, metricsSizeProblem } from './metrics-problem.js';
import { keysFor, slotFor } from './resolve-keys.js';
import { leaseOf, type Duration } from './library-options.js';
import type { TaskInput, TaskResult } from './task-types.js';
import { readModelsFor, tableView, viewOfSummary, withDates } from './read-model-views.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { DateState } from '../../projections/date-state.js';
import { movesSlots, planTimetableChange, type EffectiveChange } from './timetable-change.js';
import { evolveTaskRuns, initialTaskRuns, type TaskRuns } from '../../projections/task-runs.js';
import type { Timetable } from '../timetable/timetable.js';
import { inZone } from '../format/zoned-instant.js';

/** What `Ledger.define` answers. */
export type DefineResult = {
  pipeline: string;
  outcome: 'defined' | 'redefined' | 'unchanged';
  definition: PipelineDefinition;
  changes: Array<{ field: string; from: unknown; to: unknown }>;
  /** On a change of timetable from an instant (`effective`): the instant, the last date under the old timetable and the first under the new. */
  effective?: EffectiveChange;
};

/**
 * Defines a pipeline, or redefines it when the definition changed (`PipelineRedefined` with the diff).
 *
 * @example
 * await definePipeline(core, { pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
 */
export async function definePipeline(core: LedgerCore, input: DefineChanges & { reason?: string }): Promise<DefineResult> {
  checkPipelineName(input.pipeline);
  return handleCommand<DefineResult>(core, async () => {
    const models = await readModelsFor(core, undefined);
    const summary = models === null ? undefined : await models.summary(input.pipeline);
    const state = summary === undefined ? (await loadPipeline(core, input.pipeline)).state : { definition: summary?.definition ?? null, version: summary?.version ?? 0, retired: summary?.retired ?? null };
    if (state.retired !== null) refuseRetiredName(input.pipeline, state.retired);
    const before = state.definition;
    const { reason: _reason, effective, ...requested } = input;
    const built = buildDefinition(completeDefinitionInput(before, requested));
    if (!before && effective !== undefined) {
      throw new LedgerError('input.invalidEffective', `--effective changes the timetable of a pipeline that exists; ${input.pipeline} is new, so its --start says where it begins`);
    }
    // A change of timetable keeps every recorded date a slot: from an instant on (`effective`), or refused.
    const plan = before ? planTimetableChange(before, built, { effective, nowMs: core.clock(), dates: movesSlots(before, built) ? await recordedDates(core, models, input.pipeline) : [] }) : { definition: built };
    const definition = plan.definition;
    const changes = before ? diffDefinitions(before, definition) : [];
    if (before && changes.length === 0) return { result: { pipeline: definition.pipeline, outcome: 'unchanged', definition, changes }, label: definition.pipeline };
    if (definition.openlineage && !sameJob(before?.openlineage, definition.openlineage)) refuseTakenBinding(await listPipelines(core), definition);
    if (upstreamsChanged(before, definition)) {
      refuseBadUpstreams(definition, await listPipelines(core));
      refuseRetiredUpstreams(definition, await listControls(core));
    }
    const event: LedgerEvent = before
      ? { type: 'PipelineRedefined', schemaVersion: 1, data: { pipeline: definition.pipeline, definition, changes } }
      : { type: 'PipelineDefined', schemaVersion: 1, data: definition };
    return {
      result: { pipeline: definition.pipeline, outcome: before ? 'redefined' : 'defined', definition, changes, ...(plan.effective ? { effective: plan.effective } : {}) },
      requests: [{ stream: definition.pipeline, expectedVersion: state.version, events: [event] }],
      reason: input.reason,
      label: definition.pipeline,
    };
  });
}

/** Every date a pipeline recorded (its keys and logical dates): from the tables when they serve, else folded. */
async function recordedDates(core: LedgerCore, models: Awaited<ReturnType<typeof readModelsFor>>, pipeline: string): Promise<Iterable<Pick<DateState, 'date' | 'logicalDate'>>> {
  if (models !== null) return models.dates(pipeline, { light: true });
  return (await loadPipeline(core, pipeline)).state.dates.values();
}

/** The first slot and the end of a timetable, for the start rule's "before the start" and "after the end" refusals. */
function boundsOf(timetable: Timetable): { bounds?: { firstDate: string; firstLogicalDate: string; end: string | null } } {
  const first = timetable.first();
  if (!first) return {};
  const { end } = timetable.spec;
  return { bounds: { firstDate: first.date, firstLogicalDate: first.logicalDate, end: end === null ? null : timetable.formatInstant(Date.parse(end)) } };
}

/**
 * Starts a run of one date key, or refuses (`ledger.alreadyRunning`, `ledger.alreadySucceeded`, …).
 *
 * @example
 * const run = await startRun(core, { pipeline: 'etl_orders', date: '2026-11-02' });
 */
export async function startRun(core: LedgerCore, input: StartInput): Promise<StartResult> {
  const runType = input.runType ?? 'scheduled';
  const leaseMs = leaseOf(input, 'ledger.start');
  const runId = input.runId ?? core.newId();
  const at = producerAt(core, input.at);
  if (input.runId !== undefined) await refuseTakenRunId(core, input.runId);
  return handleCommand<StartResult>(core, async () => {
    // The slot and the one before it, worked out once per timetable: the keys to read and the decision both need them.
    let slots: { timetable: Timetable; at: ReturnType<typeof slotFor>; before?: Slot | undefined } | null = null;
    const slotIn = (timetable: Timetable) => {
      if (slots?.timetable !== timetable) slots = { timetable, at: slotFor(timetable, input, runType) };
      return slots;
    };
    const slotBefore = (timetable: Timetable): Slot | undefined => {
      const known = slotIn(timetable);
      if (!('before' in known)) known.before = previousSlot(timetable, Date.parse(known.at.slot.logicalDate));
      return known.before;
    };
    // The date's row, and the one before it: depends on past asks whether that one is done.
    const keysToRead = (timetable: Timetable) => {
      const { slot } = slotIn(timetable).at;
      const before = slotBefore(timetable);
      return before ? [slot.date, before.date] : [slot.date];
    };
    const { definition, timetable, state } = (await decidingView(core, input.pipeline, keysToRead)) ?? (await readPipeline(core, input.pipeline));
    if (state.retired !== null) {
      throw new LedgerError('ledger.retired', `${input.pipeline} is ${retiredText(state.retired)}, so nothing of it runs; bring it back first with runledger unretire ${input.pipeline}`);
    }
    const { slot, onSchedule } = slotIn(timetable).at;
    // Depends on past holds back every run but a manual one (the explicit "run it anyway", as Airflow's ignore_depends_on_past).
    const waitFor = definition.dependsOnPast && runType !== 'manual' ? previousSlotBlocks(state, slotBefore(timetable)?.date ?? null) : null;
    const seen = state.dates.get(slot.date)?.attempts ?? 0;
    if (input.expectAttempts !== undefined && seen !== input.expectAttempts) {
      throw new LedgerError(
        'ledger.changed',
        `${input.pipeline} ${slot.date} has had ${seen} attempt(s), not the ${input.expectAttempts} this start expected; another runner got there first`,
      );
    }
    const decision = decideStart(
      state,
      {
        pipeline: input.pipeline,
        slot,
        onSchedule,
        runType,
        force: input.force ?? false,
        runId,
        leaseMs: leaseMs ?? definition.leaseMs,
        ...(input.supersede === undefined ? {} : { supersede: input.supersede }),
        ...(input.openlineage === undefined ? {} : { openlineage: input.openlineage }),
        ...(input.pool === undefined ? {} : { pool: input.pool }),
        ...(waitFor ? { waitFor } : {}),
        ...boundsOf(timetable),
        ...(onSchedule || runType === 'manual' ? {} : { slotsNear: slotsNear(timetable, input.date, Date.parse(slot.logicalDate)) }),
        ...(at === undefined ? {} : { at }),
      },
      { nowMs: core.clock() },
    );
    if (!decision.ok) throw refusalError(decision.refusal);
    const expected = state.dates.get(slot.date)?.version ?? 0;
    const reason = input.reason ?? (decision.value.takeoverOf ? `took over run ${decision.value.takeoverOf} whose lease expired` : undefined);
    const started = decision.value.events.at(-1) as Extract<LedgerEvent, { type: 'RunStarted' }>;
    const d = started.data;
    const result: StartResult = {
      runId: d.runId,
      pipeline: d.pipeline,
      date: d.date,
      attempt: d.attempt,
      runType: d.runType,
      logicalDate: d.logicalDate,
      dataInterval: d.dataInterval,
      runAfter: d.runAfter,
      leaseExpiresAt: d.leaseExpiresAt,
      offSchedule: d.offSchedule,
      forced: d.force,
      takeoverOf: d.takeoverOf,
      ...(state.paused === null ? {} : { paused: state.paused }),
    };
    return { result, requests: [{ stream: runStream(input.pipeline, slot.date), expectedVersion: expected, events: decision.value.events }], reason, label: `${input.pipeline} ${slot.date}` };
  });
}

async function refuseTakenRunId(core: LedgerCore, runId: string): Promise<void> {
  if (runId.trim() === '' || /\s/.test(runId)) throw new LedgerError('input.invalidRunId', `a run id is one word without spaces, not '${runId}'`);
  const found = await core.store.findRun(runId);
  if (found) throw new LedgerError('ledger.runIdTaken', `run id ${runId} is already a run of ${found.pipeline} ${found.stream.slice(found.pipeline.length + 1)}; give a new one, or leave it out for a fresh id`);
}

/**
 * Records the success of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op.
 *
 * @example
 * await succeedRun(core, { runId, metrics: { rows: 42 } });
 */
export async function succeedRun(core: LedgerCore, input: { runId: string; metrics?: Record<string, unknown>; outputs?: RunOutput[]; log?: RunLog; at?: string; settleTasks?: Record<string, string>; inputs?: DatasetRef[] }): Promise<CompletionResult> {
  const metrics = input.metrics ?? {};
  const at = atField(core, input.at);
  const outputs = checkOutputs(input.outputs ?? []);
  // The shape first (no pipeline needed), then the size against the run's pipeline's own cap.
  const bytes = metricsBytes(metrics);
  const log = checkRunLog(input.log);
  return completeRun(core, input.runId, (date, definition) => {
    const tooLarge = metricsSizeProblem(bytes, recordedTextLimits(definition).metricsBytes);
    if (tooLarge !== null) throw new LedgerError('input.invalidMetrics', `metrics cannot be recorded: ${tooLarge}`);
    return { kind: 'succeed', runId: input.runId, date, metrics, outputs, ...log, ...at, ...(input.inputs && input.inputs.length > 0 ? { inputs: input.inputs.map((d) => ({ namespace: d.namespace, name: d.name })) } : {}) };
  }, input.settleTasks);
}

/**
 * Records the failure of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op.
 *
 * @example
 * await failRun(core, { runId, error: 'raw file missing' });
 */
export async function failRun(core: LedgerCore, input: { runId: string; error: string; code?: string | null; log?: RunLog; at?: string; settleTasks?: Record<string, string>; retry?: RetryRequest }): Promise<CompletionResult> {
  const at = atField(core, input.at);
  if (input.error.trim() === '') throw new LedgerError('input.emptyError', 'a failure needs an error message that says what went wrong, e.g. --error "raw file missing" (library: error)');
  const bytes = errorBytes(input.error, 'error message');
  const log = checkRunLog(input.log);
  const retry = input.retry === undefined ? undefined : checkRetryRequest(input.retry);
  return completeRun(core, input.runId, (date, definition) => {
    checkErrorSize(bytes, definition, 'error message');
    const plan = retry === undefined ? {} : { retry: { ...retry, nextAt: new Date(core.clock() + retry.delayMs).toISOString() } };
    return { kind: 'fail', runId: input.runId, date, error: input.error, code: input.code ?? null, ...log, ...at, ...plan };
  }, input.settleTasks);
}

/** A failure to be tried again: the next attempt within the policy (2 or more), out of `maxAttempts`, after `delayMs`. */
export type RetryRequest = { attempt: number; maxAttempts: number; delayMs: number };

function checkRetryRequest(retry: RetryRequest): RetryRequest {
  const { attempt, maxAttempts, delayMs } = retry;
  if (!Number.isSafeInteger(attempt) || !Number.isSafeInteger(maxAttempts) || attempt < 2 || attempt > maxAttempts) {
    throw new LedgerError('input.invalidRetries', `a retry is attempt 2 or later out of at least as many, not attempt ${attempt} of ${maxAttempts}`);
  }
  if (!Number.isSafeInteger(delayMs) || delayMs < 0) throw new LedgerError('input.invalidRetries', `a retry's delay is a whole number of milliseconds, 0 or more, not ${delayMs}`);
  return { attempt, maxAttempts, delayMs };
}

/**
 * Sets keys to `success` or `skipped` without running anything (see `Ledger.mark`); refused, with nothing
 * written, when one of them is running.
 *
 * @example
 * await markKeys(core, { pipeline: 'etl_orders', dates: ['2026-12-25'], skipped: true, reason: 'holiday: no orders' });
 */
export async function markKeys(core: LedgerCore, input: MarkInput): Promise<MarkResult> {
  const status = markStatus(input);
  if (typeof input.reason !== 'string' || input.reason.trim() === '') {
    throw new LedgerError('input.missingReason', `a mark needs a reason, recorded with it: --reason "…" (library: reason), e.g. --reason "holiday: the source publishes nothing"`);
  }
  return handleCommand<MarkResult>(core, async () => {
    const { timetable, state } = await readPipeline(core, input.pipeline);
    const keys = keysFor(timetable, state, input, core.clock, 'mark');
    const slots = keys.map((key) => ({ slot: markSlot(timetable, state, key), markId: core.newId() }));
    const decision = decideMark(state, { slots, status });
    if (!decision.ok) throw refusalError(decision.refusal);
    const result: MarkResult = { pipeline: input.pipeline, status, dryRun: input.dryRun ?? false, marked: decision.value.marked, unchanged: decision.value.unchanged };
    if (input.dryRun) return { result, label: input.pipeline };
    const requests = decision.value.events.map((event) => ({
      stream: runStream(input.pipeline, event.data.date),
      expectedVersion: state.dates.get(event.data.date)?.version ?? 0,
      events: [event],
    }));
    return { result, requests, reason: input.reason, label: input.pipeline };
  });
}

function markStatus(input: MarkInput): 'success' | 'skipped' {
  if (input.success === true && input.skipped !== true) return 'success';
  if (input.skipped === true && input.success !== true) return 'skipped';
  throw new LedgerError('input.invalidMark', 'say what to mark the dates as: --success (done, no command ran) or --skipped (nothing to do); one of them (library: success: true or skipped: true)');
}

/** The slot a key names: the timetable's, or a key recorded off-schedule with the interval it was recorded with. */
function markSlot(timetable: Timetable, state: PipelineState, key: string): Slot {
  const recorded = state.dates.get(key);
  if (recorded) return { date: key, logicalDate: recorded.logicalDate, dataInterval: recorded.dataInterval, runAfter: recorded.runAfter };
  const slot = timetable.slotAt(timetable.parseDate(key));
  if (!slot) throw new LedgerError('ledger.notASlot', `${key} is not a slot of the pipeline's timetable; name its dates as \`runledger state\` lists them`);
  return slot;
}

/**
 * Records that the runner owning a running run was stopped before it finished (see `Ledger.interrupt`).
 *
 * @example
 * await interruptRun(core, { runId, by: 'SIGINT', message: 'stopped while loading' });
 */
export async function interruptRun(core: LedgerCore, input: { runId: string; by: string; message?: string; log?: RunLog; at?: string }): Promise<CompletionResult> {
  const at = atField(core, input.at);
  const bytes = errorBytes(input.message ?? '', 'interruption message');
  const log = checkRunLog(input.log);
  return completeRun(core, input.runId, (date, definition) => {
    checkErrorSize(bytes, definition, 'interruption message');
    return { kind: 'interrupt', runId: input.runId, date, by: input.by, message: input.message ?? '', ...log, ...at };
  });
}

/**
 * Extends the lease of a running run.
 *
 * @example
 * await heartbeatRun(core, { runId, lease: '1m' });
 */
export async function heartbeatRun(core: LedgerCore, input: { runId: string; lease?: Duration; leaseMs?: number; at?: string }): Promise<CompletionResult> {
  const leaseMs = leaseOf(input, 'ledger.heartbeat');
  const at = atField(core, input.at);
  return completeRun(core, input.runId, (date, definition) => ({ kind: 'heartbeat', runId: input.runId, date, leaseMs: leaseMs ?? definition.leaseMs, ...at }));
}

/**
 * Records the state of one task of a run (see `Ledger.task`); the last task to finish appends the run's derived outcome.
 *
 * @example
 * await recordTask(core, { runId, taskId: 'load', state: 'success' });
 */
export async function recordTask(core: LedgerCore, input: TaskInput): Promise<TaskResult> {
  const taskState = checkTaskState(input.state);
  const tryNumber = input.tryNumber === undefined ? null : checkTryNumber(input.tryNumber);
  const at = atField(core, input.at);
  checkRunId(input.runId);
  const found = await core.store.findRun(input.runId);
  if (!found) throw new LedgerError('notFound.run', `no run ${input.runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
  const date = found.stream.slice(found.pipeline.length + 1);
  const bytes = input.error == null ? 0 : errorBytes(input.error, "task's error text");
  return handleCommand<TaskResult>(core, async () => {
    const view = await decidingView(core, found.pipeline, () => [date]);
    const { definition, state, tasks } = view === null ? await readPipeline(core, found.pipeline) : { definition: view.definition, state: view.state, tasks: await tasksOfStream(core, found.stream) };
    requireTask(definition, input.taskId);
    checkErrorSize(bytes, definition, "task's error text");
    const command = { runId: input.runId, date, taskId: input.taskId, state: taskState, tryNumber, error: input.error ?? null, ...at };
    const decision = decideTaskState(state, tasks, command);
    if (!decision.ok) throw refusalError(decision.refusal);
    const { events, repeated, outcome } = decision.value;
    const result: TaskResult = { runId: input.runId, pipeline: found.pipeline, date, taskId: input.taskId, state: taskState, tryNumber: decision.value.tryNumber, repeated, run: outcome };
    const reason = input.reason ?? (outcome.status === 'running' ? undefined : `task ${input.taskId} was the last to finish; run outcome derived from its leaf tasks`);
    return { result, requests: [{ stream: found.stream, expectedVersion: state.dates.get(date)?.version ?? 0, events }], reason, label: `${found.pipeline} ${date}` };
  });
}

/**
 * `settleTasks`: the completion is the producer's verdict on a task-level run (an Airflow DAG run's end):
 * instead of refusing while tasks are unfinished, it settles them from these states (`settleUnfinishedTasks`)
 * and records the outcome with the tasks it could not settle as unreported.
 */
async function completeRun(
  core: LedgerCore,
  runId: string,
  command: (date: string, definition: PipelineDefinition) => CompletionCommand,
  settleTasks?: Record<string, string>,
): Promise<CompletionResult> {
  checkRunId(runId);
  const found = await core.store.findRun(runId);
  if (!found) throw new LedgerError('notFound.run', `no run ${runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
  const date = found.stream.slice(found.pipeline.length + 1);
  return handleCommand<CompletionResult>(core, async () => {
    const view = await decidingView(core, found.pipeline, () => [date]);
    // Task states matter only to a pipeline that records them; they are folded from the key's own stream.
    const tasksOf = async () => (view?.definition.tasks ? tasksOfStream(core, found.stream) : initialTaskRuns());
    const { definition, state, tasks } = view === null ? await readPipeline(core, found.pipeline) : { definition: view.definition, state: view.state, tasks: await tasksOf() };
    const cmd = command(date, definition);
    const decision = decideCompletion(state, cmd, { nowMs: core.clock() });
    if (!decision.ok) throw refusalError(decision.refusal);
    // A task-level run's outcome follows from its leaves; a repeat (no events) needs no check.
    // An interruption is about the runner, not the outcome, so unfinished tasks do not hold it back.
    let events: LedgerEvent[] = decision.value.events;
    const verdict = settleTasks !== undefined && definition.tasks !== undefined && events.length > 0 && (cmd.kind === 'succeed' || cmd.kind === 'fail');
    if (verdict) {
      const settled = settleUnfinishedTasks(definition, tasks, { pipeline: found.pipeline, date, runId }, new Map(Object.entries(settleTasks)), cmd.at);
      const unreported = settled.unreported.length > 0 ? { unreportedTasks: settled.unreported } : {};
      const marked = events.map((e): LedgerEvent => {
        if (e.type === 'RunSucceeded') return { ...e, data: { ...e.data, ...unreported } };
        if (e.type === 'RunFailed') return { ...e, data: { ...e.data, ...unreported } };
        return e;
      });
      events = [...settled.events, ...marked];
    }
    const unfinished = verdict || decision.value.events.length === 0 || cmd.kind === 'interrupt' ? null : refuseUnfinishedTasks(definition, tasks, cmd);
    if (unfinished) throw refusalError(unfinished);
    const status = ({ succeed: 'success', fail: 'failed', interrupt: 'interrupted', heartbeat: 'running' } as const)[cmd.kind];
    const result: CompletionResult = { runId, pipeline: found.pipeline, date, status, repeated: decision.value.repeated };
    // A repeat appends nothing (decided.events is empty) and answers as it is.
    if (decision.value.events.length === 0) return { result, label: `${found.pipeline} ${date}` };
    const expected = state.dates.get(date)?.version ?? 0;
    const event = decision.value.events[0];
    return {
      result: event?.type === 'RunHeartbeat' ? { ...result, leaseExpiresAt: event.data.leaseExpiresAt } : result,
      requests: [{ stream: found.stream, expectedVersion: expected, events }],
      label: `${found.pipeline} ${date}`,
    };
  });
}

/**
 * Makes keys pending again, fencing out their runs; never deletes history.
 *
 * @example
 * await clearKeys(core, { pipeline: 'etl_orders', dates: ['2026-11-03'], reason: 'bad upstream file' });
 */
export async function clearKeys(core: LedgerCore, input: ClearInput): Promise<ClearResult> {
  if (input.downstream) return clearWithDownstream(core, input);
  return handleCommand<ClearResult>(core, async () => {
    const { timetable, state } = await readPipeline(core, input.pipeline);
    const keys = keysFor(timetable, state, input, core.clock);
    const decision = decideClear(state, { dates: keys, onlyFailed: input.onlyFailed ?? false });
    const result: ClearResult = { pipeline: input.pipeline, dryRun: input.dryRun ?? false, cleared: decision.cleared, skipped: decision.skipped };
    if (input.dryRun) return { result, label: input.pipeline };
    const requests = decision.events.map((event) => ({
      stream: runStream(input.pipeline, event.data.date),
      expectedVersion: state.dates.get(event.data.date)?.version ?? 0,
      events: [event],
    }));
    return { result, requests, reason: input.reason, label: input.pipeline };
  });
}

function refusalError(refusal: Refusal): LedgerError {
  return new LedgerError(refusal.code, refusal.message);
}

/**
 * The bytes of canonical JSON metrics take. They must be a JSON object that canonical JSON can hold
 * (no NaN or Infinity, no functions), no larger than any pipeline may allow.
 */
function metricsBytes(metrics: Record<string, unknown>): number {
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    throw new LedgerError('input.invalidMetrics', 'metrics must be a JSON object like { rows: 42 }');
  }
  const measured = measureMetrics(metrics);
  const problem = 'problem' in measured ? measured.problem : metricsSizeProblem(measured.bytes, MAX_SIZE_CAP_BYTES);
  if (problem !== null) throw new LedgerError('input.invalidMetrics', `metrics cannot be recorded: ${problem}`);
  return (measured as { bytes: number }).bytes;
}

/** The UTF-8 bytes of an error text, refused at once when it is larger than any pipeline may allow. */
function errorBytes(text: string, what: string): number {
  const bytes = utf8Bytes(text);
  if (bytes > MAX_SIZE_CAP_BYTES) checkErrorSize(bytes, { maxErrorBytes: MAX_SIZE_CAP_BYTES }, what);
  return bytes;
}

/** Refuses an error text over the pipeline's cap (`define --max-error-bytes`, 64 KB by default). */
function checkErrorSize(bytes: number, definition: { maxErrorBytes?: number | undefined }, what: string): void {
  const limit = recordedTextLimits(definition).errorBytes;
  if (bytes <= limit) return;
  throw new LedgerError(
    'input.errorTooLong',
    `the ${what} takes ${bytes.toLocaleString('en')} bytes, over the ${formatBytes(limit)} limit; keep the message short and point to a log file, or raise the pipeline's limit with define --max-error-bytes`,
  );
}

/**
 * The producer's own instant of a start or completion (`at`), as the events hold it: an RFC 3339
 * instant with a zone, normalized to UTC milliseconds; undefined when the caller gave none.
 */
function producerAt(core: LedgerCore, at: string | undefined): string | undefined {
  if (at === undefined) return undefined;
  const ms = typeof at === 'string' && INSTANT_PATTERN.test(at) ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(ms)) throw new LedgerError('input.invalidInstant', `'${String(at)}' is not an instant; give the producer's time as RFC 3339 with a zone, like 2026-11-02T00:10:00Z (library: at)`);
  checkProducerTime(core, ms, 'at');
  return new Date(ms).toISOString();
}

/**
 * Refuses a producer's instant too far ahead of the ledger's clock (a wrong clock would hold its date: every
 * later attempt would be older) or too far behind it, naming the field as the caller sent it.
 *
 * @example
 * checkProducerTime(core, Date.parse('2999-01-01T00:00:00Z'), 'eventTime') // throws input.eventTimeOutOfRange
 */
export function checkProducerTime(core: LedgerCore, ms: number, field: string): void {
  const nowMs = core.clock();
  const problem = producerTimeProblem(ms, nowMs, core.producerTime);
  if (problem === null) return;
  // Shown with their offset, as every table shows instants (no zone is known here: UTC, +00:00).
  const when = inZone(new Date(ms).toISOString(), 'UTC');
  const now = inZone(new Date(nowMs).toISOString(), 'UTC');
  throw new LedgerError(
    'input.eventTimeOutOfRange',
    problem.kind === 'future'
      ? `${field} ${when} is ${spanText(problem.byMs)} ahead of the ledger's clock (${now}), more than the ${spanText(problem.limitMs)} a producer's clock may be ahead; fix the producer's clock, or allow more with --max-clock-skew (library: maxClockSkew)`
      : `${field} ${when} is ${spanText(problem.byMs)} before the ledger's clock (${now}), more than the ${spanText(problem.limitMs)} an event may be old; fix the producer's clock, or allow older events with --max-event-age (library: maxEventAge)`,
  );
}

/** `973d`, `2h`, `5m`, `12s`: a span in its largest whole unit. */
function spanText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  return `${ms}ms`;
}

function atField(core: LedgerCore, at: string | undefined): { at?: string } {
  const value = producerAt(core, at);
  return value === undefined ? {} : { at: value };
}

/** Outputs are texts or `{ namespace, name }` (both non-empty), as the event schema holds them. */
function checkOutputs(outputs: readonly RunOutput[]): RunOutput[] {
  if (!Array.isArray(outputs)) throw new LedgerError('input.invalidOutputs', 'outputs are a list of dataset names, or of { namespace, name }');
  return outputs.map((o) => {
    if (typeof o === 'string') return o;
    if (typeof o === 'object' && o !== null && typeof o.namespace === 'string' && o.namespace !== '' && typeof o.name === 'string' && o.name !== '') return { namespace: o.namespace, name: o.name };
    throw new LedgerError('input.invalidOutputs', `an output is a dataset name or { namespace, name } with both non-empty, not ${JSON.stringify(o)}`);
  });
}

/** A run's log reference must be a path and a lowercase hex sha256; `{}` without one, so the event is as before. */
function checkRunLog(log: RunLog | undefined): { log?: RunLog } {
  if (log === undefined) return {};
  // Checked by hand, as the event schema's RunLog would: the schemas (zod) stay off a query's start-up path.
  const { path, sha256 } = (typeof log === 'object' && log !== null ? log : {}) as Partial<RunLog>;
  if (typeof path !== 'string' || path === '' || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new LedgerError('input.invalidRunLog', 'a run\'s log is { path, sha256 }: a non-empty file path and the 64 lowercase hex digits of the file\'s sha256');
  }
  return { log: { path, sha256 } };
}

/**
 * What a write decides on, read from the read models when the ledger keeps them: the summary row and
 * only the date rows the decision looks at (the deciders read `state.dates.get(key)` and the
 * definition), so a write costs the same on the millionth event as on the first. Null without read
 * models: the caller folds, as before.
 */
async function decidingView(core: LedgerCore, pipeline: string, keys: (timetable: Timetable) => readonly string[]): Promise<{ definition: PipelineDefinition; timetable: Timetable; state: PipelineState } | null> {
  const models = await readModelsFor(core, undefined);
  if (models === null) return null;
  // The summary this connection's last append wrote, as it wrote it: decoding the row again (its definition's JSON
  // and every count) was a twentieth of a library start + succeed's instructions.
  const written = models.writtenSummary?.(pipeline);
  const view = written === undefined ? await tableView(models, pipeline) : viewOfSummary(models, pipeline, written);
  withDates(view, await models.dates(pipeline, { keys: keys(view.timetable), light: true }));
  return view;
}

/** The task states of one date key's runs, folded from that key's own stream (no other event can change them). */
async function tasksOfStream(core: LedgerCore, stream: string): Promise<TaskRuns> {
  let tasks = initialTaskRuns();
  for await (const batch of core.store.read({ stream })) for (const event of batch) tasks = evolveTaskRuns(tasks, event);
  return tasks;
}

/**
 * The slot keys to suggest for a date that is not a slot: the slots of that local day when a day was named
 * (`2026-12-03` for a 06:00 schedule), else the slots just before and after the instant.
 */
function slotsNear(timetable: Timetable, typed: string, ms: number): string[] {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(typed);
  if (day) {
    const next = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + 1)).toISOString().slice(0, 10);
    const keys: string[] = [];
    timetable.eachSlot(ms, timetable.parseDate(next) - 1, (date) => keys.push(date));
    if (keys.length > 0) return keys;
  }
  const before = timetable.slotAtOrBefore(ms);
  const after = before ? timetable.next(before) : timetable.first();
  return [before, after].filter((s) => s !== undefined).map((s) => s.date);
}

/**
 * An empty run id (`succeed "$RUN"` with RUN unset) is a mistake in the caller's script, not a run that is missing:
 * exit 2, saying so, rather than "no run  in this ledger".
 */
function checkRunId(runId: string): void {
  if (typeof runId === 'string' && runId.trim() === '') {
    throw new LedgerError('input.emptyRunId', "the run id is empty; pass the id `start` printed (is the variable holding it set, e.g. RUN=$(runledger start … --json | jq -r .runId)?)");
  }
}
