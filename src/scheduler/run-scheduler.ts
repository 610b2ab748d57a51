import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { Ledger } from '../ledger/ledger.js';
import { watchAppends } from '../ledger/watch-appends.js';
import { createLimiter, type Limiter } from '../runner/execute-runs.js';
import { runFleet, type FleetSummary } from '../runner/run-fleet.js';
import { poolPlaces } from '../runner/pool-places.js';
import type { RunControlOptions } from '../runner/retry-policy.js';
import type { RunReport, RunTask } from '../runner/run-types.js';
import { nextWake, type NextWake, type WakeReason } from './next-wake.js';
import { recordHealth, type HealthRecorder } from './scheduler-health.js';

/** One line of the scheduler's output: a run started, ended or will be retried, a date left alone, a pass, a sleep. */
export type SchedulerEvent =
  | { event: 'started'; at: string; pipeline: string; date: string; runId: string; attempt: number }
  | { event: 'ended'; at: string; pipeline: string; date: string; runId: string | null; attempt: number | null; status: string; exitCode: number | null; durationMs: number; error: string | null }
  | { event: 'retry'; at: string; pipeline: string; date: string; runId: string; attempt: number; of: number; nextAt: string; error: string }
  | { event: 'skipped'; at: string; pipeline: string; date: string; reason: string; note: string }
  | { event: 'note'; at: string; pipeline: string; text: string }
  | { event: 'pass'; at: string; started: number; succeeded: number; failed: number; skipped: number; withoutCommand: string[] }
  | { event: 'sleep'; at: string; until: string | null; pipeline: string | null; date: string | null; why: WakeReason | null };

export type SchedulerOptions = {
  /** Only these pipelines (default: every pipeline defined with a command). */
  pipelines?: readonly string[];
  /** The task of a pipeline's runs, or null when it has no command (its dates are left alone). */
  taskFor: (definition: PipelineDefinition) => RunTask | null;
  /** Runs at once across every pipeline, each also within its own max-active-runs (default 4). */
  parallel?: number;
  /** Pool sizes (`--pool NAME=N`): at most N runs of the pool's pipelines at once, counted from the ledger. */
  pools?: ReadonlyMap<string, number>;
  /** One pass (everything due now), then return. */
  once?: boolean;
  /** Aborted: start nothing new; the runs in flight go on (the caller aborts `interrupt` after its drain). */
  drain?: AbortSignal;
  /** Aborted: the runs in flight are stopped and recorded as interrupted (pending; the next start resumes them). */
  interrupt?: AbortSignal;
  onEvent: (event: SchedulerEvent) => void;
  leaseMs?: number;
  killGraceMs?: number;
  control?: RunControlOptions;
  /** How often the ledger's head is looked at for other processes' changes where the store cannot notify (default 250 ms). */
  watchIntervalMs?: number;
  /** After a change by another process wakes it, the least time between two passes (default 1 s): a burst of appends makes one pass. */
  minPassGapMs?: number;
  /** How often the scheduler's health row is written while nothing else changes it (default 10 s). */
  healthBeatMs?: number;
};

/** What the scheduler did in all: its passes' totals. */
export type SchedulerSummary = { passes: number; started: number; succeeded: number; failed: number; skipped: number };

/** How soon a stalled date is looked at again when its old run still had a process on this host. */
const OLD_RUN_RECHECK_MS = 1000;

/** Skips that are not news: another pass or runner has the date, a retry waits for its time, or the scheduler is draining. */
const QUIET_SKIPS = new Set(['inFlight', 'changed', 'waitingForRetry', 'interrupted']);

/**
 * Runs every pipeline's due dates on its timetable, as `catchup --all` plans them (catchup on: every missed date
 * oldest first; off: the latest), in dependency order, with each pipeline's retries, timeout, depends-on-past and
 * max-active-runs. Between passes it sleeps until the next slot falls due or the next retry's time, and wakes
 * early when another process changes the ledger. A pass takes over what a dead runner left (stalled runs,
 * retries whose time came, interrupted dates). Passes may overlap (a long run does not hold the others back);
 * they share `parallel` places, and the ledger's fenced starts make each date run once.
 *
 * @example
 * await runScheduler(ledger, { taskFor, once: true, onEvent: (e) => console.log(e) });
 */
export async function runScheduler(ledger: Ledger, options: SchedulerOptions): Promise<SchedulerSummary> {
  const parallel = options.parallel ?? 4;
  const drain = options.drain ?? new AbortController().signal;
  const health = await recordHealth(ledger, { parallel, once: options.once === true, pipelines: options.pipelines && options.pipelines.length > 0 ? [...options.pipelines] : null }, options.healthBeatMs);
  try {
    return await schedule(ledger, { ...options, onEvent: healthOf(health, options.onEvent) }, parallel, drain, health);
  } finally {
    await health.close();
  }
}

