import { canonicalJson } from '../../events/canonical-json.js';
import { formatBytes, MAX_SIZE_CAP_BYTES, MIN_SIZE_CAP_BYTES } from '../../events/limits.js';
import { MAX_PRIORITY, PIPELINE_NAME_PATTERN, POOL_NAME_PATTERN } from '../../events/name-patterns.js';
import type { EarlierTimetable, OpenLineageJob, PipelineCommand, PipelineDefinition, Upstream } from '../../events/types/pipeline-definition.js';
import type { TaskSpec } from '../../projections/task-graph.js';
import { checkDurationMs } from '../duration.js';
import { LedgerError } from '../errors.js';
import { checkTasks } from './check-tasks.js';
import { createTimetableHistory } from '../timetable/timetable-history.js';
import { parseDateText } from '../timetable/parse-date.js';
import { formatInstant, zoneClock } from '../timetable/zoned-time.js';

/** What `define` takes; everything but name, schedule and start has a default. */
export type DefineInput = {
  pipeline: string;
  schedule: string;
  start: string;
  end?: string | null;
  timezone?: string;
  timetable?: 'interval' | 'trigger';
  catchup?: boolean;
  maxActiveRuns?: number;
  leaseMs?: number;
  /** The pipeline's tasks; leave out for a pipeline without task-level state. */
  tasks?: readonly TaskSpec[];
  /** How stale the data may get before `check` reports it, in ms; null drops it on a redefinition. */
  freshnessMs?: number | null | undefined;
  /** The OpenLineage job bound to the pipeline; leave out for none. */
  openlineage?: OpenLineageJob;
  /** The most bytes a run's metrics (canonical JSON) may take, 1 KB to 16 MB; default 64 KB; null goes back to the default on a redefinition. */
  maxMetricsBytes?: number | null | undefined;
  /** The most bytes a failure's error text may take, 1 KB to 16 MB; default 64 KB; null goes back to the default on a redefinition. */
  maxErrorBytes?: number | null | undefined;
  /** The pipelines whose slots this one's slots wait for (`--upstream a`, `a:previous`); null or [] drops them on a redefinition. */
  upstreams?: readonly Upstream[] | null | undefined;
  /** The command `catchup --all` runs for each date, as argv; null drops it on a redefinition. */
  command?: PipelineCommand | null | undefined;
  /** How many times backfill and catchup try a failed attempt again (0 or null: none). */
  retries?: number | null | undefined;
  /** The pause before the first retry, in ms (default 5 minutes, as Airflow's retry_delay); null drops it. */
  retryDelayMs?: number | null | undefined;
  /** Double the pause after each retry (Airflow's retry_exponential_backoff), up to `maxRetryDelayMs`. */
  retryExponential?: boolean | null | undefined;
  /** The longest pause between retries, in ms (default 24 hours, as Airflow's max_retry_delay); null drops it. */
  maxRetryDelayMs?: number | null | undefined;
  /** An attempt running longer is stopped (SIGTERM, then SIGKILL) and fails, `timed out after …`; null drops it. */
  timeoutMs?: number | null | undefined;
  /** A date runs only after the slot before it succeeded or was skipped (Airflow's depends_on_past). */
  dependsOnPast?: boolean | null | undefined;
  /** A date not done by its run-after plus this is late (`notify --on late`); null drops it. */
  slaMs?: number | null | undefined;
  /** The pool the pipeline's runs take a place in (`--pool`); null drops it. */
  pool?: string | null | undefined;
  /** When places are short, higher first (`--priority`, default 1); null goes back to the default. */
  priority?: number | null | undefined;
  /** The timetables the pipeline followed before its current one (kept from the current definition; see `planTimetableChange`). */
  earlierTimetables?: readonly EarlierTimetable[] | undefined;
};

/**
 * What `define` takes for a pipeline that may already exist: the options left
 * out keep their current values (`tasks: null` drops the task list,
 * `openlineage: null` the binding). The first definition needs `schedule` and `start`.
 */
export type DefineChanges = Partial<Omit<DefineInput, 'pipeline' | 'tasks' | 'openlineage' | 'earlierTimetables'>> & {
  pipeline: string;
  /**
   * From when a change of schedule, zone, start or timetable kind holds (`now`, a date or an RFC 3339 instant):
   * logical dates before it keep the old timetable. Needed when the change would re-key or drop recorded dates.
   */
  effective?: string | undefined;
  tasks?: readonly TaskSpec[] | null;
  openlineage?: OpenLineageJob | null;
};

export const DEFAULT_LEASE_MS = 3_600_000;

