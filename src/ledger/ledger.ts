import { monotonicFactory } from 'ulid';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { runStream, type RecordedEvent } from '../../events/recorded-event.js';
import { completeThrough } from '../../projections/complete-through.js';
import { decideClear } from '../../projections/decide-clear.js';
import { decideCompletion, type CompletionCommand } from '../../projections/decide-completion.js';
import { decideStart } from '../../projections/decide-start.js';
import { decideTaskState, refuseUnfinishedTasks } from '../../projections/decide-task-state.js';
import { deriveRunOutcome } from '../../projections/derive-run-outcome.js';
import { leaseExpired } from '../../projections/date-state.js';
import { pending } from '../../projections/pending.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { RunHistory } from '../../projections/run-history.js';
import type { TaskRuns } from '../../projections/task-runs.js';
import type { Refusal } from '../../projections/refusal.js';
import type { Slot } from '../../projections/slot.js';
import { taskGrid } from '../../projections/task-grid.js';
import { LedgerError } from '../errors.js';
import { checkDurationMs } from '../duration.js';
import { formatBytes, MAX_RECORDED_TEXT_BYTES, utf8Bytes } from '../../events/limits.js';
import { metricsProblem } from './metrics-problem.js';
import { defaultActor, processMetadata, toolVersion } from '../runtime.js';
import { knownSecrets, redactSecrets, redactValue } from '../secrets.js';
import type { AppendRequest, EventStore, NewEvent } from '../store/event-store.js';
import { openStore } from '../store/open-store.js';
import { subscribe, type SubscribeOptions, type Subscription } from '../ops/subscribe.js';
import { parseRangeEnd, parseRangeStart } from '../timetable/parse-range-end.js';
import { createTimetable } from '../timetable/create-timetable.js';
import type { Timetable } from '../timetable/timetable.js';
import { buildDefinition, checkPipelineName, completeDefinitionInput, diffDefinitions, timetableSpec, type DefineChanges } from './build-definition.js';
import { checkTaskState, checkTryNumber, requireTask } from './check-tasks.js';
import { foldPipeline, initialLoaded, loadCheckpoint, saveCheckpoint, type Loaded } from './projection-checkpoint.js';
import { refuseTakenBinding, sameJob } from '../ingest/openlineage/job-binding.js';
import type {
  AsOf,
  ClearInput,
  ClearResult,
  CompletionResult,
  DateRow,
  LogInput,
  PendingView,
  RangeInput,
  RunsView,
  StartInput,
  StartResult,
  StateView,
  WatermarkView,
} from './ledger-types.js';
import type { TaskGridInput, TaskGridView, TaskInput, TaskResult } from './task-types.js';

export type LedgerOptions = {
  /** A SQLite file path (default store) or a `postgres://` URL. */
  db: string;
  /** Milliseconds since the epoch; the only clock the ledger reads. Default `Date.now`. */
  clock?: () => number;
  /** Who is acting, recorded in every event (default `user@host`). */
  actor?: string;
  /** Create the ledger when it does not exist (default true; the CLI's queries pass false). */
  create?: boolean;
  /**
   * Sign every appended event's chain hash: the path of an Ed25519 private key PEM file, or `hmac:<secret>`.
   * Default: `RUNLEDGER_SIGNING_KEY` from the environment; `null` does not sign. The key never enters the ledger.
   */
  signingKey?: string | null;
  /**
   * Events a pipeline's state may take in before the ledger saves it as a
   * projection checkpoint, so the next process folds only what came after
   * (default 256; 0 neither reads nor writes checkpoints).
   */
  checkpointAfter?: number;
  /**
   * Secret values to replace by `[redacted]` in every free text an event stores (error texts, metrics,
   * outputs, reasons): an event is forever. The password of `db` is always added.
   */
  secrets?: string[];
};

/** The default of `LedgerOptions.checkpointAfter`. */
export const CHECKPOINT_AFTER = 256;

const MAX_CONFLICT_RETRIES = 50;

/**
 * Opens a ledger. Every operation reads the events it needs, folds them with
 * the pure projections, and appends what the pure decision rules return.
 *
 * @example
 * const ledger = await openLedger({ db: './runledger.db' });
 * await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
 * const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
 * await ledger.succeed({ runId: run.runId, metrics: { rows: 42 } });
 * await ledger.close();
 */
export async function openLedger(options: LedgerOptions): Promise<Ledger> {
  const store = await openStore(options.db, { create: options.create ?? true, ...(options.signingKey === undefined ? {} : { signingKey: options.signingKey }) });
  return new Ledger(store, options.clock ?? Date.now, options.actor ?? defaultActor(), ledgerSettings(options));
}

