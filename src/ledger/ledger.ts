/// <reference lib="esnext.disposable" preserve="true" />
// The ledger is AsyncDisposable (`await using`): the reference keeps the shipped .d.ts compiling for a consumer whose
// lib stops before esnext and who has no @types/node (TypeScript 6+ no longer loads every @types package by default).
import type { DatasetRef, RunLog, RunOutput } from '../../events/types/common.js';
import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { RunHistory } from '../../projections/run-history.js';
import type { TaskRuns } from '../../projections/task-runs.js';
import type { PipelineStatus } from '../../projections/views/pipeline-status.js';
import { knownSecrets, redactSecrets } from '../secrets.js';
import { LedgerError } from '../errors.js';
import type { EventStore } from '../store/event-store.js';
import type { RebuildProgress, RebuildResult } from '../store/read-models.js';
import { subscribe, type SubscribeOptions, type Subscription } from './subscribe.js';
import type { Timetable } from '../timetable/timetable.js';
import type { DefineChanges } from './build-definition.js';
import { controlPipelines, type ControlResult } from './control-pipelines.js';
import { listControls, type PipelineControls } from './list-controls.js';
import { checkOptionKeys, durationMs, durationOption, leaseOf, optionKeys, type Duration } from './library-options.js';
import { DEFAULT_MAX_CLOCK_SKEW_MS, DEFAULT_MAX_EVENT_AGE_MS, type ProducerTimeWindow } from '../../projections/producer-time.js';
import { CHECKPOINT_AFTER, createLedgerCore, type LedgerCore, type LedgerCoreOptions } from './ledger-core.js';
import { logEventBatches } from './ledger-log.js';
import { pendingView, pipelineStatusView, runsView, runTasksView, stateView, watermarkView, type PipelineStatusView, type RunsInput } from './ledger-queries.js';
import { checkProducerTime, clearKeys, definePipeline, failRun, heartbeatRun, interruptRun, markKeys, recordTask, startRun, succeedRun, type DefineResult, type RetryRequest } from './ledger-writes.js';
import { listPipelines, readPipeline } from './load-pipeline.js';
import { pipelineStatusesView } from './pipeline-statuses-view.js';
import type {
  AsOf,
  ClearInput,
  ClearResult,
  CompletionResult,
  MarkInput,
  MarkResult,
  LogInput,
  PendingView,
  RangeInput,
  RunsView,
  StartInput,
  StateInput,
  StartResult,
  StateView,
  WatermarkView,
} from './ledger-types.js';
import type { TaskGridInput, TaskGridView, TaskInput, TaskResult } from './task-types.js';

export { slotsFrom } from './slots.js';

/** What `ledger.define` takes: the definition's fields, with durations as `"1h"` or milliseconds. */
export type DefineOptions = Omit<DefineChanges, 'leaseMs' | 'freshnessMs' | 'retryDelayMs' | 'maxRetryDelayMs' | 'timeoutMs' | 'slaMs'> & {
  /** How long a run may go without a heartbeat before another may take it over: `"1h"` or milliseconds (default 1h). */
  lease?: Duration;
  /** How stale the data may get before `check` reports it: `"1d"` or milliseconds; null drops it on a redefinition. */
  freshness?: Duration | null;
  /** The pause before the first retry: `"5m"` (the default, as Airflow's retry_delay), `"0s"` or milliseconds; null drops it. */
  retryDelay?: Duration | null;
  /** The longest pause between exponential retries: `"1d"` (the default) or milliseconds; null drops it. */
  maxRetryDelay?: Duration | null;
  /** An attempt running longer is stopped (SIGTERM, then SIGKILL) and fails: `"2h"` or milliseconds; null drops it. */
  timeout?: Duration | null;
  /** A date not done by its run-after plus this is late (`notify --on late`): `"2h"` or milliseconds; null drops it. */
  sla?: Duration | null;
  /** @deprecated Use `lease`; works until the next minor version. */
  leaseMs?: number | undefined;
  /** @deprecated Use `freshness`; works until the next minor version. */
  freshnessMs?: number | null | undefined;
  /** @deprecated Use `retryDelay`; works until the next minor version. */
  retryDelayMs?: number | null | undefined;
  /** @deprecated Use `maxRetryDelay`; works until the next minor version. */
  maxRetryDelayMs?: number | null | undefined;
  /** @deprecated Use `timeout`; works until the next minor version. */
  timeoutMs?: number | null | undefined;
  /** @deprecated Use `sla`; works until the next minor version. */
  slaMs?: number | null | undefined;
  reason?: string;
};

