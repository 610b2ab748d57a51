import { setTimeout as sleepFor } from 'node:timers/promises';
import type { DateState } from '../../projections/date-state.js';
import { previousSlotBlocks } from '../../projections/depends-on-past.js';
import { selectSlot, type PlannedSlot, type Reprocess } from '../../projections/plan-runs.js';
import { LedgerError, isLedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StartInput } from '../ledger/ledger-types.js';
import { previousSlot } from '../ledger/slots.js';
import { resolveRetryPolicy, resolveTimeoutMs, retryDelayMs, type RunControlOptions } from './retry-policy.js';
import { runOnce } from './run-once.js';
import { DEFAULT_KILL_GRACE_MS } from './command-task.js';
import { formatDuration } from './format-summary.js';
import { STORE_NOTE, type RunProgress, type RunReport, type RunSummary, type RunTask, type SkipReason } from './run-types.js';
import { waitForPlace } from './wait-for-place.js';
import { oldRunProcesses } from './old-run-processes.js';
import { inZone } from '../format/zoned-instant.js';
import { enqueue, type PlaceOrder, type Waiter } from './place-order.js';
import type { PoolHolder, PoolPlaces, PoolRun } from './pool-places.js';
import { DEFAULT_PRIORITY } from '../ledger/build-definition.js';

export type ExecuteOptions = RunControlOptions & {
  pipeline: string;
  runType: RunSummary['runType'];
  /** The planned slots, in the order to start them. */
  slots: PlannedSlot[];
  /** The mode they were planned with; each slot is checked against it again right before its claim. */
  reprocess: Reprocess;
  task: RunTask;
  /**
   * How many runs at once. Default and ceiling: the pipeline's own `maxActiveRuns`,
   * which counts the live runs of every runner on the ledger (as Airflow's DAG-level setting).
   */
  maxActiveRuns?: number;
  /** How often to look again for a free place when the pipeline's limit is reached (default 250 ms). */
  placePollMs?: number;
  /** Keep starting slots after a failure (Airflow isolates runs); default: stop at the first failure. */
  continueOnFailure?: boolean;
  leaseMs?: number;
  heartbeatMs?: number;
  /** Abort (with the signal's name as reason, e.g. 'SIGTERM') to stop starting slots and interrupt running ones. */
  signal?: AbortSignal;
  /** Recorded as the reason of each start. */
  startReason?: string;
  onProgress?: (progress: RunProgress) => void;
  /** Milliseconds for durations; default `performance.now` (the ledger's clock may be fixed). */
  monotonic?: () => number;
  /**
   * Asked right before each slot is claimed: null lets it run, a text skips it with that note
   * (`upstream`: it waits for an upstream slot that did not succeed). May wait first (`--wait-upstream`,
   * or an upstream slot the same fleet run is still working on).
   */
  gate?: (slot: PlannedSlot, signal?: AbortSignal) => Promise<string | null>;
  /** A place shared by several runners of one process (`catchup --all --parallel N`), held from the claim to the outcome. */
  limiter?: Limiter;
  /**
   * The pools sized for this process (`--pool NAME=N`): a date of a pipeline in a sized pool waits for a place
   * in it before its claim (counted from the ledger's live runs of the pool), and holds it until its outcome.
   */
  pools?: PoolPlaces;
  /**
   * How the runner waits for a retry's time (default: a timer). A test with a fake ledger clock passes one that
   * moves that clock on, so a five-minute retry delay takes no time.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted: start no more slots, but let the running ones go on (a scheduler's drain); `signal` stops those. */
  stopStarting?: AbortSignal;
  /**
   * Do not wait for a retry's time: a date whose retry is not due yet is left `up_for_retry` and reported as
   * skipped (`waitingForRetry`), for a caller that comes back at that time (the scheduler's passes).
   */
  retryLater?: boolean;
  /** The command task's grace between SIGTERM and SIGKILL: a timed-out attempt is recorded once it is over (plus 5 s). */
  killGraceMs?: number;
};

/**
 * A counting semaphore: `acquire` resolves false when `signal` aborts first. When places are short, the
 * waiter of the highest `order` goes first (priority, then the oldest date), else the one that asked first.
 */
export type Limiter = { acquire(signal?: AbortSignal, order?: PlaceOrder): Promise<boolean>; release(): void };

