import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { dependencyOrder, withDownstreams, type DependencyGraph } from '../../projections/dependency-graph.js';
import { planBackfill, type Reprocess } from '../../projections/plan-runs.js';
import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { Slot } from '../../projections/slot.js';
import type { PlannedSlot } from '../../projections/plan-runs.js';
import { dependentSlots } from '../../projections/upstream-slots.js';
import { LedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { parseRangeEnd, parseRangeStart } from '../timetable/parse-range-end.js';
import { createLimiter, executeRuns, type Limiter } from './execute-runs.js';
import { boundedSlots } from '../ledger/slots.js';
import { timetableOfDefinition } from '../ledger/load-pipeline.js';
import { planJob, type PlannedJob } from './plan-job.js';
import type { RunControlOptions } from './retry-policy.js';
import { durationOption, type Duration } from '../ledger/library-options.js';
import type { RunProgress, RunSummary, RunTask } from './run-types.js';
import { upstreamGate } from './upstream-gate.js';
import type { PoolPlaces } from './pool-places.js';

/** What a fleet run covers: every pipeline's catchup, or one pipeline's range and every date downstream of it. */
export type FleetRequest =
  | { kind: 'catchup'; reprocess?: Reprocess; /** Only these pipelines (default: every one). */ pipelines?: readonly string[] }
  | { kind: 'backfill'; pipeline: string; from: string; to: string; reprocess?: Reprocess };

export type FleetOptions = {
  /** The task of a pipeline's runs, or null when it has none (its dates are left alone, and said so). */
  taskFor: (definition: PipelineDefinition) => RunTask | null;
  /** Runs at once across every pipeline (`--parallel`); each pipeline also keeps to its own `--max-active-runs`. Default 4. */
  parallel?: number;
  /** Wait up to this long for upstream slots outside this run that are not done (`--wait-upstream`): `"1h"` or milliseconds. */
  waitUpstream?: Duration;
  /** How long each run may go without a heartbeat (`--lease`): `"1h"` or milliseconds; default each pipeline's. */
  lease?: Duration;
  /** Retries and timeout over each pipeline's own (`--retries … --timeout`). */
  control?: RunControlOptions;
  /** How often a running run heartbeats: `"10m"` or milliseconds; default a third of its lease. */
  heartbeat?: Duration;
  /** How often to look again for a free place when a pipeline's max-active-runs is reached: `"250ms"` (the default) or milliseconds. */
  placePoll?: Duration;
  /** The command task's grace between SIGTERM and SIGKILL (`--kill-grace`): `"10s"` (the default) or milliseconds. */
  killGrace?: Duration;
  /** @deprecated Use `waitUpstream`; works until the next minor version. */
  waitUpstreamMs?: number;
  /** @deprecated Use `lease`; works until the next minor version. */
  leaseMs?: number;
  /** @deprecated Use `heartbeat`; works until the next minor version. */
  heartbeatMs?: number;
  /** @deprecated Use `placePoll`; works until the next minor version. */
  placePollMs?: number;
  /** @deprecated Use `killGrace`; works until the next minor version. */
  killGraceMs?: number;
  /** Record the runs as this type instead of the plan's (the scheduler records `scheduled` runs). */
  runType?: 'scheduled';
  /** Recorded as the reason of each start instead of the fleet's own. */
  startReason?: string;
  /** Aborted: start no more dates; the running ones go on (a scheduler's drain). */
  stopStarting?: AbortSignal;
  /** The places to share with other fleet runs of this process (the scheduler's overlapping passes); default `parallel` of its own. */
  limiter?: Limiter;
  /** The pools sized for this process (`--pool NAME=N`), shared with its other fleet runs. */
  pools?: PoolPlaces;
  /** Leave a retry that is not due yet for later instead of waiting for it (the scheduler comes back then). */
  retryLater?: boolean;
  /**
   * Of a pipeline's planned slots, the ones this run takes: the scheduler's overlapping passes leave a date to the
   * pass that already holds it (else every pass would wait for the same places). Default: all of them.
   */
  takeSlots?: (pipeline: string, slots: PlannedSlot[]) => PlannedSlot[];
  signal?: AbortSignal;
  onPlanned?: (jobs: PlannedJob[]) => void;
  onProgress?: (pipeline: string, progress: RunProgress) => void;
  monotonic?: () => number;
};

/** What a fleet run did: one summary per pipeline that had something to run, in dependency order. */
export type FleetSummary = {
  runType: 'catchup' | 'backfill' | 'scheduled';
  pipelines: RunSummary[];
  /** Pipelines with pending dates but no stored command (`define --command`), left alone. */
  withoutCommand: string[];
  /** Paused pipelines, left alone (their downstream dates wait for them). */
  paused: PausedPipeline[];
  succeeded: number;
  failed: number;
  skipped: number;
  durationMs: number;
};

/** The fleet's durations in milliseconds, from their `"1h"` or milliseconds forms or the deprecated `…Ms` names. */
function fleetDurations(options: FleetOptions): Partial<Record<'waitUpstream' | 'lease' | 'heartbeat' | 'placePoll' | 'killGrace', number>> {
  const out: Partial<Record<'waitUpstream' | 'lease' | 'heartbeat' | 'placePoll' | 'killGrace', number>> = {};
  for (const name of ['waitUpstream', 'lease', 'heartbeat', 'placePoll', 'killGrace'] as const) {
    // An endless wait (the fleet's own planning passes one) is no duration to check.
    if (name === 'waitUpstream' && options.waitUpstream === Number.POSITIVE_INFINITY) out.waitUpstream = Number.POSITIVE_INFINITY;
    else {
      const ms = durationOption(options, name, 'runFleet');
      if (ms != null) out[name] = ms;
    }
  }
  return out;
}

/**
 * Runs many pipelines' dates in dependency order (`catchup --all`, `backfill --with-downstream`): a date
 * starts only once every upstream slot it waits for has succeeded, whether this run or another runner
 * did it; pipelines that do not depend on each other run side by side, within each one's
 * `--max-active-runs` and `parallel` in all. A failure stops only the dates that wait for it: they are
 * skipped with the upstream date they wait for, and everything else carries on.
 *
 * @example
 * const summary = await runFleet(ledger, { kind: 'catchup' }, { taskFor: (d) => functionTask(run) , parallel: 4 });
 */
export async function runFleet(ledger: Ledger, request: FleetRequest, options: FleetOptions): Promise<FleetSummary> {
  const clock = options.monotonic ?? (() => performance.now());
  const began = clock();
  const ms = fleetDurations(options);
  const parallel = options.parallel ?? 4;
  if (!Number.isSafeInteger(parallel) || parallel < 1) throw new LedgerError('input.invalidNumber', `--parallel must be a whole number of 1 or more, not ${parallel}`);
  const { jobs, definitions, paused } = await planFleet(ledger, request);
  const withoutCommand: string[] = [];
  const runnable: Array<{ job: PlannedJob; task: RunTask; definition: PipelineDefinition }> = [];
  for (const planned of jobs) {
    const job = options.takeSlots ? { ...planned, plan: { ...planned.plan, slots: options.takeSlots(planned.pipeline, planned.plan.slots) } } : planned;
    // A pipeline with nothing to run needs no task (making one looks its program up on the PATH).
    if (job.plan.slots.length === 0) continue;
    const definition = definitions.get(job.pipeline) as PipelineDefinition;
    const task = options.taskFor(definition);
    if (task === null) withoutCommand.push(job.pipeline);
    else runnable.push({ job, task, definition });
  }
  options.onPlanned?.(runnable.map((r) => r.job));

  // One promise per planned (pipeline, date): settled when this run has reported it, whatever happened.
  const settled = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const keyOf = (pipeline: string, date: string) => `${pipeline}\u0000${date}`;
  for (const { job } of runnable) {
    for (const slot of job.plan.slots) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      settled.set(keyOf(job.pipeline, slot.date), { promise, resolve });
    }
  }
  const limiter = options.limiter ?? createLimiter(parallel);
  const summaries = await Promise.all(
    runnable.map(async ({ job, task, definition }) => {
      const gate = definition.upstreams
        ? upstreamGate(ledger, {
            definition,
            inProgress: (pipeline, date) => settled.get(keyOf(pipeline, date))?.promise,
            ...(ms.waitUpstream === undefined ? {} : { waitMs: ms.waitUpstream }),
          })
        : undefined;
      try {
        return await executeRuns(ledger, {
          ...options.control,
          pipeline: job.pipeline,
          runType: options.runType ?? job.runType,
          slots: job.plan.slots,
          reprocess: job.reprocess,
          task,
          // A failure stops only what depends on it: the gate skips those dates, the others carry on.
          continueOnFailure: true,
          limiter,
          ...(options.pools ? { pools: options.pools } : {}),
          ...(options.retryLater ? { retryLater: true } : {}),
          ...(options.stopStarting ? { stopStarting: options.stopStarting } : {}),
          startReason: options.startReason !== undefined ? options.startReason : request.kind === 'catchup' ? 'catchup --all (reprocess ' + job.reprocess + ')' : `backfill --with-downstream of ${request.pipeline} ${request.from}..${request.to}`,
          ...(gate ? { gate } : {}),
          ...(ms.lease === undefined ? {} : { leaseMs: ms.lease }),
          ...(ms.heartbeat === undefined ? {} : { heartbeatMs: ms.heartbeat }),
          ...(ms.placePoll === undefined ? {} : { placePollMs: ms.placePoll }),
          ...(ms.killGrace === undefined ? {} : { killGraceMs: ms.killGrace }),
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.monotonic ? { monotonic: options.monotonic } : {}),
          onProgress: (progress) => {
            if (progress.kind === 'finished') settled.get(keyOf(job.pipeline, progress.report.date))?.resolve();
            options.onProgress?.(job.pipeline, progress);
          },
        });
      } finally {
        // A runner that threw still lets the dates waiting for its own go on to find them not done.
        for (const slot of job.plan.slots) settled.get(keyOf(job.pipeline, slot.date))?.resolve();
      }
    }),
  );
  const total = (field: 'succeeded' | 'failed' | 'skipped') => summaries.reduce((sum, s) => sum + s[field], 0);
  return {
    runType: options.runType ?? request.kind,
    pipelines: summaries,
    withoutCommand,
    paused,
    succeeded: total('succeeded'),
    failed: total('failed'),
    skipped: total('skipped'),
    durationMs: Math.round(clock() - began),
  };
}

