import type { TaskDefinition } from './task-definition.js';

/** An OpenLineage job: its namespace and its name within it (Airflow: `default` and the dag_id). */
export type OpenLineageJob = { namespace: string; job: string };

/**
 * One upstream of a pipeline (`define --upstream a` or `a:previous`): which of
 * `a`'s slots a slot of this pipeline waits for. `overlap`: every slot of `a`
 * whose data interval overlaps this slot's, compared by instant (zones may
 * differ); `previous`: the slot of `a` just before the first of those.
 */
export type Upstream = { pipeline: string; mapping: 'overlap' | 'previous' };

/**
 * The command a pipeline's runs execute (`define --command -- cmd args…`), as argv: run with no shell in
 * between unless `shell` (then the words are joined and handed to `sh -c`).
 */
export type PipelineCommand = { argv: string[]; shell?: boolean | undefined };

/**
 * A timetable a pipeline followed before a change of schedule, zone, start or timetable kind (`define …
 * --effective`): its slots whose logical date is before `until` (and at or after the `until` of the one
 * before it) keep this timetable, with their keys and states.
 */
export type EarlierTimetable = {
  schedule: string;
  timetable: 'interval' | 'trigger';
  timezone: string;
  start: string;
  /** The instant the next timetable took effect: the first logical date that is not this one's. */
  until: string;
};

/** A pipeline's definition as recorded by `define`. */
export type PipelineDefinition = {
  pipeline: string;
  schedule: string;
  timetable: 'interval' | 'trigger';
  timezone: string;
  start: string;
  end: string | null;
  catchup: boolean;
  maxActiveRuns: number;
  /** Default lease of a run in milliseconds, used when `start` gives none. */
  leaseMs: number;
  /**
   * The pipeline's tasks, when it records task-level state. Absent in
   * definitions recorded before tasks existed and in pipelines without tasks;
   * never an empty array.
   */
  tasks?: TaskDefinition[] | undefined;
  /** How stale the pipeline's data may get (lag, in milliseconds) before `check` reports it; `define --freshness`. */
  freshnessMs?: number | undefined;
  /** The OpenLineage job whose run events fill this pipeline (`define --openlineage <namespace>/<job>`); absent when unbound. */
  openlineage?: OpenLineageJob | undefined;
  /**
   * The most bytes of canonical JSON a run's metrics may take, and of a
   * failure's error text (`define --max-metrics-bytes` / `--max-error-bytes`).
   * Absent means the 64 KB default.
   */
  maxMetricsBytes?: number | undefined;
  maxErrorBytes?: number | undefined;
  /** The pipelines whose slots this one's slots wait for (`define --upstream`), in the order given; never an empty array. */
  upstreams?: Upstream[] | undefined;
  /** The command `catchup --all` runs for each date; absent when none was stored (and in older definitions). */
  command?: PipelineCommand | undefined;
  /**
   * Run control (`define --retries --retry-delay --retry-exponential --max-retry-delay --timeout
   * --depends-on-past --sla`), each absent when not set. `retries`: how many times a failed attempt of a
   * backfill or catchup is tried again; `retryDelayMs`: the pause before the first retry (doubled after each
   * with `retryExponential`, at most `maxRetryDelayMs`); `timeoutMs`: an attempt running longer is stopped
   * and fails; `dependsOnPast`: a date runs only after the previous slot succeeded or was skipped;
   * `slaMs`: a date not done by its run-after plus this is late (`notify --on late`).
   */
  retries?: number | undefined;
  retryDelayMs?: number | undefined;
  retryExponential?: true | undefined;
  maxRetryDelayMs?: number | undefined;
  timeoutMs?: number | undefined;
  dependsOnPast?: true | undefined;
  slaMs?: number | undefined;
  /**
   * The timetables the pipeline followed before this one, oldest first, each until the instant the next took
   * effect (`define --effective`); this definition's own schedule, zone, start and kind hold from the last
   * `until` on. Absent when one timetable holds for the whole history.
   */
  earlierTimetables?: EarlierTimetable[] | undefined;
  /**
   * The pool the pipeline's runs take a place in (`define --pool`), and their `priority` within it
   * (`define --priority`, default 1 as Airflow's priority_weight). Each is absent when not set.
   */
  pool?: string | undefined;
  priority?: number | undefined;
};