/**
 * A limiter of `n` places. Places are handed out a moment after they are asked for or freed (once the
 * requests made together have all arrived), so a higher priority asked at the same time goes first.
 *
 * @example
 * const limiter = createLimiter(4); if (await limiter.acquire()) try { … } finally { limiter.release(); }
 */
export function createLimiter(n: number): Limiter {
  let free = n;
  let seq = 0;
  let pumping = false;
  const waiting: Waiter[] = [];
  const pump = () => {
    if (pumping) return;
    pumping = true;
    setImmediate(() => {
      pumping = false;
      while (free > 0 && waiting.length > 0) {
        free -= 1;
        (waiting.shift() as Waiter).grant(true);
      }
    });
  };
  return {
    acquire(signal, order) {
      if (signal?.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const onAbort = () => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          resolve(false);
        };
        const waiter: Waiter = {
          order,
          seq: seq++,
          grant: (ok) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(ok);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        enqueue(waiting, waiter);
        pump();
      });
    },
    release() {
      free += 1;
      pump();
    },
  };
}

/** A slot waiting for its retry: when it may start by the ledger's clock (`at`) or by elapsed time (`due`). */
type Deferred = { at: number; due: number; attempt: number; of: number; nextAt: string };

/**
 * Runs planned slots through a task, at most `maxActiveRuns` at once, in the
 * given order: claims each slot with `ledger.start` (so two runners never
 * run the same slot), heartbeats it while the task works, records success or
 * failure, and returns a summary. A slot another runner holds, or whose state
 * changed since planning so the mode no longer covers it, is skipped and said so.
 *
 * @example
 * const summary = await executeRuns(ledger, { pipeline: 'etl_orders', runType: 'backfill', slots: plan.slots,
 *   reprocess: 'none', task: functionTask(async (run) => ({ rows: 1 })) });
 */
