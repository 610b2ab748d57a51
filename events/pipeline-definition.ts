import { z } from 'zod';
import type { OpenLineageJob as PlainOpenLineageJob, Upstream as PlainUpstream, PipelineCommand as PlainPipelineCommand, EarlierTimetable as PlainEarlierTimetable, PipelineDefinition as PlainPipelineDefinition } from './types/pipeline-definition.js';
import type { Equals } from './same-type.js';
import { Instant, PipelineName } from './common.js';
import { MAX_SIZE_CAP_BYTES, MIN_SIZE_CAP_BYTES } from './limits.js';
import { TaskDefinition } from './task-definition.js';
import { MAX_PRIORITY, POOL_NAME_PATTERN } from './name-patterns.js';

/** An OpenLineage job: its namespace and its name within it (Airflow: `default` and the dag_id). */
export const OpenLineageJob = z.object({ namespace: z.string().min(1), job: z.string().min(1) });
export type OpenLineageJob = PlainOpenLineageJob;
true satisfies Equals<OpenLineageJob, z.infer<typeof OpenLineageJob>>;

/**
 * One upstream of a pipeline (`define --upstream a` or `a:previous`): which of
 * `a`'s slots a slot of this pipeline waits for. `overlap`: every slot of `a`
 * whose data interval overlaps this slot's, compared by instant (zones may
 * differ); `previous`: the slot of `a` just before the first of those.
 */
export const Upstream = z.object({ pipeline: PipelineName, mapping: z.enum(['overlap', 'previous']) });
export type Upstream = PlainUpstream;
true satisfies Equals<Upstream, z.infer<typeof Upstream>>;

/**
 * The command a pipeline's runs execute (`define --command -- cmd args…`), as argv: run with no shell in
 * between unless `shell` (then the words are joined and handed to `sh -c`).
 */
export const PipelineCommand = z.object({ argv: z.array(z.string()).min(1), shell: z.boolean().optional() });
export type PipelineCommand = PlainPipelineCommand;
true satisfies Equals<PipelineCommand, z.infer<typeof PipelineCommand>>;

/**
 * A timetable a pipeline followed before a change of schedule, zone, start or timetable kind (`define …
 * --effective`): its slots whose logical date is before `until` (and at or after the `until` of the one
 * before it) keep this timetable, with their keys and states.
 */
export const EarlierTimetable = z.object({
  schedule: z.string().min(1),
  timetable: z.enum(['interval', 'trigger']),
  timezone: z.string().min(1),
  start: Instant,
  /** The instant the next timetable took effect: the first logical date that is not this one's. */
  until: Instant,
});
export type EarlierTimetable = PlainEarlierTimetable;
true satisfies Equals<EarlierTimetable, z.infer<typeof EarlierTimetable>>;

/** A pipeline's definition as recorded by `define`. */
export const PipelineDefinition = z.object({
  pipeline: PipelineName,
  schedule: z.string().min(1),
  timetable: z.enum(['interval', 'trigger']),
  timezone: z.string().min(1),
  start: Instant,
  end: Instant.nullable(),
  catchup: z.boolean(),
  maxActiveRuns: z.number().int().positive(),
  /** Default lease of a run in milliseconds, used when `start` gives none. */
  leaseMs: z.number().int().positive(),
  /**
   * The pipeline's tasks, when it records task-level state. Absent in
   * definitions recorded before tasks existed and in pipelines without tasks;
   * never an empty array.
   */
  tasks: z.array(TaskDefinition).optional(),
  /**
   * How stale the pipeline's data may get (lag, in milliseconds) before
   * `check` reports it; `define --freshness`. Absent when none was set, and in
   * definitions recorded before it existed, so their hashes do not change.
   */
  freshnessMs: z.number().int().positive().optional(),
  /**
   * The OpenLineage job whose run events fill this pipeline (`define
   * --openlineage <namespace>/<job>`). Absent when unbound, and in every
   * definition recorded before bindings existed, so those need no upcaster:
   * an old definition reads as an unbound one and hashes as it always did.
   */
  openlineage: OpenLineageJob.optional(),
  /**
   * The most bytes of canonical JSON a run's metrics may take, and of a
   * failure's error text (`define --max-metrics-bytes` / `--max-error-bytes`).
   * Absent means the 64 KB default, as in every definition recorded before
   * caps existed, so those read and hash as they always did.
   */
  maxMetricsBytes: z.number().int().min(MIN_SIZE_CAP_BYTES).max(MAX_SIZE_CAP_BYTES).optional(),
  maxErrorBytes: z.number().int().min(MIN_SIZE_CAP_BYTES).max(MAX_SIZE_CAP_BYTES).optional(),
  /**
   * The pipelines whose slots this one's slots wait for (`define --upstream`), in the order given; never
   * an empty array. Absent in definitions without upstreams and in those recorded before upstreams
   * existed, which therefore read and hash as they always did.
   */
  upstreams: z.array(Upstream).optional(),
  /** The command `catchup --all` runs for each date; absent when none was stored (and in older definitions). */
  command: PipelineCommand.optional(),
  /**
   * Run control (`define --retries --retry-delay --retry-exponential --max-retry-delay --timeout
   * --depends-on-past --sla`). Each is absent when not set, as in every definition recorded before they
   * existed, so those read and hash as they always did. `retries`: how many times a failed attempt of a
   * backfill or catchup is tried again; `retryDelayMs`: the pause before the first retry (doubled after each
   * with `retryExponential`, at most `maxRetryDelayMs`); `timeoutMs`: an attempt running longer is stopped
   * and fails; `dependsOnPast`: a date runs only after the previous slot succeeded or was skipped;
   * `slaMs`: a date not done by its run-after plus this is late (`notify --on late`).
   */
  retries: z.number().int().positive().optional(),
  retryDelayMs: z.number().int().nonnegative().optional(),
  retryExponential: z.literal(true).optional(),
  maxRetryDelayMs: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  dependsOnPast: z.literal(true).optional(),
  slaMs: z.number().int().positive().optional(),
  /**
   * The timetables the pipeline followed before this one, oldest first, each until the instant the next took
   * effect (`define --effective`); this definition's own schedule, zone, start and kind hold from the last
   * `until` on. Absent when one timetable holds for the whole history, as in every definition recorded before
   * changes took effect from an instant, so those read and hash as they always did.
   */
  earlierTimetables: z.array(EarlierTimetable).min(1).optional(),
  /**
   * The pool the pipeline's runs take a place in (`define --pool`): a runner given `--pool NAME=N` starts at
   * most N runs of the pool's pipelines at once, counted from the ledger's live runs. `priority` (`define
   * --priority`, default 1 as Airflow's priority_weight): when places are short, higher first, then the
   * oldest date. Neither moves a slot. Each is absent when not set, so older definitions hash as before.
   */
  pool: z.string().regex(POOL_NAME_PATTERN).optional(),
  priority: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY).optional(),
});
export type PipelineDefinition = PlainPipelineDefinition;
true satisfies Equals<PipelineDefinition, z.infer<typeof PipelineDefinition>>;