/**
 * The plans of a fleet run, one per pipeline in dependency order (what `--dry-run` shows), with the
 * definitions they were made from. Dates that wait for upstream dates are kept: at run time each
 * waits for its upstream dates of the same run, and is left alone when they did not succeed.
 *
 * @example
 * const { jobs } = await planFleet(ledger, { kind: 'catchup' });
 */
export async function planFleet(ledger: Ledger, request: FleetRequest): Promise<{ jobs: PlannedJob[]; definitions: Map<string, PipelineDefinition>; paused: PausedPipeline[] }> {
  const controls = await ledger.controls();
  // A retired pipeline is out of every fleet run; no active pipeline names it as an upstream (retire refuses that).
  const all = await ledger.pipelines();
  const definitions = new Map(all.filter((d) => !controls.get(d.pipeline)?.retired).map((d) => [d.pipeline, d]));
  const graph = new Map([...definitions.values()].map((d) => [d.pipeline, d.upstreams ?? []]));
  const only = request.kind === 'catchup' && request.pipelines && request.pipelines.length > 0 ? new Set(request.pipelines) : null;
  if (only) for (const name of only) if (!all.some((d) => d.pipeline === name)) await ledger.pipeline(name);
  // A paused pipeline's dates are started by no fleet run; the pipeline a backfill names is run as asked (a direct run).
  const paused: PausedPipeline[] = [];
  for (const name of definitions.keys()) {
    const pause = controls.get(name)?.paused;
    if (!pause || (request.kind === 'backfill' && name === request.pipeline) || (only !== null && !only.has(name))) continue;
    paused.push({ pipeline: name, paused: pause });
  }
  const held = new Set(paused.map((p) => p.pipeline));
  const planned = request.kind === 'catchup' ? await planCatchups(ledger, definitions, graph, request.reprocess, held, only) : await planWithDownstream(ledger, graph, request);
  const jobs = planned.filter((j) => !held.has(j.pipeline) && (only === null || only.has(j.pipeline)));
  return { jobs, definitions, paused };
}