export async function executeRuns(ledger: Ledger, options: ExecuteOptions): Promise<RunSummary> {
  const { definition, timetable } = await ledger.pipeline(options.pipeline);
  const limit = definition.maxActiveRuns;
  const policy = resolveRetryPolicy(definition, options);
  const timeoutMs = resolveTimeoutMs(definition, options);
  const dependsOnPast = definition.dependsOnPast === true;
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, signal ? { signal } : {}).catch(() => undefined));
  const requested = options.maxActiveRuns ?? limit;
  if (!Number.isSafeInteger(requested) || requested < 1) {
    throw new LedgerError('input.invalidMaxActiveRuns', `maxActiveRuns must be a whole number of 1 or more, not ${requested}`);
  }
  const maxActive = Math.min(requested, limit);
  if (requested > limit) {
    options.onProgress?.({
      kind: 'note',
      text: `${options.pipeline} allows at most ${limit} live ${limit === 1 ? 'run' : 'runs'} at once across every runner (its --max-active-runs); running up to ${limit}, not ${requested}. Redefine it with a larger --max-active-runs to allow more`,
    });
  }
  let toldWaiting = false;
  // Say once why the runner is idle: a killed runner's leases hold their places until they run out.
  const onWait = (live: DateState[]) => {
    if (toldWaiting) return;
    toldWaiting = true;
    options.onProgress?.({ kind: 'note', text: waitingForPlaceText(options.pipeline, limit, live, ledger.now()) });
  };
  const pool = definition.pool;
  const priority = definition.priority ?? DEFAULT_PRIORITY;
  let toldPool = false;
  // Say once that dates wait for a place in the pool, and who holds the places.
  const onPoolWait = (live: PoolRun[], size: number) => {
    if (toldPool) return;
    toldPool = true;
    const holders = live.map((r) => `${r.pipeline} ${r.date}`).join(', ');
    options.onProgress?.({ kind: 'note', text: `${options.pipeline} waits for a place in pool ${pool ?? ''} (${size} at once${holders ? `; running: ${holders}` : ''})` });
  };
  const place = { onWait, ...(options.signal ? { signal: options.signal } : {}), ...(options.placePollMs === undefined ? {} : { pollMs: options.placePollMs }) };
  // A claimed run starts its work only once it is among the pipeline's `limit` oldest live runs (two runners may claim at once).
  const task: RunTask = async (run, signal) => {
    if (!(await waitForPlace(ledger, options.pipeline, limit, { ...place, runId: run.runId, signal }))) {
      return { status: 'failed', error: 'stopped while waiting for a place under the pipeline\'s max active runs', code: 'interrupted' };
    }
    return options.task(run, signal);
  };
  const clock = options.monotonic ?? (() => performance.now());
  const began = clock();
  const signal = options.signal;
  const reports = new Map<number, RunReport>();
  const active = new Set<Promise<void>>();
  let stoppedAfterFailure = false;
  /** The store's message when an outcome could not be recorded: the dates left unstarted say that, not that a run failed. */
  let unrecordedWhy: string | undefined;
  let fatal: { error: unknown } | undefined;
  let retried = 0;
  /** Depends on past: the first slot that could not run, and why. */
  let blocked: RunSummary['waitingForPrevious'] = null;

  const report = (index: number, entry: RunReport) => {
    reports.set(index, entry);
    options.onProgress?.({ kind: 'finished', report: entry });
  };
  const skip = (index: number, slot: PlannedSlot, skipReason: SkipReason, note: string) =>
    report(index, { ...emptyReport(slot), skipReason, note });

  /** Runs one slot; resolves with when to try it again when its attempt failed and a retry is scheduled (or was, before it). */
  async function runSlot(index: number, slot: PlannedSlot, waited: boolean): Promise<Deferred | undefined> {
    const { state: before } = await ledger.pipeline(options.pipeline);
    const current = before.dates.get(slot.date);
    // A retry scheduled earlier (by a runner that was stopped while it waited) is not started before its time.
    if (!waited && current?.status === 'up_for_retry' && current.retry?.nextAt) {
      const at = Date.parse(current.retry.nextAt);
      if (at > ledger.now()) return { at, due: clock() + (at - ledger.now()), attempt: current.retry.attempt, of: current.retry.of, nextAt: current.retry.nextAt };
    }
    if (dependsOnPast) {
      const block = previousSlotBlocks(before, previousSlot(timetable, Date.parse(slot.logicalDate))?.date ?? null);
      if (block) {
        blocked ??= { date: slot.date, previous: block.date, status: block.status };
        skip(index, slot, 'waitingForPrevious', `not started: ${options.pipeline} depends on past and ${block.date} before it is ${block.status}; run or mark ${block.date} first`);
        return undefined;
      }
    }
    if (options.gate) {
      const why = await options.gate(slot, signal);
      if (why !== null) {
        skip(index, slot, 'upstream', why);
        return undefined;
      }
    }
    // A pool's place first (it may be held elsewhere for a while), then one of this process's places.
    const order: PlaceOrder = { priority, logicalDate: slot.logicalDate };
    let holder: PoolHolder | null = null;
    if (pool !== undefined && options.pools) {
      const stopStarting = options.stopStarting;
      const poolSignal = stopStarting ? (signal ? AbortSignal.any([signal, stopStarting]) : stopStarting) : signal;
      holder = await options.pools.acquire(pool, order, poolSignal, onPoolWait);
      if (holder === null) {
        skip(index, slot, 'interrupted', 'not started: the runner was interrupted');
        return undefined;
      }
    }
    try {
      if (options.limiter && !(await options.limiter.acquire(signal, order))) {
        skip(index, slot, 'interrupted', 'not started: the runner was interrupted');
        return undefined;
      }
      try {
        return await claimAndRun(index, slot, holder);
      } finally {
        options.limiter?.release();
      }
    } finally {
      holder?.release();
    }
  }

  async function claimAndRun(index: number, slot: PlannedSlot, holder: PoolHolder | null): Promise<Deferred | undefined> {
    // The pipeline's own limit counts every runner's live runs: wait for a place rather than fail.
    const stopStarting = options.stopStarting;
    const placeWait = stopStarting ? { ...place, signal: signal ? AbortSignal.any([signal, stopStarting]) : stopStarting } : place;
    if (!(await waitForPlace(ledger, options.pipeline, limit, placeWait)) || stopStarting?.aborted) {
      skip(index, slot, 'interrupted', 'not started: the runner was interrupted');
      return undefined;
    }
    // Ask the selection rule again: another runner may have taken or finished the slot since we planned.
    const { state } = await ledger.pipeline(options.pipeline);
    const date = state.dates.get(slot.date);
    const selection = selectSlot(date, options.reprocess, ledger.now());
    if (!selection.run) {
      if ('inFlight' in selection) skip(index, slot, 'inFlight', `in flight as run ${selection.inFlight.runId} (another runner?)`);
      else skip(index, slot, 'changed', `now ${selection.excluded.status} (run ${selection.excluded.runId}) since planned`);
      return undefined;
    }
    // A takeover on the host that started the run first makes sure nothing of that run still works here.
    if (selection.reason === 'stalled' && date !== undefined) {
      const alive = await oldRunProcesses(ledger, date.runId);
      if (alive !== null) {
        skip(index, slot, 'oldRunAlive', alive);
        return undefined;
      }
    }
    // Where the date stands in its retry policy: the attempt a scheduled retry waits for, else the first.
    const policyAttempt = date?.status === 'up_for_retry' && date.retry ? date.retry.attempt : 1;
    const maxAttempts = date?.status === 'up_for_retry' && date.retry ? date.retry.of : policy.maxAttempts;
    const retry = policyAttempt < maxAttempts ? { attempt: policyAttempt + 1, maxAttempts, delayMs: retryDelayMs(policy, policyAttempt) } : undefined;
    const retryField = maxAttempts > 1 ? { retry: { attempt: policyAttempt, of: maxAttempts } } : {};
    // The attempt count seen here is the claim's precondition: if another runner starts this date in the
    // meantime (even one that finishes at once), the start is refused instead of running the date twice.
    const start: StartInput = {
      pipeline: options.pipeline,
      date: slot.date,
      runType: options.runType,
      force: selection.reason === 'completed',
      expectAttempts: state.dates.get(slot.date)?.attempts ?? 0,
    };
    if (options.leaseMs !== undefined) start.lease = options.leaseMs;
    // The pool's size as this runner keeps it, recorded with the start: `status` tells a full pool from it.
    if (holder !== null && Number.isFinite(holder.size)) start.pool = { name: holder.pool, size: holder.size };
    // A takeover writes its own reason naming the stalled run; keep that one.
    if (options.startReason !== undefined && selection.reason !== 'stalled') start.reason = options.startReason;
    const t0 = clock();
    try {
      // A run that claimed a pool's last place together with another process's waits until it is among the pool's oldest.
      const slotTask: RunTask =
        holder === null
          ? task
          : async (run, runSignal) => {
              if (!(await holder.settle(run.runId, runSignal))) {
                return { status: 'failed', error: `stopped while waiting for a place in pool ${holder.pool}`, code: 'interrupted' };
              }
              return task(run, runSignal);
            };
      const result = await runOnce(ledger, slotTask, {
        start,
        reason: selection.reason,
        ...(signal ? { signal } : {}),
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        // A command is killed within its grace; a function that ignores its signal is left behind 5 s after that.
        ...(timeoutMs === null ? {} : { timeoutMs, abandonAfterTimeoutMs: (options.killGraceMs ?? DEFAULT_KILL_GRACE_MS) + 5_000 }),
        ...(retry ? { retry } : {}),
        onStarted: (run) => options.onProgress?.({ kind: 'started', run }),
      });
      const { run, outcome } = result;
      if (result.retryScheduled && outcome.status === 'failed') {
        // Not the date's outcome yet: it waits for its next attempt without holding a place.
        retried += 1;
        const scheduled = (await ledger.pipeline(options.pipeline)).state.dates.get(slot.date)?.retry;
        const nextAt = scheduled?.nextAt ?? new Date(ledger.now() + result.retryScheduled.delayMs).toISOString();
        const { attempt, maxAttempts: of } = result.retryScheduled;
        options.onProgress?.({ kind: 'retry', date: slot.date, runId: run.runId, error: outcome.error, attempt, of, nextAt });
        return { at: Date.parse(nextAt), due: clock() + result.retryScheduled.delayMs, attempt, of, nextAt };
      }
      const base = { ...emptyReport(slot), reason: selection.reason, runId: run.runId, attempt: run.attempt, durationMs: Math.round(clock() - t0), ...retryField };
      if (result.unrecorded !== undefined) {
        const why = result.unrecorded instanceof Error ? result.unrecorded.message : String(result.unrecorded);
        unrecordedWhy ??= why;
        report(index, {
          ...base,
          status: 'unrecorded',
          exitCode: outcome.exitCode ?? null,
          error: `the run ${outcome.status === 'success' ? 'succeeded' : 'failed'} but its outcome could not be recorded (${why}); the date stays running until its lease runs out, then rerun it`,
          code: 'unrecorded',
        });
      } else if (result.refusal) {
        // Fenced out (cleared or taken over while it worked): nothing landed, so it counts as a failure here.
        report(index, { ...base, status: 'failed', exitCode: outcome.exitCode ?? null, error: result.refusal.message, code: 'fenced' });
      } else if (result.interrupted && outcome.status === 'failed') {
        report(index, { ...base, status: 'interrupted', exitCode: outcome.exitCode ?? null, signal: outcome.signal ?? null, error: outcome.error, code: outcome.code });
      } else if (outcome.status === 'success') {
        report(index, { ...base, status: 'success', exitCode: outcome.exitCode ?? null });
      } else {
        report(index, { ...base, status: 'failed', exitCode: outcome.exitCode ?? null, signal: outcome.signal ?? null, error: outcome.error, code: outcome.code });
      }
      // An outcome the ledger could not record stops the runner too: the store is failing, later runs would not record either.
      const status = reports.get(index)?.status;
      if ((status === 'failed' || status === 'unrecorded') && !options.continueOnFailure) stoppedAfterFailure = true;
    } catch (error) {
      if (isLedgerError(error) && error.code === 'ledger.alreadyRunning') skip(index, slot, 'inFlight', error.message);
      else if (isLedgerError(error) && (error.code === 'ledger.alreadySucceeded' || error.code === 'ledger.changed')) skip(index, slot, 'changed', error.message);
      else if (isLedgerError(error) && error.code === 'ledger.waitingForPrevious') {
        // The slot before it changed since it was checked (another runner, a clear): the start's own rule said no.
        blocked ??= { date: slot.date, previous: '', status: '' };
        skip(index, slot, 'waitingForPrevious', `not started: ${error.message}`);
      } else throw error;
      return undefined;
    }
    return undefined;
  }

  const queue = options.slots.map((slot, index) => ({ slot, index }));
  /** Slots whose attempt failed and whose retry waits for its time, soonest first. */
  const delayed: Array<{ slot: PlannedSlot; index: number; wait: Deferred }> = [];
  const isDue = (wait: Deferred) => ledger.now() >= wait.at || clock() >= wait.due;
  const start = (next: { slot: PlannedSlot; index: number }, waited: boolean) => {
    const running: Promise<void> = runSlot(next.index, next.slot, waited)
      .then((wait) => {
        if (!wait) return;
        if (options.retryLater) skip(next.index, next.slot, 'waitingForRetry', `attempt ${wait.attempt} of ${wait.of} is due at ${inZone(wait.nextAt, definition.timezone)}; left for then`);
        else delayed.push({ ...next, wait });
      })
      .catch((error: unknown) => {
        fatal ??= { error };
        if (isStoreError(error) && !reports.has(next.index)) skip(next.index, next.slot, 'stopped', `${STORE_NOTE} (${messageOf(error)})`);
      })
      .finally(() => active.delete(running));
    active.add(running);
  };
  while ((queue.length > 0 || delayed.length > 0 || active.size > 0) && !stoppedAfterFailure && !signal?.aborted && !fatal && !blocked) {
    if (active.size >= maxActive) {
      await Promise.race(active);
      continue;
    }
    delayed.sort((a, b) => a.wait.at - b.wait.at);
    const retryNow = delayed[0] && isDue(delayed[0].wait) ? delayed.shift() : undefined;
    if (retryNow) {
      start(retryNow, true);
      continue;
    }
    // Depends on past: one date at a time, in order, each only once the one before it is through.
    const next = dependsOnPast && (active.size > 0 || delayed.length > 0) ? undefined : queue.shift();
    if (next) {
      start(next, false);
      continue;
    }
    // Nothing can start now: wait for a run to end or for the soonest retry's time, whichever comes first.
    const soonest = delayed[0]?.wait;
    const wakeups: Array<Promise<unknown>> = [...active];
    const cancel = new AbortController();
    if (soonest) {
      const ms = Math.max(0, Math.ceil(Math.min(soonest.at - ledger.now(), soonest.due - clock())));
      wakeups.push(sleep(ms, signal ? AbortSignal.any([signal, cancel.signal]) : cancel.signal));
    }
    if (wakeups.length === 0) break;
    await Promise.race(wakeups);
    cancel.abort();
  }
  await Promise.all(active);
  // A retry still waiting when the runner stopped: its schedule is in the ledger, and the same command resumes the wait.
  for (const { slot, index, wait } of delayed) {
    skip(index, slot, 'waitingForRetry', `attempt ${wait.attempt} of ${wait.of} is due at ${inZone(wait.nextAt, definition.timezone)}; the runner stopped before it, so run the same command again to resume the wait`);
  }
  // A store error outside a run's own recording (reading the state, claiming a slot) stops the runner, but
  // the runs in flight have finished and recorded (or retried), so the summary is still owed: only errors
  // that are not the store's (bad input, a bug) are thrown.
  const storeError = fatal && isStoreError(fatal.error) ? messageOf(fatal.error) : undefined;
  if (fatal && storeError === undefined) throw fatal.error;
  for (const { slot, index } of queue) {
    if (signal?.aborted) skip(index, slot, 'interrupted', 'not started: the runner was interrupted');
    else if (blocked) skip(index, slot, 'waitingForPrevious', `not started: depends on past, and ${blocked.date} before it could not run`);
    else if (storeError !== undefined) skip(index, slot, 'stopped', `${STORE_NOTE} (${storeError})`);
    else if (unrecordedWhy !== undefined) skip(index, slot, 'stopped', `${STORE_NOTE} (${unrecordedWhy})`);
    else skip(index, slot, 'stopped', 'not started: an earlier run failed (use --continue-on-failure to carry on)');
  }

  const runs = [...reports.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
  return {
    pipeline: options.pipeline,
    runType: options.runType,
    runs,
    succeeded: runs.filter((r) => r.status === 'success').length,
    failed: runs.filter((r) => r.status === 'failed').length,
    unrecorded: runs.filter((r) => r.status === 'unrecorded').length,
    skipped: runs.filter((r) => r.status === 'skipped').length,
    interruptedRuns: runs.filter((r) => r.status === 'interrupted').length,
    interrupted: signal?.aborted ? (typeof signal.reason === 'string' ? signal.reason : 'aborted') : null,
    stoppedAfterFailure: stoppedAfterFailure && (queue.length > 0 || delayed.length > 0),
    durationMs: Math.round(clock() - began),
    ...(storeError === undefined ? {} : { storeError }),
    retried,
    waitingForPrevious: blocked,
  };
}