/** The scheduler's events, also kept in its health row: the runs in flight, the last pass, the next wake. */
function healthOf(health: HealthRecorder, onEvent: (event: SchedulerEvent) => void): (event: SchedulerEvent) => void {
  return (event) => {
    if (event.event === 'started') {
      const run = { pipeline: event.pipeline, date: event.date, runId: event.runId, attempt: event.attempt, startedAt: event.at };
      health.update((row) => ({ ...row, inFlight: [...row.inFlight, run] }));
    } else if ((event.event === 'ended' && event.runId !== null) || event.event === 'retry') {
      health.update((row) => ({ ...row, inFlight: row.inFlight.filter((r) => r.runId !== event.runId) }));
    } else if (event.event === 'sleep') {
      const nextWake = event.until !== null && event.pipeline !== null && event.date !== null && event.why !== null ? { at: event.until, pipeline: event.pipeline, date: event.date, why: event.why } : null;
      health.update((row) => ({ ...row, nextWake }));
    }
    onEvent(event);
  };
}

async function schedule(ledger: Ledger, options: SchedulerOptions, parallel: number, drain: AbortSignal, health: HealthRecorder): Promise<SchedulerSummary> {
  drain.addEventListener('abort', () => health.update((row) => ({ ...row, state: 'draining' })), { once: true });
  const limiter = drainable(createLimiter(parallel), drain);
  // One set of pool places for every pass: overlapping passes wait in one queue, by priority.
  const pools = poolPlaces(ledger, options.pools ?? new Map());
  const total: SchedulerSummary = { passes: 0, started: 0, succeeded: 0, failed: 0, skipped: 0 };
  const iso = () => new Date(ledger.now()).toISOString();
  const passes = new Set<Promise<void>>();

  /** The dates a pass of this process holds (queued, waiting for a place or running): a later pass leaves them to it. */
  const inHand = new Map<string, number>();
  const keyOf = (pipeline: string, date: string) => `${pipeline}\u0000${date}`;
  const release = (key: string, passNo: number) => {
    if (inHand.get(key) === passNo) inHand.delete(key);
  };
  /** One pass over every pipeline the scheduler runs, or (`scope`) over those only. */
  const pass = async (scope?: readonly string[]): Promise<void> => {
    const passNo = total.passes + 1;
    const held: string[] = [];
    try {
      await onePass(passNo, held, scope);
    } finally {
      for (const key of held) release(key, passNo);
    }
  };
  const onePass = async (passNo: number, held: string[], scope: readonly string[] | undefined): Promise<void> => {
    total.passes += 1;
    health.update((row) => ({ ...row, passes: row.passes + 1, lastPassAt: iso() }));
    let started = 0;
    const pipelines = scope ?? options.pipelines;
    const summary: FleetSummary = await runFleet(ledger, { kind: 'catchup', ...(pipelines ? { pipelines } : {}) }, {
      taskFor: options.taskFor,
      parallel,
      limiter,
      pools,
      runType: 'scheduled',
      startReason: 'scheduler',
      retryLater: true,
      stopStarting: drain,
      takeSlots: (pipeline, slots) => {
        const mine = slots.filter((slot) => !inHand.has(keyOf(pipeline, slot.date)));
        for (const slot of mine) {
          const key = keyOf(pipeline, slot.date);
          inHand.set(key, passNo);
          held.push(key);
        }
        return mine;
      },
      ...(options.interrupt ? { signal: options.interrupt } : {}),
      ...(options.leaseMs === undefined ? {} : { lease: options.leaseMs }),
      ...(options.killGraceMs === undefined ? {} : { killGrace: options.killGraceMs }),
      ...(options.control ? { control: options.control } : {}),
      onProgress: (pipeline, progress) => {
        if (progress.kind === 'started') {
          started += 1;
          options.onEvent({ event: 'started', at: iso(), pipeline, date: progress.run.date, runId: progress.run.runId, attempt: progress.run.attempt });
        } else if (progress.kind === 'retry') {
          options.onEvent({ event: 'retry', at: iso(), pipeline, date: progress.date, runId: progress.runId, attempt: progress.attempt, of: progress.of, nextAt: progress.nextAt, error: progress.error });
        } else if (progress.kind === 'finished') {
          release(keyOf(pipeline, progress.report.date), passNo);
          report(pipeline, progress.report);
        } else if (progress.kind === 'note') {
          options.onEvent({ event: 'note', at: iso(), pipeline, text: progress.text });
        }
      },
    });
    total.started += started;
    total.succeeded += summary.succeeded;
    total.failed += summary.failed;
    total.skipped += summary.skipped;
    if (options.once || started > 0) {
      options.onEvent({ event: 'pass', at: iso(), started, succeeded: summary.succeeded, failed: summary.failed, skipped: summary.skipped, withoutCommand: summary.withoutCommand });
    }
  };

  /** Stalled dates whose old run still has a process on this host, said once each: looked at again in a second. */
  const toldAlive = new Set<string>();
  let recheckAt: number | null = null;
  let recheck: (() => void) | undefined;
  const report = (pipeline: string, r: RunReport) => {
    if (r.skipReason === 'oldRunAlive') {
      recheckAt = Date.now() + OLD_RUN_RECHECK_MS;
      recheck?.();
      if (!toldAlive.has(r.note ?? '')) options.onEvent({ event: 'skipped', at: iso(), pipeline, date: r.date, reason: r.skipReason, note: r.note ?? '' });
      toldAlive.add(r.note ?? '');
    } else if (r.status !== 'skipped') {
      options.onEvent({ event: 'ended', at: iso(), pipeline, date: r.date, runId: r.runId, attempt: r.attempt, status: r.status, exitCode: r.exitCode, durationMs: r.durationMs, error: r.error });
    } else if (!QUIET_SKIPS.has(r.skipReason ?? '') && (options.once || r.skipReason !== 'upstream')) {
      options.onEvent({ event: 'skipped', at: iso(), pipeline, date: r.date, reason: r.skipReason ?? 'skipped', note: r.note ?? '' });
    }
  };

  if (options.once) {
    await pass();
    return total;
  }

  // Woken by another process's append (a clear, a mark, a define, an upstream's success), or by the timer.
  let poke: (() => void) | undefined;
  let changedAt = 0;
  const stopWatching = await watchAppends(
    ledger.store,
    () => {
      changedAt = Date.now();
      poke?.();
    },
    { intervalMs: options.watchIntervalMs ?? 250 },
  );
  const minGap = options.minPassGapMs ?? 1000;
  let lastPass = 0;
  /**
   * A wake by an append alone (no slot fell due, no retry's or lease's time came) passes over only the pipelines
   * with events since the last pass and those downstream of them: nothing else can have changed. During a burst the
   * scheduler's own starts and ends wake it about once a second, and a pass over every pipeline each time cost more
   * than the runs. Every other wake passes over every pipeline.
   */
  let scope: string[] | undefined;
  /** The position up to which the ledger's events were looked at for a pass. */
  let seenPosition = (await ledger.store.head()).position;
  /** The next wake over every pipeline: after a pass over some, the sooner of it and theirs. */
  let wholeWake: NextWake = null;
  /** Set when a pass failed: the next wake is a pass over every pipeline, whatever woke it. */
  let passFailed = false;
  try {
    while (!drain.aborted) {
      lastPass = Date.now();
      // The next wake is planned from the instant this pass began, not from after it: a slot that fell due while the
      // pass went over the pipelines (after it had planned that one) is then a wake already due, and a full pass follows.
      const planNow = ledger.now();
      if (scope === undefined || scope.length > 0) {
        const running: Promise<void> = pass(scope)
          .catch((error: unknown) => {
            // A pass that failed (a store error) may have left anything undone: the next wake passes over every pipeline.
            passFailed = true;
            options.onEvent({ event: 'skipped', at: iso(), pipeline: '-', date: '-', reason: 'error', note: error instanceof Error ? error.message : String(error) });
          })
          .finally(() => passes.delete(running));
        passes.add(running);
      }
      const definitions = await withCommand(ledger, options);
      const wake: NextWake = scope === undefined ? await nextWake(ledger, definitions, planNow) : sooner(wholeWake, await nextWake(ledger, definitionsIn(definitions, scope), planNow));
      wholeWake = wake;
      options.onEvent({ event: 'sleep', at: iso(), until: wake ? new Date(wake.atMs).toISOString() : null, pipeline: wake?.pipeline ?? null, date: wake?.date ?? null, why: wake?.why ?? null });
      const seenChange = changedAt;
      const woken = await new Promise<'append' | 'other'>((resolve) => {
        let finished = false;
        const done = (why: 'append' | 'other') => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          clearTimeout(again);
          drain.removeEventListener('abort', other);
          poke = undefined;
          recheck = undefined;
          resolve(why);
        };
        const other = () => done('other');
        // The timetable's instant by the ledger's clock; timers hold at most ~24 days, so a far wake is re-planned then.
        const planned = wake === null ? 2_000_000_000 : Math.min(Math.max(0, wake.atMs - ledger.now()), 2_000_000_000);
        const ms = recheckAt === null ? planned : Math.min(planned, Math.max(0, recheckAt - Date.now()));
        recheckAt = null;
        const timer = setTimeout(other, ms);
        let again: NodeJS.Timeout | undefined;
        // A pass still going may find an old run alive after this sleep began: look again in a second then.
        recheck = () => {
          recheckAt = null;
          again ??= setTimeout(other, OLD_RUN_RECHECK_MS);
        };
        drain.addEventListener('abort', other, { once: true });
        // A drain that came while this pass planned its wake (a SIGTERM during nextWake, or an onEvent that drains on
        // 'sleep') fired before the listener was there: without this the scheduler slept until its wake, or for ~23
        // days with nothing due, and never stopped.
        if (drain.aborted) other();
        poke = () => {
          // Our own starts and ends move the head too: wait for a quiet gap, so a burst makes one pass.
          const wait = Math.max(0, lastPass + minGap - Date.now());
          clearTimeout(timer);
          poke = undefined;
          setTimeout(() => done('append'), wait);
        };
        if (changedAt !== seenChange) poke();
      });
      // Woken by appends before the wake's instant (which may have come while waiting for the quiet gap): the changes.
      if (woken === 'append' && !passFailed && recheckAt === null && (wake === null || ledger.now() < wake.atMs)) {
        const changed = await pipelinesChangedSince(ledger, seenPosition);
        seenPosition = changed.position;
        scope = withDownstream(await withCommand(ledger, options), changed.pipelines);
      } else {
        seenPosition = (await ledger.store.head()).position;
        scope = undefined;
        passFailed = false;
      }
    }
  } finally {
    await stopWatching();
    await Promise.all(passes);
  }
  return total;
}