const START_KEYS = optionKeys<StartInput>()({
  pipeline: true, date: true, runType: true, force: true, lease: true, leaseMs: true, expectAttempts: true, dataInterval: true, reason: true, runId: true, supersede: true, openlineage: true, pool: true, at: true,
});
const DEFINE_KEYS = optionKeys<DefineOptions>()({
  pipeline: true, schedule: true, start: true, end: true, timezone: true, timetable: true, catchup: true, maxActiveRuns: true, lease: true, leaseMs: true, tasks: true,
  freshness: true, freshnessMs: true, openlineage: true, maxMetricsBytes: true, maxErrorBytes: true, reason: true, upstreams: true, command: true,
  retries: true, retryDelay: true, retryDelayMs: true, retryExponential: true, maxRetryDelay: true, maxRetryDelayMs: true, timeout: true, timeoutMs: true,
  dependsOnPast: true, sla: true, slaMs: true, effective: true, pool: true, priority: true,
});
/** What `ledger.succeed` takes: `{ runId, metrics: { rows: 1200 } }`. */
export type SucceedInput = { runId: string; metrics?: Record<string, unknown>; outputs?: RunOutput[]; log?: RunLog; at?: string; settleTasks?: Record<string, string>; inputs?: DatasetRef[] };
/** What `ledger.fail` takes: `{ runId, error: 'upstream file missing', code: 'E_INPUT' }`. */
export type FailInput = { runId: string; error: string; code?: string | null; log?: RunLog; at?: string; settleTasks?: Record<string, string>; retry?: RetryRequest };
/** What `ledger.interrupt` takes: `{ runId, by: 'SIGTERM' }`. */
export type InterruptInput = { runId: string; by: string; message?: string; log?: RunLog; at?: string };
/** What `ledger.heartbeat` takes: `{ runId, lease: '1h' }`. */
export type HeartbeatInput = { runId: string; lease?: Duration; /** @deprecated Use `lease`; works until the next minor version. */ leaseMs?: number; at?: string };
const SUCCEED_KEYS = optionKeys<SucceedInput>()({ runId: true, metrics: true, outputs: true, log: true, at: true, settleTasks: true, inputs: true });
const FAIL_KEYS = optionKeys<FailInput>()({ runId: true, error: true, code: true, log: true, at: true, settleTasks: true, retry: true });
const MARK_KEYS = optionKeys<MarkInput>()({ pipeline: true, dates: true, from: true, to: true, success: true, skipped: true, reason: true, dryRun: true });
const INTERRUPT_KEYS = optionKeys<InterruptInput>()({ runId: true, by: true, message: true, log: true, at: true });
const HEARTBEAT_KEYS = optionKeys<HeartbeatInput>()({ runId: true, lease: true, leaseMs: true, at: true });
const RUNS_KEYS = optionKeys<RunsInput>()({ pipeline: true, date: true, asOf: true, limit: true, before: true, light: true });
const TASK_KEYS = optionKeys<TaskInput>()({ runId: true, taskId: true, state: true, tryNumber: true, error: true, reason: true, at: true });
const CLEAR_KEYS = optionKeys<ClearInput>()({ pipeline: true, dates: true, from: true, to: true, onlyFailed: true, reason: true, dryRun: true, downstream: true });
const RANGE_KEYS = optionKeys<RangeInput>()({ pipeline: true, from: true, to: true, asOf: true });
const STATE_KEYS = optionKeys<StateInput>()({ pipeline: true, from: true, to: true, asOf: true, limit: true, metrics: true });
const LOG_KEYS = optionKeys<LogInput>()({ pipeline: true, date: true, runId: true, types: true, actor: true, since: true, until: true, asOf: true, limit: true });