/** An error of the store (busy, timed out, disk full, connection lost, an unmapped driver error), not of the input or the rules. */
function isStoreError(error: unknown): boolean {
  return !isLedgerError(error) || error.code.startsWith('store.');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptyReport(slot: PlannedSlot): RunReport {
  return {
    date: slot.date,
    runId: null,
    attempt: null,
    status: 'skipped',
    exitCode: null,
    durationMs: 0,
    reason: slot.reason,
    signal: null,
    error: null,
    code: null,
    skipReason: null,
    note: null,
  };
}

/**
 * Why a runner is idle, and how to end it: a `start` nobody finished holds its place until its lease runs out
 * (an hour by default), so the note names each live run with its age and the commands that end it now.
 */
export function waitingForPlaceText(pipeline: string, limit: number, live: DateState[], nowMs: number): string {
  const runs = live.map((d) => `${d.date} (run ${d.runId}, started ${formatDuration(Math.max(0, nowMs - Date.parse(d.startedAt)))} ago, lease until ${d.leaseExpiresAt})`).join(', ');
  const first = live[0];
  const end = first
    ? `; if a run was forgotten, end it: \`runledger succeed ${first.runId}\`, \`runledger fail ${first.runId} --error <message>\`, or \`runledger clear ${pipeline} ${first.date}\``
    : '';
  return `${pipeline} has ${live.length} live ${live.length === 1 ? 'run' : 'runs'} and allows ${limit} at once (its --max-active-runs): ${runs}; waiting for a free place${end}`;
}