/** A pipeline a fleet run left alone because it is paused, with since when, by whom and why. */
export type PausedPipeline = { pipeline: string; paused: PipelineControl };

/**
 * Every pipeline's pending due dates, in dependency order: for a fleet, "catch up" means every date
 * `pending` lists (missing, cleared, failed, stalled, interrupted), older gaps included, so one command
 * after a cascaded clear brings back every date it cleared. A pipeline whose catchup is off runs only
 * what its own `catchup` would (the latest due date). Dates that wait for upstream stay in the plan:
 * the gate decides at claim time, once the upstream dates of this run have finished.
 */
async function planCatchups(ledger: Ledger, definitions: ReadonlyMap<string, PipelineDefinition>, graph: DependencyGraph, reprocess: Reprocess | undefined, held: ReadonlySet<string>, only: ReadonlySet<string> | null): Promise<PlannedJob[]> {
  const jobs: PlannedJob[] = [];
  for (const pipeline of dependencyOrder(graph)) {
    // Each pipeline's catchup is planned from its own state: those not asked for are not loaded (the caller drops their jobs).
    if (!graph.has(pipeline) || held.has(pipeline) || (only !== null && !only.has(pipeline))) continue;
    // Nothing due yet (its first slot lies ahead): the plan is empty whatever the state holds, so the state is not
    // loaded. A scheduler over 10,000 pipelines that start tomorrow kept all their states in memory otherwise.
    const defined = definitions.get(pipeline);
    if (defined?.catchup) {
      const timetable = timetableOfDefinition(defined);
      if (timetable.lastDue(ledger.now()) === undefined) {
        jobs.push({ pipeline, runType: 'catchup', reprocess: reprocess ?? 'failed', from: null, to: null, plan: { slots: [], inFlight: [], excluded: [], notDueFrom: timetable.first() ?? null } });
        continue;
      }
    }
    const { definition, timetable, state } = await ledger.pipeline(pipeline);
    if (!definition.catchup) {
      jobs.push(await planJob(ledger, { kind: 'catchup', pipeline, waitUpstreamMs: Number.POSITIVE_INFINITY, ...(reprocess ? { reprocess } : {}) }));
      continue;
    }
    const nowMs = ledger.now();
    const first = timetable.first();
    const lastDue = timetable.lastDue(nowMs);
    const mode = reprocess ?? 'failed';
    const slots = first && lastDue ? boundedSlots(timetable, Date.parse(first.logicalDate), Date.parse(lastDue.logicalDate)) : [];
    const plan = planBackfill(state, slots, { reprocess: mode, nowMs });
    const after = lastDue ? timetable.next(lastDue) : first;
    jobs.push({ pipeline, runType: 'catchup', reprocess: mode, from: null, to: null, plan: { ...plan, notDueFrom: after ?? null } });
  }
  return jobs;
}

