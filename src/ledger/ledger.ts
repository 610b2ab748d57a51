import type { DatasetRef, RunLog, RunOutput } from '../../events/common.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { RunHistory } from '../../projections/run-history.js';
import type { TaskRuns } from '../../projections/task-runs.js';
import { defaultActor } from '../runtime.js';
import { knownSecrets, redactSecrets } from '../secrets.js';
import { LedgerError } from '../errors.js';
import type { EventStore } from '../store/event-store.js';
import { openStore } from '../store/open-store.js';
import type { RebuildProgress, RebuildResult } from '../store/read-models.js';
import { subscribe, type SubscribeOptions, type Subscription } from '../ops/subscribe.js';
import type { Timetable } from '../timetable/timetable.js';
import type { DefineChanges } from './build-definition.js';
import { CHECKPOINT_AFTER, createLedgerCore, type LedgerCore } from './ledger-core.js';
import { logEventBatches } from './ledger-log.js';
import { pendingView, pipelineStatusView, runsView, runTasksView, stateView, watermarkView, type PipelineStatusView, type RunsInput } from './ledger-queries.js';
import { clearKeys, definePipeline, failRun, heartbeatRun, interruptRun, markKeys, recordTask, startRun, succeedRun, type RetryRequest } from './ledger-writes.js';
import { listPipelines, readPipeline } from './load-pipeline.js';
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
};

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
export function ledgerSettings(options: LedgerOptions): { checkpointAfter: number; secrets: string[]; rebuildProgress?: RebuildProgress } {
  const secrets = [...new Set([...knownSecrets(options.db, {}), ...(options.secrets ?? [])])].sort((a, b) => b.length - a.length);
  return { checkpointAfter: options.checkpointAfter ?? CHECKPOINT_AFTER, secrets, ...(options.rebuildProgress === undefined ? {} : { rebuildProgress: options.rebuildProgress }) };
}

/**
 * The ledger's facade: one method per question or command, each handed to the module that answers it
 * (writes in ledger-writes.ts, loads in load-pipeline.ts, views in ledger-queries.ts, the event log in
 * ledger-log.ts) with the state they share (ledger-core.ts).
 */
export class Ledger {
  readonly store: EventStore;
  #core: LedgerCore;

  constructor(store: EventStore, clock: () => number, actor: string, options: { checkpointAfter?: number; secrets?: readonly string[]; rebuildProgress?: RebuildProgress } = {}) {
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
    const view = new Ledger(this.store, this.#core.clock, actor, { checkpointAfter: this.#core.checkpointAfter, secrets: this.#core.secrets });
    view.#core = { ...this.#core, actor };
    return view;
  }

  /** Milliseconds since the epoch, from the ledger's clock. */
  now(): number {
    return this.#core.clock();
  }

  /** The text as this ledger would store it: every secret it knows (the ledger URL's password, `*PASSWORD*`/`*TOKEN*`/… values) replaced by `[redacted]`. */
  redact(text: string): string {
    return redactSecrets(text, this.#core.secrets);
  }

  /** A new ULID (event and run ids). */
  newId(): string {
    return this.#core.newId();
  }

  /** Defines a pipeline, or redefines it when the definition changed (`PipelineRedefined` with the diff). */
  async define(input: DefineChanges & { reason?: string }): Promise<{ pipeline: string; outcome: 'defined' | 'redefined' | 'unchanged'; definition: PipelineDefinition; changes: Array<{ field: string; from: unknown; to: unknown }> }> {
    return definePipeline(this.#core, input);
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
  async succeed(input: { runId: string; metrics?: Record<string, unknown>; outputs?: RunOutput[]; log?: RunLog; at?: string; settleTasks?: Record<string, string>; inputs?: DatasetRef[] }): Promise<CompletionResult> {
    return succeedRun(this.#core, input);
  }

  /**
   * Records the failure of the current run of its key (a cleared or superseded run is refused); a repeat is a no-op.
   * With `retry`, a `RetryScheduled` goes in the same append: the date is `up_for_retry` until the next attempt,
   * `retry.attempt` of `retry.maxAttempts`, may start at the ledger's clock plus `retry.delayMs`.
   */
  async fail(input: { runId: string; error: string; code?: string | null; log?: RunLog; at?: string; settleTasks?: Record<string, string>; retry?: RetryRequest }): Promise<CompletionResult> {
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
  async interrupt(input: { runId: string; by: string; message?: string; log?: RunLog; at?: string }): Promise<CompletionResult> {
    return interruptRun(this.#core, input);
  }

  /** Extends the lease of a running run. */
  async heartbeat(input: { runId: string; leaseMs?: number; at?: string }): Promise<CompletionResult> {
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
    return markKeys(this.#core, input);
  }

  /** Makes keys pending again, fencing out their runs; never deletes history. */
  async clear(input: ClearInput): Promise<ClearResult> {
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
    return stateView(this.#core, input);
  }

  /** The watermark (greatest date ever successful; it never goes down) and complete-through (every date from the start up to it is successful now; it drops after a clear). */
  async watermark(input: { pipeline: string; asOf?: AsOf }): Promise<WatermarkView> {
    return watermarkView(this.#core, input);
  }

  /** Slots due by `now` that are not done, with reasons; running ones apart. */
  async pending(input: RangeInput): Promise<PendingView> {
    return pendingView(this.#core, input);
  }

  /**
   * Every run (attempt) of a pipeline, oldest first; `limit` keeps the last n, `before` (a run id) pages back.
   *
   * @example
   * const older = await ledger.runs({ pipeline: 'etl_orders', limit: 50, before: page.runs[0]?.runId });
   */
  async runs(input: RunsInput): Promise<RunsView> {
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

  /** The task grid of one run: every declared task with its latest state and try, and the outcome they imply. */
  async runTasks(input: TaskGridInput): Promise<TaskGridView> {
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
    yield* logEventBatches(this.#core, input);
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