/**
 * The full input of a (re)definition: the changes over the current definition,
 * or, for a new pipeline, the changes alone (`input.missingOption` when they
 * lack schedule or start). Start and end keep their instants when left out.
 *
 * @example
 * completeDefinitionInput(current, { pipeline: 'etl_orders', catchup: false })
 */
export function completeDefinitionInput(current: PipelineDefinition | null, changes: DefineChanges): DefineInput {
  const { tasks, openlineage, effective: _effective, ...rest } = changes;
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<DefineChanges, 'tasks' | 'openlineage'>;
  if (current === null) {
    if (given.schedule === undefined || given.start === undefined) {
      throw new LedgerError(
        'input.missingOption',
        `${changes.pipeline} is not defined yet, so it needs --schedule and --start, e.g. runledger define ${changes.pipeline} --schedule @daily --start 2026-11-02`,
      );
    }
    return { ...given, schedule: given.schedule, start: given.start, ...(tasks ? { tasks } : {}), ...(openlineage ? { openlineage } : {}) };
  }
  const { tasks: currentTasks, openlineage: currentBinding, ...kept } = current;
  const merged: DefineInput = { ...kept, ...given };
  const nextTasks = tasks === undefined ? currentTasks : tasks;
  const nextBinding = openlineage === undefined ? currentBinding : openlineage;
  return { ...merged, ...(nextTasks ? { tasks: nextTasks } : {}), ...(nextBinding ? { openlineage: nextBinding } : {}) };
}

/** Throws `input.invalidPipelineName` unless the name fits `[a-z0-9][a-z0-9_.-]{0,127}`. */
export function checkPipelineName(name: string): void {
  if (typeof name !== 'string' || !PIPELINE_NAME_PATTERN.test(name)) {
    throw new LedgerError(
      'input.invalidPipelineName',
      `'${name}' is not a valid pipeline name; use lowercase letters, digits, '_', '.' or '-', starting with a letter or digit (at most 128 characters)`,
    );
  }
}

/**
 * Validates a definition (name, zone, schedule, bounds) and normalises its
 * dates to RFC 3339 instants in the pipeline's zone.
 *
 * @example
 * buildDefinition({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' })
 */
export function buildDefinition(input: DefineInput): PipelineDefinition {
  checkPipelineName(input.pipeline);
  const timezone = input.timezone ?? 'UTC';
  const clock = zoneClock(timezone);
  const startMs = parseDateText(input.start, clock);
  const endMs = input.end == null ? null : parseDateText(input.end, clock);
  if (endMs !== null && endMs < startMs) {
    throw new LedgerError('input.invalidEnd', `--end ${input.end} is before --start ${input.start}; the end must be at or after the start`);
  }
  const maxActiveRuns = input.maxActiveRuns ?? 1;
  if (!Number.isInteger(maxActiveRuns) || maxActiveRuns < 1) {
    throw new LedgerError('input.invalidMaxActiveRuns', `--max-active-runs must be a whole number of 1 or more, not ${input.maxActiveRuns}`);
  }
  const definition: PipelineDefinition = {
    pipeline: input.pipeline,
    schedule: input.schedule.trim(),
    timetable: input.timetable ?? 'interval',
    timezone,
    start: formatInstant(startMs, clock),
    end: endMs === null ? null : formatInstant(endMs, clock),
    catchup: input.catchup ?? true,
    maxActiveRuns,
    leaseMs: checkDurationMs(input.leaseMs ?? DEFAULT_LEASE_MS, 'leaseMs'),
    // Left out rather than undefined, so a definition without tasks hashes as it did before tasks existed.
    ...(input.tasks === undefined ? {} : { tasks: checkTasks(input.tasks) }),
    // The same for freshness: an optional field, so definitions recorded before it existed read (and hash) unchanged.
    ...(input.freshnessMs == null ? {} : { freshnessMs: checkDurationMs(input.freshnessMs, 'freshness') }),
    ...(input.openlineage === undefined ? {} : { openlineage: checkOpenLineageJob(input.openlineage) }),
    // Optional too: a pipeline on the default caps hashes as definitions did before caps existed.
    ...(input.maxMetricsBytes == null ? {} : { maxMetricsBytes: checkSizeCap(input.maxMetricsBytes, 'maxMetricsBytes') }),
    ...(input.maxErrorBytes == null ? {} : { maxErrorBytes: checkSizeCap(input.maxErrorBytes, 'maxErrorBytes') }),
    // Optional as well: a pipeline without upstreams or command hashes as definitions did before they existed.
    ...(input.upstreams == null || input.upstreams.length === 0 ? {} : { upstreams: checkUpstreams(input.pipeline, input.upstreams) }),
    ...(input.command == null ? {} : { command: checkCommand(input.command) }),
    // Run control: each left out when not set, so a definition without it hashes as before it existed.
    ...(input.retries == null || input.retries === 0 ? {} : { retries: checkRetries(input.retries, '--retries (retries)') }),
    ...(input.retryDelayMs == null ? {} : { retryDelayMs: checkDelayMs(input.retryDelayMs, '--retry-delay (retryDelay)') }),
    ...(input.retryExponential ? { retryExponential: true as const } : {}),
    ...(input.maxRetryDelayMs == null ? {} : { maxRetryDelayMs: checkDurationMs(input.maxRetryDelayMs, '--max-retry-delay (maxRetryDelay)') }),
    ...(input.timeoutMs == null ? {} : { timeoutMs: checkDurationMs(input.timeoutMs, '--timeout (timeout)') }),
    ...(input.dependsOnPast ? { dependsOnPast: true as const } : {}),
    ...(input.slaMs == null ? {} : { slaMs: checkDurationMs(input.slaMs, '--sla (sla)') }),
    // Pool and priority: left out when not set (priority 1 is the default), so older definitions hash as before.
    ...(input.pool == null ? {} : { pool: checkPoolName(input.pool, '--pool (pool)') }),
    ...(input.priority == null || input.priority === DEFAULT_PRIORITY ? {} : { priority: checkPriority(input.priority, '--priority (priority)') }),
    // Only after a change that took effect from an instant, so every other definition hashes as before.
    ...(input.earlierTimetables === undefined || input.earlierTimetables.length === 0 ? {} : { earlierTimetables: input.earlierTimetables.map((t) => ({ ...t })) }),
  };
  // Builds the timetable once so a malformed schedule is refused here, with the field named.
  createTimetableHistory(definition);
  return definition;
}