/** The facade's settings from the options of `openLedger`: the checkpoint threshold, and every secret to redact (longest first). */
export function ledgerSettings(options: LedgerOptions): { checkpointAfter: number; secrets: string[] } {
  const secrets = [...new Set([...knownSecrets(options.db, {}), ...(options.secrets ?? [])])].sort((a, b) => b.length - a.length);
  return { checkpointAfter: options.checkpointAfter ?? CHECKPOINT_AFTER, secrets };
}

export class Ledger {
  readonly store: EventStore;
  readonly #clock: () => number;
  readonly #actor: string;
  readonly #ids = monotonicFactory();
  /** Latest folded state per pipeline; caught up incrementally from its position. */
  readonly #cache = new Map<string, Loaded>();
  /**
   * The load in flight per pipeline. `evolve` updates the cached state's maps
   * in place, so two loads of one pipeline must never fold at once: both would
   * apply the same new events to the same maps (a second start counted as
   * attempt 9 after eight concurrent operations, as the runner's
   * max-active-runs and any `Promise.all` caller do).
   */
  readonly #loading = new Map<string, Promise<Loaded>>();
  /** Events folded per pipeline since its checkpoint was loaded or saved. */
  readonly #uncheckpointed = new Map<string, number>();
  readonly #checkpointAfter: number;

  readonly #secrets: readonly string[];

  constructor(store: EventStore, clock: () => number, actor: string, options: { checkpointAfter?: number; secrets?: readonly string[] } = {}) {
    this.store = store;
    this.#clock = clock;
    this.#actor = actor;
    this.#checkpointAfter = options.checkpointAfter ?? CHECKPOINT_AFTER;
    this.#secrets = options.secrets ?? [];
  }

  /** Milliseconds since the epoch, from the ledger's clock. */
  now(): number {
    return this.#clock();
  }

  /** A new ULID (event and run ids). */
  newId(): string {
    return this.#ids(this.#clock());
  }

  /** Defines a pipeline, or redefines it when the definition changed (`PipelineRedefined` with the diff). */
  async define(input: DefineChanges & { reason?: string }): Promise<{ pipeline: string; outcome: 'defined' | 'redefined' | 'unchanged'; definition: PipelineDefinition; changes: Array<{ field: string; from: unknown; to: unknown }> }> {
    checkPipelineName(input.pipeline);
    for (let retry = 0; ; retry++) {
      const { state } = await this.#load(input.pipeline);
      const before = state.definition;
      const { reason: _reason, ...requested } = input;
      const definition = buildDefinition(completeDefinitionInput(before, requested));
      const changes = before ? diffDefinitions(before, definition) : [];
      if (before && changes.length === 0) return { pipeline: definition.pipeline, outcome: 'unchanged', definition, changes };
      if (definition.openlineage && !sameJob(before?.openlineage, definition.openlineage)) refuseTakenBinding(await this.pipelines(), definition);
      const event: LedgerEvent = before
        ? { type: 'PipelineRedefined', schemaVersion: 1, data: { pipeline: definition.pipeline, definition, changes } }
        : { type: 'PipelineDefined', schemaVersion: 1, data: definition };
      const ok = await this.#append([{ stream: definition.pipeline, expectedVersion: state.version, events: [event] }], input.reason);
      if (ok) return { pipeline: definition.pipeline, outcome: before ? 'redefined' : 'defined', definition, changes };
      this.#retryOrGiveUp(retry, definition.pipeline);
    }
  }

  /** Every defined pipeline and its current definition, by name. */
  async pipelines(): Promise<PipelineDefinition[]> {
    const byName = new Map<string, PipelineDefinition>();
    for await (const batch of this.store.read()) {
      for (const event of batch) {
        if (event.type === 'PipelineDefined') byName.set(event.data.pipeline, event.data);
        if (event.type === 'PipelineRedefined') byName.set(event.data.pipeline, event.data.definition);
      }
    }
    return [...byName.values()].sort((a, b) => a.pipeline.localeCompare(b.pipeline));
  }

  /** The definition and timetable of a pipeline; `notFound.pipeline` when it was never defined. */
  async pipeline(name: string, asOf?: AsOf): Promise<{ definition: PipelineDefinition; timetable: Timetable; state: PipelineState; history: RunHistory; tasks: TaskRuns }> {
    checkPipelineName(name);
    const loaded = await this.#load(name, asOf);
    // Getters, not a spread: a state from a checkpoint reads its run history and task states only when asked.
    return {
      ...this.#defined(loaded.state),
      state: loaded.state,
      get history() {
        return loaded.history;
      },
      get tasks() {
        return loaded.tasks;
      },
    };
  }