/** The pipelines of events after `position`, and the position of the last of them. */
async function pipelinesChangedSince(ledger: Ledger, position: number): Promise<{ pipelines: Set<string>; position: number }> {
  const pipelines = new Set<string>();
  let last = position;
  for await (const batch of ledger.store.read({ fromPosition: position + 1 })) {
    for (const event of batch) {
      last = Math.max(last, event.position);
      const pipeline = (event.data as { pipeline?: unknown }).pipeline;
      if (typeof pipeline === 'string') pipelines.add(pipeline);
    }
  }
  return { pipelines, position: last };
}

/** Of the scheduler's pipelines, those changed and those downstream of one changed (an upstream's success lets them run), in name order. */
function withDownstream(definitions: readonly PipelineDefinition[], changed: ReadonlySet<string>): string[] {
  const downstream = new Map<string, string[]>();
  for (const d of definitions) for (const up of d.upstreams ?? []) downstream.set(up.pipeline, [...(downstream.get(up.pipeline) ?? []), d.pipeline]);
  const out = new Set<string>();
  const visit = (name: string) => {
    if (out.has(name)) return;
    out.add(name);
    for (const next of downstream.get(name) ?? []) visit(next);
  };
  for (const name of changed) visit(name);
  const runs = new Set(definitions.map((d) => d.pipeline));
  return [...out].filter((name) => runs.has(name)).sort();
}