/**
 * A number of retries: a whole number from 0 to 100 (past that a failing date would hold a runner for days).
 *
 * @example
 * checkRetries(3, '--retries') // 3
 */
export function checkRetries(retries: number, what: string): number {
  if (!Number.isSafeInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new LedgerError('input.invalidRetries', `${what} must be a whole number from 0 to ${MAX_RETRIES}, not ${String(retries)}`);
  }
  return retries;
}

/** A retry delay may be zero (try again at once); otherwise a duration as `checkDurationMs` takes it. */
export function checkDelayMs(ms: number, what: string): number {
  return ms === 0 ? 0 : checkDurationMs(ms, what);
}

const MAX_RETRIES = 100;

/** A pipeline's priority when it sets none (Airflow's priority_weight defaults to 1 too). */
export const DEFAULT_PRIORITY = 1;

/**
 * A pool name, as pipeline names are spelled.
 *
 * @example
 * checkPoolName('warehouse', '--pool') // 'warehouse'
 */
export function checkPoolName(name: string, what: string): string {
  if (typeof name !== 'string' || !POOL_NAME_PATTERN.test(name)) {
    throw new LedgerError('input.invalidPool', `${what} '${String(name)}' is not a pool name; use lowercase letters, digits, '_', '.' or '-', starting with a letter or digit (at most 128 characters)`);
  }
  return name;
}

/** A priority: a whole number from -1,000,000 to 1,000,000 (higher runs first when places are short). */
export function checkPriority(priority: number, what: string): number {
  if (!Number.isSafeInteger(priority) || Math.abs(priority) > MAX_PRIORITY) {
    throw new LedgerError('input.invalidPriority', `${what} must be a whole number from -${MAX_PRIORITY.toLocaleString('en')} to ${MAX_PRIORITY.toLocaleString('en')}, not ${String(priority)}`);
  }
  return priority;
}

/** A pipeline's cap on metrics or error text: whole bytes from 1 KB to 16 MB. */
function checkSizeCap(bytes: number, field: 'maxMetricsBytes' | 'maxErrorBytes'): number {
  if (!Number.isInteger(bytes) || bytes < MIN_SIZE_CAP_BYTES || bytes > MAX_SIZE_CAP_BYTES) {
    const option = field === 'maxMetricsBytes' ? '--max-metrics-bytes' : '--max-error-bytes';
    throw new LedgerError(
      'input.invalidSizeCap',
      `${option} (${field}) must be a whole number of bytes from ${formatBytes(MIN_SIZE_CAP_BYTES)} to ${formatBytes(MAX_SIZE_CAP_BYTES)}, not ${Number.isFinite(bytes) ? bytes.toLocaleString('en') : String(bytes)}; larger texts belong in files the run points to`,
    );
  }
  return bytes;
}