  /** Starts a run of one date key, or refuses (`ledger.alreadyRunning`, `ledger.alreadySucceeded`, …). */
  async start(input: StartInput): Promise<StartResult> {
    const runType = input.runType ?? 'scheduled';
    if (input.leaseMs !== undefined) checkDurationMs(input.leaseMs, 'leaseMs');
    const runId = input.runId ?? this.newId();
    if (input.runId !== undefined) await this.#refuseTakenRunId(input.runId);
    for (let retry = 0; ; retry++) {
      const { definition, timetable, state } = await this.pipeline(input.pipeline);
      const { slot, onSchedule } = this.#slotFor(timetable, input, runType);
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
          leaseMs: input.leaseMs ?? definition.leaseMs,
          ...(input.supersede === undefined ? {} : { supersede: input.supersede }),
          ...(input.openlineage === undefined ? {} : { openlineage: input.openlineage }),
        },
        { nowMs: this.now() },
      );
      if (!decision.ok) throw refusalError(decision.refusal);
      const expected = state.dates.get(slot.date)?.version ?? 0;
      const reason = input.reason ?? (decision.value.takeoverOf ? `took over run ${decision.value.takeoverOf} whose lease expired` : undefined);
      const ok = await this.#append([{ stream: runStream(input.pipeline, slot.date), expectedVersion: expected, events: decision.value.events }], reason);
      if (ok) {
        const started = decision.value.events.at(-1) as Extract<LedgerEvent, { type: 'RunStarted' }>;
        const d = started.data;
        return {
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
        };
      }
      this.#retryOrGiveUp(retry, `${input.pipeline} ${slot.date}`);
    }
  }

  async #refuseTakenRunId(runId: string): Promise<void> {
    if (runId.trim() === '' || /\s/.test(runId)) throw new LedgerError('input.invalidRunId', `a run id is one word without spaces, not '${runId}'`);
    const found = await this.store.findRun(runId);
    if (found) throw new LedgerError('ledger.runIdTaken', `run id ${runId} is already a run of ${found.pipeline} ${found.stream.slice(found.pipeline.length + 1)}; give a new one, or leave it out for a fresh id`);
  }

  /** Records the success of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op. */
  async succeed(input: { runId: string; metrics?: Record<string, unknown>; outputs?: string[] }): Promise<CompletionResult> {
    const metrics = checkMetrics(input.metrics ?? {});
    return this.#complete(input.runId, (date) => ({ kind: 'succeed', runId: input.runId, date, metrics, outputs: input.outputs ?? [] }));
  }

  /** Records the failure of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op. */
  async fail(input: { runId: string; error: string; code?: string | null }): Promise<CompletionResult> {
    if (input.error.trim() === '') throw new LedgerError('input.emptyError', 'a failure needs an error message that says what went wrong, e.g. --error "raw file missing" (library: error)');
    if (utf8Bytes(input.error) > MAX_RECORDED_TEXT_BYTES) {
      throw new LedgerError('input.errorTooLong', `the error message takes ${utf8Bytes(input.error).toLocaleString('en')} bytes, over the ${formatBytes(MAX_RECORDED_TEXT_BYTES)} limit; keep the message short and point to a log file`);
    }
    return this.#complete(input.runId, (date) => ({ kind: 'fail', runId: input.runId, date, error: input.error, code: input.code ?? null }));
  }

  /**
   * Records that the runner owning a running run was stopped before it
   * finished (`by`: `SIGINT`, `SIGTERM`, …). The key becomes `interrupted`:
   * pending, and run again by every reprocess mode. Fenced like `fail`: only the current run of its date may report.
   *
   * @example
   * await ledger.interrupt({ runId, by: 'SIGINT', message: 'stopped while loading' });
   */
  async interrupt(input: { runId: string; by: string; message?: string }): Promise<CompletionResult> {
    return this.#complete(input.runId, (date) => ({ kind: 'interrupt', runId: input.runId, date, by: input.by, message: input.message ?? '' }));
  }

  /** Extends the lease of a running run. */
  async heartbeat(input: { runId: string; leaseMs?: number }): Promise<CompletionResult> {
    if (input.leaseMs !== undefined) checkDurationMs(input.leaseMs, 'leaseMs');
    return this.#complete(input.runId, (date, definition) => ({ kind: 'heartbeat', runId: input.runId, date, leaseMs: input.leaseMs ?? definition.leaseMs }));
  }

  /**
   * Records the state of one task of a run, fenced like every completion
   * (only the current run of its date may report); a repeat of the recorded state is a no-op. When it is the last task
   * to finish, the run's derived `RunSucceeded` or `RunFailed` is appended in
   * the same transaction.
   *
   * @example
   * await ledger.task({ runId, taskId: 'load', state: 'success' }) // { …, run: { status: 'running', unfinished: ['cleanup'] } }
   */
  async task(input: TaskInput): Promise<TaskResult> {
    const taskState = checkTaskState(input.state);
    const tryNumber = input.tryNumber === undefined ? null : checkTryNumber(input.tryNumber);
    const found = await this.store.findRun(input.runId);
    if (!found) throw new LedgerError('notFound.run', `no run ${input.runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
    const date = found.stream.slice(found.pipeline.length + 1);
    for (let retry = 0; ; retry++) {
      const { definition, state, tasks } = await this.pipeline(found.pipeline);
      requireTask(definition, input.taskId);
      const command = { runId: input.runId, date, taskId: input.taskId, state: taskState, tryNumber, error: input.error ?? null };
      const decision = decideTaskState(state, tasks, command);
      if (!decision.ok) throw refusalError(decision.refusal);
      const { events, repeated, outcome } = decision.value;
      const result: TaskResult = { runId: input.runId, pipeline: found.pipeline, date, taskId: input.taskId, state: taskState, tryNumber: decision.value.tryNumber, repeated, run: outcome };
      if (events.length === 0) return result;
      const reason = input.reason ?? (outcome.status === 'running' ? undefined : `task ${input.taskId} was the last to finish; run outcome derived from its leaf tasks`);
      if (await this.#append([{ stream: found.stream, expectedVersion: state.dates.get(date)?.version ?? 0, events }], reason)) return result;
      this.#retryOrGiveUp(retry, `${found.pipeline} ${date}`);
    }
  }

  async #complete(runId: string, command: (date: string, definition: PipelineDefinition) => CompletionCommand): Promise<CompletionResult> {
    const found = await this.store.findRun(runId);
    if (!found) throw new LedgerError('notFound.run', `no run ${runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
    const date = found.stream.slice(found.pipeline.length + 1);
    for (let retry = 0; ; retry++) {
      const { definition, state, tasks } = await this.pipeline(found.pipeline);
      const cmd = command(date, definition);
      const decision = decideCompletion(state, cmd, { nowMs: this.now() });
      if (!decision.ok) throw refusalError(decision.refusal);
      // S12: a task-level run's outcome follows from its leaves; a repeat (no events) needs no check.
      // An interruption is about the runner, not the outcome, so unfinished tasks do not hold it back.
      const unfinished = decision.value.events.length === 0 || cmd.kind === 'interrupt' ? null : refuseUnfinishedTasks(definition, tasks, cmd);
      if (unfinished) throw refusalError(unfinished);
      const status = ({ succeed: 'success', fail: 'failed', interrupt: 'interrupted', heartbeat: 'running' } as const)[cmd.kind];
      const result: CompletionResult = { runId, pipeline: found.pipeline, date, status, repeated: decision.value.repeated };
      if (decision.value.events.length === 0) return result;
      const expected = state.dates.get(date)?.version ?? 0;
      if (await this.#append([{ stream: found.stream, expectedVersion: expected, events: decision.value.events }])) {
        const event = decision.value.events[0];
        return event?.type === 'RunHeartbeat' ? { ...result, leaseExpiresAt: event.data.leaseExpiresAt } : result;
      }
      this.#retryOrGiveUp(retry, `${found.pipeline} ${date}`);
    }
  }

  /** Makes keys pending again, fencing out their runs; never deletes history. */
  async clear(input: ClearInput): Promise<ClearResult> {
    for (let retry = 0; ; retry++) {
      const { timetable, state } = await this.pipeline(input.pipeline);
      const keys = this.#keysFor(timetable, state, input);
      const decision = decideClear(state, { dates: keys, onlyFailed: input.onlyFailed ?? false });
      const result: ClearResult = { pipeline: input.pipeline, dryRun: input.dryRun ?? false, cleared: decision.cleared, skipped: decision.skipped };
      if (input.dryRun || decision.events.length === 0) return result;
      const requests = decision.events.map((event) => ({
        stream: runStream(input.pipeline, event.data.date),
        expectedVersion: state.dates.get(event.data.date)?.version ?? 0,
        events: [event],
      }));
      if (await this.#append(requests, input.reason)) return result;
      this.#retryOrGiveUp(retry, input.pipeline);
    }
  }

  /** Per-date state from the latest run of each date, with the watermark (greatest date ever successful) and complete-through (every date up to it successful now). */
  async state(input: RangeInput): Promise<StateView> {
    // "Now" first: after the load, nothing may await until the view is built, or a concurrent call could advance the shared state mid-view.
    const nowMs = await this.#nowFor(input.asOf);
    const { timetable, state } = await this.pipeline(input.pipeline, input.asOf);
    const [fromMs, toMs] = this.#range(timetable, input, nowMs);
    const rows = new Map<string, DateRow>();
    for (const slot of boundedSlots(timetable, fromMs, toMs)) rows.set(slot.date, missingRow(slot));
    for (const date of state.dates.values()) {
      const at = Date.parse(date.logicalDate);
      if (at < fromMs || at > toMs) continue;
      rows.set(date.date, {
        date: date.date,
        status: date.status,
        runId: date.runId,
        attempt: date.attempt,
        attempts: date.attempts,
        runType: date.runType,
        logicalDate: date.logicalDate,
        dataInterval: date.dataInterval,
        startedAt: date.startedAt,
        finishedAt: date.finishedAt,
        leaseExpiresAt: date.leaseExpiresAt,
        metrics: date.metrics,
        outputs: date.outputs,
        error: date.error?.message ?? null,
        errorCode: date.error?.code ?? null,
        offSchedule: date.offSchedule,
        stalled: leaseExpired(date, nowMs),
      });
    }
    // Each logical date parsed once, not once per comparison.
    const dates = [...rows.values()]
      .map((row) => ({ at: Date.parse(row.logicalDate), row }))
      .sort((a, b) => a.at - b.at)
      .map(({ row }) => row);
    return { pipeline: input.pipeline, watermark: state.watermark?.date ?? null, completeThrough: this.#completeThrough(timetable, state), position: state.position, dates };
  }

  /** The watermark (greatest date ever successful; it never goes down) and complete-through (every date from the start up to it is successful now; it drops after a clear). */
  async watermark(input: { pipeline: string; asOf?: AsOf }): Promise<WatermarkView> {
    const { timetable, state } = await this.pipeline(input.pipeline, input.asOf);
    return { pipeline: input.pipeline, watermark: state.watermark?.date ?? null, completeThrough: this.#completeThrough(timetable, state) };
  }

  /** Slots due by `now` that are not done, with reasons; running ones apart. */
  async pending(input: RangeInput): Promise<PendingView> {
    // "Now" first: after the load, nothing may await until the view is built, or a concurrent call could advance the shared state mid-view.
    const nowMs = await this.#nowFor(input.asOf);
    const { timetable, state } = await this.pipeline(input.pipeline, input.asOf);
    const [fromMs, toMs] = this.#range(timetable, input, nowMs);
    // Pending means due: an explicit --to past now must not list tomorrow as missing.
    // A slot already started early (a manual run) keeps its state visible.
    const slots = dueSlots(timetable, fromMs, toMs, nowMs, state);
    const report = pending(state, slots, nowMs);
    return { pipeline: input.pipeline, from: slots[0]?.date ?? null, to: slots.at(-1)?.date ?? null, ...report };
  }

  /** Every run (attempt) of a pipeline, oldest first. */
  async runs(input: { pipeline: string; date?: string; asOf?: AsOf }): Promise<RunsView> {
    const { timetable, state, history } = await this.pipeline(input.pipeline, input.asOf);
    const key = input.date === undefined ? undefined : this.#keyOf(timetable, input.date, state);
    const runs = [...history.runs.values()].filter((run) => key === undefined || run.date === key);
    return { pipeline: input.pipeline, runs };
  }

  /** The task grid of one run: every declared task with its latest state and try, and the outcome they imply. */
  async runTasks(input: TaskGridInput): Promise<TaskGridView> {
    const { definition, history, tasks } = await this.pipeline(input.pipeline, input.asOf);
    const run = history.runs.get(input.runId);
    if (!run) throw new LedgerError('notFound.run', `no run ${input.runId} of ${input.pipeline}${input.asOf ? ' at that point' : ''}; list its runs with \`runledger runs ${input.pipeline}\``);
    const reported = tasks.runs.get(input.runId) ?? new Map();
    const outcome = definition.tasks ? deriveRunOutcome(definition.tasks, reported) : null;
    return { pipeline: input.pipeline, run, tasks: taskGrid(definition.tasks ?? [], reported), outcome };
  }

  /**
   * Events, oldest first, filtered (every filter narrows): `pipeline`, `date`
   * (a key of that pipeline's timetable, or the literal key without one),
   * `runId`, `types`, `actor`, `since`/`until` (inclusive, on `recordedAt`),
   * `asOf` (the ledger as it stood then); `limit` keeps the last n that match.
   *
   * @example
   * await ledger.log({ pipeline: 'etl_orders', date: '2026-11-03', types: ['RunFailed'], limit: 5 });
   */
  async log(input: LogInput = {}): Promise<{ events: RecordedEvent[] }> {
    const events: RecordedEvent[] = [];
    for await (const batch of this.logBatches(input)) for (const event of batch) events.push(event);
    return { events };
  }

  /**
   * `log` as batches, oldest first, so a listing of a million events never
   * sits in memory at once (without `limit`; with it, memory follows the limit).
   *
   * @example
   * for await (const batch of ledger.logBatches({ pipeline: 'etl_orders' })) print(batch);
   */
  async *logBatches(input: LogInput = {}): AsyncIterable<RecordedEvent[]> {
    let key = input.date;
    if (input.pipeline !== undefined) {
      const { state } = await this.#load(input.pipeline);
      const { timetable } = this.#defined(state);
      if (input.date !== undefined) key = this.#keyOf(timetable, input.date, state);
    }
    if (input.runId !== undefined && !(await this.store.findRun(input.runId))) {
      throw new LedgerError('notFound.run', `no run ${input.runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
    }
    const toPosition = await this.#positionFor(input.asOf);
    const since = input.since === undefined ? -Infinity : Date.parse(input.since);
    const until = input.until === undefined ? Infinity : Date.parse(input.until);
    const types = input.types === undefined ? undefined : new Set<string>(input.types);
    const matches = (e: RecordedEvent): boolean => {
      if (types && !types.has(e.type)) return false;
      if (input.actor !== undefined && e.metadata.actor !== input.actor) return false;
      if (key !== undefined && (!('date' in e.data) || e.data.date !== key)) return false;
      const at = Date.parse(e.recordedAt);
      return at >= since && at <= until;
    };
    const filter = {
      ...(input.pipeline === undefined ? {} : { pipeline: input.pipeline }),
      ...(input.runId === undefined ? {} : { runId: input.runId }),
      ...(toPosition === undefined ? {} : { toPosition }),
    };
    if (input.limit === undefined) {
      for await (const batch of this.store.read(filter)) {
        const matching = batch.filter(matches);
        if (matching.length > 0) yield matching;
      }
      return;
    }
    let events: RecordedEvent[] = [];
    for await (const batch of this.store.read(filter)) {
      for (const event of batch) if (matches(event)) events.push(event);
      // With a limit, memory follows the limit, not the log.
      if (events.length > 2 * input.limit + 1000) events = events.slice(-input.limit);
    }
    const last = input.limit === 0 ? [] : events.slice(-input.limit);
    if (last.length > 0) yield last;
  }

  /**
   * A durable catch-up subscription: every event after the consumer's stored
   * position (or, for a new one, from `fromPosition` or from now on) that
   * passes the filter, in order, at least once, to `handler`; the position is
   * stored after the handler resolves. See `subscribe` in src/ops/subscribe.ts.
   *
   * @example
   * const sub = await ledger.subscribe({ consumer: 'alerts', filter: { types: ['RunFailed'] } }, async (event) => page(event));
   * await sub.done; // rejects with consumer.handlerFailed when the handler keeps failing
   */
  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void): Promise<Subscription> {
    return subscribe(this.store, { clock: this.#clock, ...options }, handler);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  /** `await using ledger = await openLedger(…)` closes the ledger when the block ends, even on a throw. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- internals

  async #load(pipeline: string, asOf?: AsOf): Promise<Loaded> {
    if (asOf !== undefined) {
      const toPosition = await this.#positionFor(asOf);
      const start = (this.#checkpointAfter > 0 ? await loadCheckpoint(this.store, pipeline, toPosition) : null) ?? initialLoaded(pipeline);
      return (await foldPipeline(this.store, start, pipeline, toPosition)).loaded;
    }
    const previous = this.#loading.get(pipeline);
    const load = (async () => {
      await previous?.catch(() => undefined);
      const cached = this.#cache.get(pipeline) ?? (this.#checkpointAfter > 0 ? await loadCheckpoint(this.store, pipeline) : null) ?? initialLoaded(pipeline);
      try {
        const { loaded, folded, lastHash } = await foldPipeline(this.store, cached, pipeline, undefined);
        this.#cache.set(pipeline, loaded);
        const pending = (this.#uncheckpointed.get(pipeline) ?? 0) + folded;
        this.#uncheckpointed.set(pipeline, pending);
        if (this.#checkpointAfter > 0 && pending >= this.#checkpointAfter && lastHash !== null) {
          // Lazily, after the fold: a crash before this line only leaves an older checkpoint, which is still a true prefix.
          if (await saveCheckpoint(this.store, loaded, lastHash)) this.#uncheckpointed.set(pipeline, 0);
        }
        return loaded;
      } catch (error) {
        // A read that failed halfway has already changed the cached maps; rebuild from scratch next time.
        this.#cache.delete(pipeline);
        throw error;
      }
    })();
    this.#loading.set(pipeline, load);
    try {
      return await load;
    } finally {
      if (this.#loading.get(pipeline) === load) this.#loading.delete(pipeline);
    }
  }

  async #positionFor(asOf: AsOf | undefined): Promise<number | undefined> {
    if (asOf === undefined) return undefined;
    if ('position' in asOf) {
      // A position past the head names a moment the ledger has not reached; answering with today's state would hide a typo.
      const head = await this.store.head();
      if (asOf.position > head.position) {
        throw new LedgerError('input.asOfBeyondHead', `--as-of ${asOf.position} is past the ledger's last event (position ${head.position}); pass a position up to ${head.position} or an instant`);
      }
      return asOf.position;
    }
    return this.store.positionAt(asOf.instant);
  }

  /**
   * "Now" as the ledger stood at the as-of point. With an instant, that
   * instant; with a position, the moment that event was recorded, so pending,
   * stalled leases and the default range are what the ledger said right after
   * it, not a mix of old events and today's clock. Without as-of, the clock.
   */
  async #nowFor(asOf: AsOf | undefined): Promise<number> {
    if (asOf === undefined) return this.now();
    if ('instant' in asOf) return Date.parse(asOf.instant);
    for await (const batch of this.store.read({ fromPosition: asOf.position, toPosition: asOf.position, batchSize: 1 })) {
      const event = batch[0];
      if (event) return Date.parse(event.recordedAt);
    }
    // A position this store does not hold: a replayed export filtered to one pipeline.
    return this.now();
  }

  #defined(state: PipelineState): { definition: PipelineDefinition; timetable: Timetable } {
    if (!state.definition) {
      throw new LedgerError('notFound.pipeline', `no pipeline '${state.pipeline}' in this ledger; define it with \`runledger define ${state.pipeline} --schedule @daily --start <date>\` (library: ledger.define)`);
    }
    return { definition: state.definition, timetable: createTimetable(timetableSpec(state.definition)) };
  }

  #completeThrough(timetable: Timetable, state: PipelineState): string | null {
    return completeThrough(state, slotsFrom(timetable));
  }

  /** [from, to] in ms: defaults are the pipeline's first slot and the last slot due now; a bare date `to` on an instant-keyed pipeline is the end of that local day. */
  #range(timetable: Timetable, input: { from?: string; to?: string }, nowMs: number): [number, number] {
    const from = input.from !== undefined ? parseRangeStart(timetable, input.from) : Date.parse(timetable.first()?.logicalDate ?? '1970-01-01T00:00:00Z');
    const lastDue = timetable.lastDue(nowMs);
    const to = input.to !== undefined ? parseRangeEnd(timetable, input.to) : lastDue ? Date.parse(lastDue.logicalDate) : from - 1;
    // A reversed range is a typo, not an empty answer (and `clear` would call it "no dates named").
    if (input.from !== undefined && input.to !== undefined && from > to) {
      throw new LedgerError('input.invalidRange', `--from ${input.from} is after --to ${input.to}; give the earlier date first`);
    }
    return [from, to];
  }

  #keyOf(timetable: Timetable, text: string, state: PipelineState): string {
    // A key recorded under an earlier timetable (`2026-11-03` before a redefinition to `0 6 * * *`) still names itself,
    // so every date `state` shows can be cleared and looked up.
    if (state.dates.has(text)) return text;
    const ms = timetable.parseDate(text);
    return timetable.slotAt(ms)?.date ?? timetable.formatInstant(ms);
  }

  #slotFor(timetable: Timetable, input: StartInput, runType: StartInput['runType']): { slot: Slot; onSchedule: boolean } {
    const ms = timetable.parseDate(input.date);
    const onScheduleSlot = timetable.slotAt(ms);
    const explicit = input.dataInterval;
    if (explicit && runType !== 'manual') {
      throw new LedgerError('input.intervalNeedsManual', "an explicit data interval is only for manual runs; add --type manual (library: type: 'manual')");
    }
    const interval = explicit
      ? { start: timetable.formatInstant(timetable.parseDate(explicit.start)), end: timetable.formatInstant(timetable.parseDate(explicit.end)) }
      : undefined;
    if (interval && Date.parse(interval.end) < Date.parse(interval.start)) {
      throw new LedgerError('input.invalidInterval', `--interval-end ${explicit?.end} is before --interval-start ${explicit?.start}`);
    }
    if (onScheduleSlot) return { slot: interval ? { ...onScheduleSlot, dataInterval: interval } : onScheduleSlot, onSchedule: true };
    // Off-schedule keys are always full instants, so they never collide with a daily slot's key.
    const dataInterval = interval ?? timetable.intervalFor(ms);
    const logicalDate = timetable.formatInstant(ms);
    return { slot: { date: logicalDate, logicalDate, dataInterval, runAfter: dataInterval.end }, onSchedule: false };
  }

  #keysFor(timetable: Timetable, state: PipelineState, input: ClearInput): string[] {
    const keys = new Set<string>((input.dates ?? []).map((d) => this.#keyOf(timetable, d, state)));
    if (input.from !== undefined || input.to !== undefined) {
      const [fromMs, toMs] = this.#range(timetable, input, this.now());
      for (const slot of boundedSlots(timetable, fromMs, toMs)) keys.add(slot.date);
      for (const date of state.dates.values()) {
        const at = Date.parse(date.logicalDate);
        if (at >= fromMs && at <= toMs) keys.add(date.date);
      }
    }
    if (keys.size === 0) throw new LedgerError('input.nothingToClear', 'name the dates to clear, or a range with --from and --to');
    return [...keys];
  }

  /** Appends with metadata; false on a version conflict (the caller re-reads and decides again). */
  async #append(requests: Array<{ stream: string; expectedVersion: number; events: LedgerEvent[] }>, reason?: string): Promise<boolean> {
    const recordedAt = new Date(this.now()).toISOString();
    const metadata = { actor: this.#actor, ...processMetadata(), toolVersion, ...(reason === undefined ? {} : { reason: redactSecrets(reason, this.#secrets) }) };
    const full: AppendRequest[] = requests.map((r) => ({
      stream: r.stream,
      expectedVersion: r.expectedVersion,
      events: r.events.map((event): NewEvent => ({ ...redactEvent(event, this.#secrets), eventId: this.newId(), stream: r.stream, recordedAt, metadata })),
    }));
    const result = await this.store.append(full);
    return result.ok;
  }

  #retryOrGiveUp(retry: number, what: string): void {
    if (retry >= MAX_CONFLICT_RETRIES) {
      throw new LedgerError('store.contention', `${what} kept changing under ${MAX_CONFLICT_RETRIES} retries; try again`);
    }
  }
}

/**
 * The event with known secrets removed from its free texts (error, metrics, outputs). Names, dates
 * and ids are left alone: they key the ledger, and a secret has no business there.
 */
function redactEvent(event: LedgerEvent, secrets: readonly string[]): LedgerEvent {
  if (secrets.length === 0) return event;
  const data = event.data as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const field of ['error', 'metrics', 'outputs']) if (data[field] !== undefined && data[field] !== null) patch[field] = redactValue(data[field], secrets);
  return { ...event, data: { ...data, ...patch } } as LedgerEvent;
}

function refusalError(refusal: Refusal): LedgerError {
  return new LedgerError(refusal.code, refusal.message);
}

function missingRow(slot: Slot): DateRow {
  return {
    date: slot.date,
    status: 'missing',
    runId: null,
    attempt: null,
    attempts: 0,
    runType: null,
    logicalDate: slot.logicalDate,
    dataInterval: slot.dataInterval,
    startedAt: null,
    finishedAt: null,
    leaseExpiresAt: null,
    metrics: null,
    outputs: [],
    error: null,
    errorCode: null,
    offSchedule: false,
    stalled: false,
  };
}

/** More slots than any answer should list; past it the caller is asked to narrow the range. */
const MAX_SLOTS = 200_000;

/**
 * The slots of a range, refusing ranges so long that listing them would take
 * minutes (a typo like `--start 0206-11-02` on an hourly pipeline is 16 million slots).
 */
function* boundedSlots(timetable: Timetable, fromMs: number, toMs: number): Generator<Slot> {
  let count = 0;
  for (const slot of timetable.slotsBetween(fromMs, toMs)) {
    if (++count > MAX_SLOTS) {
      throw new LedgerError(
        'input.rangeTooLarge',
        `the range from ${timetable.formatInstant(fromMs)} holds more than ${MAX_SLOTS.toLocaleString('en')} slots; narrow it with --from/--to (or check the pipeline's --start)`,
      );
    }
    yield slot;
  }
}

/**
 * The slots of a range that are due at `nowMs`, plus those already started
 * early. runAfter grows with the logical date, so the due ones are exactly
 * those up to the last due slot: one key comparison a slot, no date parsing.
 */
function dueSlots(timetable: Timetable, fromMs: number, toMs: number, nowMs: number, state: PipelineState): Slot[] {
  const last = timetable.lastDue(nowMs);
  const lastDue = last?.date;
  let due = last !== undefined && Date.parse(last.logicalDate) >= fromMs;
  const out: Slot[] = [];
  for (const slot of boundedSlots(timetable, fromMs, toMs)) {
    if (due || state.dates.has(slot.date)) out.push(slot);
    if (slot.date === lastDue) due = false;
  }
  return out;
}

/** Metrics must be a JSON object that canonical JSON can hold (no NaN or Infinity, no functions). */
function checkMetrics(metrics: Record<string, unknown>): Record<string, unknown> {
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    throw new LedgerError('input.invalidMetrics', 'metrics must be a JSON object like { rows: 42 }');
  }
  // Depth first: canonical JSON recurses, and 5,000 levels overflow the stack.
  const problem = metricsProblem(metrics);
  if (problem !== null) throw new LedgerError('input.invalidMetrics', `metrics cannot be recorded: ${problem}`);
  return metrics;
}


/** Every slot from the pipeline's first, lazily. */
export function* slotsFrom(timetable: Timetable): Generator<Slot> {
  for (let slot = timetable.first(); slot; slot = timetable.next(slot)) yield slot;
}