function definitionsIn(definitions: readonly PipelineDefinition[], names: readonly string[]): PipelineDefinition[] {
  const wanted = new Set(names);
  return definitions.filter((d) => wanted.has(d.pipeline));
}

/** The sooner of two wakes (one already past wakes at once, for a pass over every pipeline). */
function sooner(kept: NextWake, fresh: NextWake): NextWake {
  if (kept === null) return fresh;
  return fresh === null || kept.atMs <= fresh.atMs ? kept : fresh;
}

/** The pipelines the scheduler runs: those named (each must exist), else every one with a command. */
async function withCommand(ledger: Ledger, options: SchedulerOptions): Promise<PipelineDefinition[]> {
  // Paused and retired pipelines give it no reason to wake (an unpause is an append: the scheduler looks again then).
  const controls = await ledger.controls();
  const all = (await ledger.pipelines()).filter((d) => !controls.get(d.pipeline)?.paused && !controls.get(d.pipeline)?.retired);
  const named = options.pipelines && options.pipelines.length > 0 ? new Set(options.pipelines) : null;
  return all.filter((d) => (named === null || named.has(d.pipeline)) && options.taskFor(d) !== null);
}

/** A limiter that hands out no place once `drain` aborts, and turns away those waiting for one. */
function drainable(inner: Limiter, drain: AbortSignal): Limiter {
  return {
    acquire: (signal, order) => inner.acquire(signal ? AbortSignal.any([signal, drain]) : drain, order),
    release: () => inner.release(),
  };
}