/** `define`'s options as the definition takes them: durations in milliseconds, the deprecated `…Ms` names noted once. */
function defineChanges(input: DefineOptions): DefineChanges & { reason?: string } {
  const { lease, leaseMs, freshness, freshnessMs, retryDelay, retryDelayMs, maxRetryDelay, maxRetryDelayMs, timeout, timeoutMs, sla, slaMs, ...rest } = input;
  const out: DefineChanges & { reason?: string } = { ...rest };
  const lease_ = leaseOf({ lease, leaseMs }, 'ledger.define');
  if (lease_ !== undefined) out.leaseMs = lease_;
  const durations = { freshness, freshnessMs, retryDelay, retryDelayMs, maxRetryDelay, maxRetryDelayMs, timeout, timeoutMs, sla, slaMs };
  for (const name of ['freshness', 'retryDelay', 'maxRetryDelay', 'timeout', 'sla'] as const) {
    const ms = durationOption(durations, name, 'ledger.define', name === 'retryDelay');
    if (ms !== undefined) out[`${name}Ms`] = ms;
  }
  return out;
}

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
   * Told how a rebuild of the read models advances (events folded of all there are), when this ledger
   * has to build them: a ledger written by an older release, or by a build with other folds.
   */
  rebuildProgress?: RebuildProgress;
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
  /**
   * How far ahead of the clock a producer's own time (`at`, an OpenLineage `eventTime`) may be: `"5m"` (the
   * default) or milliseconds. Later is refused (`input.eventTimeOutOfRange`): a producer whose clock is wrong
   * would otherwise rank its run above every real attempt of the date. As `--max-clock-skew`.
   */
  maxClockSkew?: Duration;
  /** How far behind the clock a producer's own time may be: `"3650d"` (the default) or milliseconds. As `--max-event-age`. */
  maxEventAge?: Duration;
};

/** The facade's settings from the options of `openLedger`: the checkpoint threshold, and every secret to redact (longest first). */
export function ledgerSettings(options: LedgerOptions): LedgerCoreOptions & { checkpointAfter: number; secrets: string[] } {
  const secrets = [...new Set([...knownSecrets(options.db, {}), ...(options.secrets ?? [])])].sort((a, b) => b.length - a.length);
  const producerTime = {
    maxClockSkewMs: options.maxClockSkew === undefined ? DEFAULT_MAX_CLOCK_SKEW_MS : durationMs(options.maxClockSkew, 'maxClockSkew'),
    maxEventAgeMs: options.maxEventAge === undefined ? DEFAULT_MAX_EVENT_AGE_MS : durationMs(options.maxEventAge, 'maxEventAge'),
  };
  return { checkpointAfter: options.checkpointAfter ?? CHECKPOINT_AFTER, secrets, producerTime, ...(options.rebuildProgress === undefined ? {} : { rebuildProgress: options.rebuildProgress }) };
}

/**
 * The ledger's facade: one method per question or command, each handed to the module that answers it
 * (writes in ledger-writes.ts, loads in load-pipeline.ts, views in ledger-queries.ts, the event log in
 * ledger-log.ts) with the state they share (ledger-core.ts).
 */
export class Ledger {
  readonly store: EventStore;
  #core: LedgerCore;

  constructor(store: EventStore, clock: () => number, actor: string, options: LedgerCoreOptions = {}) {
    this.store = store;
    this.#core = createLedgerCore(store, clock, actor, options);
  }