/** The fields that differ between two definitions, for `PipelineRedefined`. */
export function diffDefinitions(before: PipelineDefinition, after: PipelineDefinition): Array<{ field: string; from: unknown; to: unknown }> {
  // The new definition's fields in their order, then any only the old one had: a dropped task list is a change too.
  const fields = [...new Set([...Object.keys(after), ...Object.keys(before)])] as Array<keyof PipelineDefinition>;
  // Canonical JSON, since stored definitions come back with sorted keys and key order is no change.
  const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
  return fields
    .filter((field) => !same(before[field], after[field]))
    .map((field) => ({ field, from: before[field] ?? null, to: after[field] ?? null }));
}

/**
 * `<namespace>/<job>` as `define --openlineage` takes it. The split is at the
 * last `/`, so a namespace that is a URI (`postgres://db:5432`) keeps its
 * slashes; job names (`dag_id`, `model.shop.orders`) have none.
 *
 * @example
 * parseOpenLineageJob('default/airflow_orders') // { namespace: 'default', job: 'airflow_orders' }
 */
export function parseOpenLineageJob(text: string): OpenLineageJob {
  const slash = text.lastIndexOf('/');
  const job = { namespace: text.slice(0, Math.max(slash, 0)), job: text.slice(slash + 1) };
  if (slash <= 0 || job.job === '') {
    throw new LedgerError('input.invalidOpenLineageJob', `--openlineage '${text}' is not <namespace>/<job>; Airflow's DAGs are e.g. default/<dag_id>`);
  }
  return checkOpenLineageJob(job);
}

function checkOpenLineageJob(job: OpenLineageJob): OpenLineageJob {
  if (job.namespace.trim() === '' || job.job.trim() === '' || /[\n\r]/.test(job.namespace + job.job)) {
    throw new LedgerError('input.invalidOpenLineageJob', `the OpenLineage job '${job.namespace}/${job.job}' needs a namespace and a job name on one line`);
  }
  return { namespace: job.namespace, job: job.job };
}

/**
 * `a` or `a:previous` (or `a:overlap`, the default spelled out) as `define --upstream` takes it.
 *
 * @example
 * parseUpstream('orders_raw:previous') // { pipeline: 'orders_raw', mapping: 'previous' }
 */
export function parseUpstream(text: string): Upstream {
  const colon = text.lastIndexOf(':');
  const pipeline = colon < 0 ? text : text.slice(0, colon);
  const mapping = colon < 0 ? 'overlap' : text.slice(colon + 1);
  if (mapping !== 'overlap' && mapping !== 'previous') {
    throw new LedgerError('input.invalidUpstream', `--upstream '${text}' has the mapping '${mapping}'; use <pipeline> (every slot whose data interval overlaps) or <pipeline>:previous (the slot before those)`);
  }
  if (!PIPELINE_NAME_PATTERN.test(pipeline)) {
    throw new LedgerError('input.invalidUpstream', `--upstream '${text}' does not name a pipeline; pipeline names are lowercase letters, digits, '_', '.' or '-'`);
  }
  return { pipeline, mapping };
}

/** Upstreams in the order given, each (pipeline, mapping) once; a pipeline cannot wait for itself. */
function checkUpstreams(pipeline: string, upstreams: readonly Upstream[]): Upstream[] {
  const seen = new Set<string>();
  const kept: Upstream[] = [];
  for (const up of upstreams) {
    // The library takes objects; a string ('raw', the CLI's form) or a half object says what to pass instead.
    if (typeof up !== 'object' || up === null || typeof up.pipeline !== 'string' || typeof up.mapping !== 'string') {
      throw new LedgerError('input.invalidUpstream', `upstreams takes { pipeline, mapping } objects, e.g. upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] (mapping 'overlap' or 'previous'); got ${JSON.stringify(up)}`);
    }
    const checked = parseUpstream(`${up.pipeline}:${up.mapping}`);
    if (checked.pipeline === pipeline) {
      throw new LedgerError('input.dependencyCycle', `--upstream ${up.pipeline} would make a cycle: ${pipeline} -> ${pipeline}; a pipeline cannot wait for its own dates (drop that --upstream)`);
    }
    const key = `${checked.pipeline}:${checked.mapping}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(checked);
  }
  return kept;
}

/** A stored command: at least one word, the first not empty, none holding a NUL byte. */
function checkCommand(command: PipelineCommand): PipelineCommand {
  const argv = [...command.argv];
  if (argv.length === 0 || argv[0] === '' || argv.some((word) => typeof word !== 'string' || /[\0]/.test(word))) {
    throw new LedgerError('input.invalidCommand', 'define --command needs the command after --, e.g. runledger define etl_orders --command -- python load.py --date {date}');
  }
  return { argv, ...(command.shell ? { shell: true } : {}) };
}