/**
 * The range of one pipeline, then for each pipeline downstream of it (in dependency order) the dates
 * that wait for a date planned upstream, each with the same reprocess mode.
 */
async function planWithDownstream(ledger: Ledger, graph: DependencyGraph, request: Extract<FleetRequest, { kind: 'backfill' }>): Promise<PlannedJob[]> {
  const first = await planJob(ledger, { kind: 'backfill', pipeline: request.pipeline, from: request.from, to: request.to, waitUpstreamMs: Number.POSITIVE_INFINITY, ...(request.reprocess ? { reprocess: request.reprocess } : {}) });
  const jobs: PlannedJob[] = [first];
  // Every slot of the range counts, run or not: a downstream date of a date that is already done may still need its run.
  const { timetable: rootTimetable } = await ledger.pipeline(request.pipeline);
  const range = [...rootTimetable.slotsBetween(parseRangeStart(rootTimetable, request.from), parseRangeEnd(rootTimetable, request.to))];
  const touched = new Map<string, Slot[]>([[request.pipeline, range]]);
  for (const pipeline of withDownstreams(graph, request.pipeline).slice(1)) {
    const { timetable, state } = await ledger.pipeline(pipeline);
    const slots = new Map<string, Slot>();
    for (const up of graph.get(pipeline) ?? []) {
      const upstreamSlots = touched.get(up.pipeline);
      if (!upstreamSlots) continue;
      const { timetable: upstreamTimetable } = await ledger.pipeline(up.pipeline);
      for (const slot of upstreamSlots) for (const dependent of dependentSlots(up.mapping, slot, upstreamTimetable, timetable)) slots.set(dependent.date, dependent);
    }
    const ordered = [...slots.values()].sort((a, b) => Date.parse(a.logicalDate) - Date.parse(b.logicalDate));
    touched.set(pipeline, ordered);
    const reprocess = first.reprocess;
    const plan = planBackfill(state, ordered, { reprocess, nowMs: ledger.now() });
    jobs.push({ pipeline, runType: 'backfill', reprocess, from: ordered[0]?.date ?? null, to: ordered.at(-1)?.date ?? null, plan });
  }
  return jobs;
}