  /**
   * The same ledger (store, clock, cache) recording `actor` as who wrote: `serve`
   * records each named HTTP writer as `http:<name>`. Close the original, not this view.
   *
   * @example
   * await ledger.withActor('http:airflow').succeed({ runId })
   */
  withActor(actor: string): Ledger {
    const view = new Ledger(this.store, this.#core.clock, actor, { checkpointAfter: this.#core.checkpointAfter, secrets: this.#core.secrets, producerTime: this.#core.producerTime });
    view.#core = { ...this.#core, actor };
    return view;
  }

  /** Milliseconds since the epoch, from the ledger's clock. */
  now(): number {
    return this.#core.clock();
  }

  /**
   * Refuses a producer's own instant (`input.eventTimeOutOfRange`, naming `field`) more than the ledger's
   * `maxClockSkew` ahead of its clock or more than `maxEventAge` behind it; every `at` goes through it.
   *
   * @example
   * ledger.checkProducerTime(Date.parse(event.eventTime), 'eventTime');
   */
  checkProducerTime(ms: number, field: string): void {
    checkProducerTime(this.#core, ms, field);
  }

  /** The window of `checkProducerTime` (from `maxClockSkew` and `maxEventAge`), for a copy of this ledger to share. */
  get producerTime(): ProducerTimeWindow {
    return this.#core.producerTime;
  }

  /** The text as this ledger would store it: every secret it knows (the ledger URL's password, `*PASSWORD*`/`*TOKEN*`/… values) replaced by `[redacted]`. */
  redact(text: string): string {
    return redactSecrets(text, this.#core.secrets);
  }

  /** A new ULID (event and run ids). */
  newId(): string {
    return this.#core.newId();
  }

  /**
   * Defines a pipeline, or redefines it when the definition changed (`PipelineRedefined` with the diff).
   * Durations (`lease`, `freshness`) are `"1h"`-style texts, as on the CLI, or milliseconds.
   *
   * @example
   * await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', lease: '2h' });
   */
  async define(input: DefineOptions): Promise<DefineResult> {
    checkOptionKeys(input, DEFINE_KEYS, 'ledger.define');
    return definePipeline(this.#core, defineChanges(input));
  }

  /** Every defined pipeline and its current definition, by name. */
  async pipelines(): Promise<PipelineDefinition[]> {
    return listPipelines(this.#core);
  }

  /** The definition and timetable of a pipeline; `notFound.pipeline` when it was never defined. */
  async pipeline(name: string, asOf?: AsOf): Promise<{ definition: PipelineDefinition; timetable: Timetable; state: PipelineState; history: RunHistory; tasks: TaskRuns }> {
    return readPipeline(this.#core, name, asOf);
  }

  /** Starts a run of one date key, or refuses (`ledger.alreadyRunning`, `ledger.alreadySucceeded`, …). */
  async start(input: StartInput): Promise<StartResult> {
    checkOptionKeys(input, START_KEYS, 'ledger.start');
    return startRun(this.#core, input);
  }

  /**
   * Records the success of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op.
   * `log`: the path and sha256 of the run's log file, when one was kept (`succeed`, `fail` and `interrupt` alike).
   * `at`: when the run really ended, if not now (a producer's own clock, e.g. an OpenLineage `eventTime`): the
   * run's `finishedAt` and duration follow it, while the event's `recordedAt` stays the time it was recorded.
   * `outputs`: dataset names, or `{ namespace, name }` kept apart. `settleTasks` (succeed and fail): the
   * completion is the producer's verdict on a task-level run, so tasks with no finished state are settled
   * from these states (e.g. `{ load: 'upstream_failed' }`) and the rest recorded as not reported, instead of
   * the completion being refused while tasks are unfinished. `inputs`: the datasets the run read
   * (`{ namespace, name }`, as OpenLineage names them), for `runledger lineage`.
   */
  async succeed(input: SucceedInput): Promise<CompletionResult> {
    checkOptionKeys(input, SUCCEED_KEYS, 'ledger.succeed');
    return succeedRun(this.#core, input);
  }

  /**
   * Records the failure of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op.
   * With `retry`, a `RetryScheduled` goes in the same append: the date is `up_for_retry` until the next attempt,
   * `retry.attempt` of `retry.maxAttempts`, may start at the ledger's clock plus `retry.delayMs`.
   */
  async fail(input: FailInput): Promise<CompletionResult> {
    checkOptionKeys(input, FAIL_KEYS, 'ledger.fail');
    return failRun(this.#core, input);
  }

  /**
   * Records that the runner owning a running run was stopped before it
   * finished (`by`: `SIGINT`, `SIGTERM`, …). The key becomes `interrupted`:
   * pending, and run again by every reprocess mode. Fenced like `fail`: only the current run of its date may report.
   *
   * @example
   * await ledger.interrupt({ runId, by: 'SIGINT', message: 'stopped while loading' });
   */
  async interrupt(input: InterruptInput): Promise<CompletionResult> {
    checkOptionKeys(input, INTERRUPT_KEYS, 'ledger.interrupt');
    return interruptRun(this.#core, input);
  }

  /** Extends the lease of a running run: by `lease` (`"1h"` or milliseconds), default the pipeline's. */
  async heartbeat(input: HeartbeatInput): Promise<CompletionResult> {
    checkOptionKeys(input, HEARTBEAT_KEYS, 'ledger.heartbeat');
    return heartbeatRun(this.#core, input);
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
    checkOptionKeys(input, TASK_KEYS, 'ledger.task');
    return recordTask(this.#core, input);
  }

  /**
   * Sets dates to `success` (Airflow's "mark success": done, no command ran) or `skipped` (nothing to
   * process: done for complete-through and pending, never the watermark) without running anything, each as a
   * `RunMarked` with the actor and the required reason. A running date refuses the whole mark
   * (`ledger.alreadyRunning`, nothing written); a date already so marked is left alone. A clear undoes a mark.
   *
   * @example
   * await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-12-25'], skipped: true, reason: 'holiday: the shop was closed' });
   */
  async mark(input: MarkInput): Promise<MarkResult> {
    checkOptionKeys(input, MARK_KEYS, 'ledger.mark');
    return markKeys(this.#core, input);
  }

  /**
   * Pauses pipelines (`PipelinePaused`, with the actor and the required reason): nothing that runs a fleet (the
   * scheduler, `catchup --all`, `backfill --with-downstream`) starts their dates until they are unpaused; a direct
   * start, backfill or catchup of one still runs. All named pipelines or none; one already paused is left alone.
   *
   * @example
   * await ledger.pause({ pipelines: ['orders_raw'], reason: 'vendor outage until Monday' });
   */
  async pause(input: { pipelines: readonly string[]; reason: string }): Promise<ControlResult[]> {
    checkOptionKeys(input, ['pipelines', 'reason'], 'ledger.pause');
    return controlPipelines(this.#core, 'pause', input.pipelines, input.reason);
  }

  /** Unpauses pipelines (`PipelineUnpaused`): fleet runs start their due dates again. One not paused is left alone. */
  async unpause(input: { pipelines: readonly string[]; reason?: string }): Promise<ControlResult[]> {
    checkOptionKeys(input, ['pipelines', 'reason'], 'ledger.unpause');
    return controlPipelines(this.#core, 'unpause', input.pipelines, input.reason);
  }

  /**
   * Retires a pipeline (`PipelineRetired`, with the actor and the required reason): its history stays (log, verify,
   * export, `state` with `includeRetired`), but it leaves `status`, `check`, metrics and fleet runs, and its name
   * cannot be defined again until it is brought back. Refused (`ledger.hasDownstream`) while a pipeline that is not
   * retired names it as an upstream.
   *
   * @example
   * await ledger.retire({ pipeline: 'orders_v1', reason: 'replaced by orders_v2' });
   */
  async retire(input: { pipeline: string; reason: string }): Promise<ControlResult> {
    checkOptionKeys(input, ['pipeline', 'reason'], 'ledger.retire');
    return (await controlPipelines(this.#core, 'retire', [input.pipeline], input.reason))[0] as ControlResult;
  }

  /** Brings a retired pipeline back (`PipelineUnretired`) with the definition, history and pause it had. */
  async unretire(input: { pipeline: string; reason?: string }): Promise<ControlResult> {
    checkOptionKeys(input, ['pipeline', 'reason'], 'ledger.unretire');
    return (await controlPipelines(this.#core, 'unretire', [input.pipeline], input.reason))[0] as ControlResult;
  }

  /**
   * The pipelines paused or retired now (of `pipelines`, when given), by name, each with since when, by whom and why;
   * any other is neither.
   *
   * @example
   * const paused = (await ledger.controls(['orders_raw'])).get('orders_raw')?.paused ?? null;
   */
  async controls(pipelines?: readonly string[]): Promise<Map<string, PipelineControls>> {
    return listControls(this.#core, pipelines);
  }

  /** Makes keys pending again, fencing out their runs; never deletes history. */
  async clear(input: ClearInput): Promise<ClearResult> {
    checkOptionKeys(input, CLEAR_KEYS, 'ledger.clear');
    return clearKeys(this.#core, input);
  }

  /**
   * Per-date state from the latest run of each date, with the watermark (greatest date ever successful) and complete-through (every date up to it successful now).
   * With `limit`, one page of the range: `nextFrom` continues it.
   *
   * @example
   * const page = await ledger.state({ pipeline: 'etl_orders', limit: 1000 });
   * if (page.nextFrom) await ledger.state({ pipeline: 'etl_orders', from: page.nextFrom, limit: 1000 });
   */
  async state(input: StateInput): Promise<StateView> {
    checkOptionKeys(input, STATE_KEYS, 'ledger.state');
    return stateView(this.#core, input);
  }

  /** The watermark (greatest date ever successful; it never goes down) and complete-through (every date from the start up to it is successful now; it drops after a clear). */
  async watermark(input: { pipeline: string; asOf?: AsOf }): Promise<WatermarkView> {
    checkOptionKeys(input, ['pipeline', 'asOf'], 'ledger.watermark');
    return watermarkView(this.#core, input);
  }

  /** Slots due by `now` that are not done, with reasons; running ones apart. */
  async pending(input: RangeInput): Promise<PendingView> {
    checkOptionKeys(input, RANGE_KEYS, 'ledger.pending');
    return pendingView(this.#core, input);
  }

  /**
   * Every run (attempt) of a pipeline, oldest first; `limit` keeps the last n, `before` (a run id) pages back.
   *
   * @example
   * const older = await ledger.runs({ pipeline: 'etl_orders', limit: 50, before: page.runs[0]?.runId });
   */
  async runs(input: RunsInput): Promise<RunsView> {
    checkOptionKeys(input, RUNS_KEYS, 'ledger.runs');
    return runsView(this.#core, input);
  }

  /**
   * One pipeline's `status` row at `nowMs` (default: the ledger's clock), with the logical dates of its
   * watermark and complete-through. Read from the pipeline's summary row and the dates after its
   * complete-through, so it costs what is behind, not the pipeline's history.
   *
   * @example
   * const { status } = await ledger.pipelineStatus({ pipeline: 'etl_orders' }); // status.lag === '2d 1h'
   */
  async pipelineStatus(input: { pipeline: string; nowMs?: number }): Promise<PipelineStatusView> {
    return pipelineStatusView(this.#core, input.pipeline, input.nowMs ?? this.#core.clock());
  }

  /**
   * The `status` rows of the named pipelines (default: every defined one, by name) at `nowMs` (default:
   * the ledger's clock), in that order: what `pipelineStatus` gives each, read for all of them at once.
   *
   * @example
   * const rows = await ledger.pipelineStatuses(); // [{ pipeline: 'etl_orders', lag: '2d 1h', … }]
   */
  async pipelineStatuses(input: { pipelines?: readonly string[]; nowMs?: number } = {}): Promise<PipelineStatus[]> {
    checkOptionKeys(input, ['pipelines', 'nowMs'], 'ledger.pipelineStatuses');
    return pipelineStatusesView(this.#core, input.pipelines, input.nowMs ?? this.#core.clock());
  }

  /** The task grid of one run: every declared task with its latest state and try, and the outcome they imply. */
  async runTasks(input: TaskGridInput): Promise<TaskGridView> {
    checkOptionKeys(input, ['pipeline', 'runId', 'asOf'], 'ledger.runTasks');
    return runTasksView(this.#core, input);
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
    checkOptionKeys(input, LOG_KEYS, 'ledger.log');
    yield* logEventBatches(this.#core, input);
  }

  /**
   * A durable catch-up subscription: every event after the consumer's stored
   * position (or, for a new one, from `fromPosition` or from now on) that
   * passes the filter, in order, at least once, to `handler`; the position is
   * stored after the handler resolves. See `subscribe` in src/ledger/subscribe.ts.
   *
   * @example
   * const sub = await ledger.subscribe({ consumer: 'alerts', filter: { types: ['RunFailed'] } }, async (event) => page(event));
   * await sub.done; // rejects with consumer.handlerFailed when the handler keeps failing
   */
  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void): Promise<Subscription> {
    return subscribe(this.store, { clock: this.#core.clock, ...options }, handler);
  }

  /**
   * Drops the read models and folds them again from the events, in one transaction (`runledger rebuild`).
   * `notFound.readModels` on a store that keeps none.
   *
   * @example
   * const { events } = await ledger.rebuild({ progress: (done, total) => bar.update(done / total) });
   */
  async rebuild(input: { progress?: RebuildProgress } = {}): Promise<RebuildResult> {
    const models = this.store.readModels;
    if (models === undefined) throw new LedgerError('notFound.readModels', `this ${this.store.kind} ledger keeps no read models to rebuild; every query folds its events`);
    return models.rebuild(input.progress ?? this.#core.rebuildProgress);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  /** `await using ledger = await openLedger(…)` closes the ledger when the block ends, even on a throw. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
