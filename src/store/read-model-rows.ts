import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { DateState } from '../../projections/date-state.js';
import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { LastOutcome, PipelineSummary, RunningDate, StatusSummary } from '../../projections/pipeline-summary.js';
import type { RunRecord } from '../../projections/run-history.js';
import { sortedTally, type RunTally } from '../../projections/views/run-tally.js';
import type { RM_DATES, RM_PIPELINES, RM_RUNS, RowOf } from './read-model-schema.js';

/**
 * The read models as rows: what the table writer stores and what `verify --projections` compares, column
 * by column. Every row is what the pure folds (`evolve`, `evolveRunHistory`) decided, encoded; nothing
 * here decides anything. Field names are the SQL column names, so both adapters bind them as they are.
 */

/** Error texts longer than this keep only an excerpt in their row, and the position of the event that holds the whole text. */
export const ERROR_EXCERPT_CHARS = 240;

/** A row of `rm_pipelines`: a pipeline at a glance (its columns are declared in read-model-schema.ts). */
export type PipelineRow = RowOf<typeof RM_PIPELINES>;

/** A row of `rm_dates`: one date key's current state. */
export type DateRow = RowOf<typeof RM_DATES>;

/** A row of `rm_runs`: one run (attempt). */
export type RunRow = RowOf<typeof RM_RUNS>;

/** Positions of the events that hold a row's long fields. */
export type Refs = { result: number | null; error: number | null };

/**
 * The fields a record keeps in columns of their own; `shape`: the keys, in order, of the last record
 * looked at, and `others` its keys without a column (sorted).
 */
type ColumnSet = { readonly names: ReadonlySet<string>; shape: string[]; others: string[] };
function columnSet(names: readonly string[]): ColumnSet {
  return { names: new Set(names), shape: [], others: [] };
}

const DATE_COLUMNS = columnSet([
  'date', 'status', 'runId', 'attempt', 'attempts', 'runType', 'logicalDate', 'dataInterval', 'runAfter', 'startedAt', 'finishedAt',
  'leaseExpiresAt', 'metrics', 'outputs', 'error', 'offSchedule', 'forced', 'clearedAt', 'startPosition', 'version',
]);
const RUN_COLUMNS = columnSet([
  'runId', 'date', 'attempt', 'runType', 'status', 'logicalDate', 'dataInterval', 'startedAt', 'finishedAt', 'leaseExpiresAt',
  'actor', 'forced', 'offSchedule', 'metrics', 'error',
]);

/**
 * The fields of `value` that have no column and are not undefined, as JSON (keys sorted), or null when
 * there are none. Most records come in one of a few shapes, their keys always in one order: when `value`
 * has the keys of the last record looked at, compared by identity, its fields without a column are that
 * record's, and no key is looked up in the set (a tenth of a rebuild's time when each was).
 */
function extraOf(value: object, columns: ColumnSet): string | null {
  const record = value as Record<string, unknown>;
  const shape = columns.shape;
  let i = 0;
  let same = true;
  for (const key in record) {
    if (key !== shape[i++]) {
      same = false;
      break;
    }
  }
  if (!same || i !== shape.length) {
    const keys: string[] = [];
    const others: string[] = [];
    for (const key in record) {
      keys.push(key);
      if (!columns.names.has(key)) others.push(key);
    }
    columns.shape = keys;
    columns.others = others.sort();
  }
  let extra: Record<string, unknown> | null = null;
  for (const key of columns.others) if (record[key] !== undefined) (extra ??= {})[key] = record[key];
  return extra === null ? null : JSON.stringify(extra);
}

/**
 * Text as a database column holds it verbatim: PostgreSQL's text refuses NUL, and neither store keeps a lone
 * surrogate (input refuses those now; events recorded before may hold one). Both sides of `verify --projections`
 * build rows through here, so a ledger holding such text still compares equal.
 */
function storable(text: string): string {
  return STORABLE.test(text) ? text : text.replace(UNSTORABLE, '\ufffd');
}
const STORABLE = /^[^\u0000\ud800-\udfff]*$/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storableOrNull(text: string | null): string | null {
  return text === null ? null : storable(text);
}

/** Whether a row keeps its error text whole: short enough, and a column holds it as it is. */
function keptWhole(text: string): boolean {
  return text.length <= ERROR_EXCERPT_CHARS && storable(text) === text;
}

/** The row's excerpt of an error text: its start, never cutting a surrogate pair in half, as a column holds it. */
function excerpt(text: string | null): string | null {
  if (text === null) return null;
  if (text.length <= ERROR_EXCERPT_CHARS) return storable(text);
  const high = text.charCodeAt(ERROR_EXCERPT_CHARS - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? ERROR_EXCERPT_CHARS - 1 : ERROR_EXCERPT_CHARS;
  return storable(text.slice(0, end));
}

/** A date's row. */
export function dateRow(pipeline: string, date: DateState, refs: Refs): DateRow {
  const message = date.error?.message ?? null;
  return {
    pipeline,
    date: date.date,
    status: date.status,
    run_id: date.runId,
    attempt: date.attempt,
    attempts: date.attempts,
    run_type: date.runType,
    logical_ms: Date.parse(date.logicalDate),
    logical_date: date.logicalDate,
    interval_start: date.dataInterval.start === date.logicalDate ? null : date.dataInterval.start,
    interval_end: date.dataInterval.end === date.runAfter ? null : date.dataInterval.end,
    run_after: date.runAfter,
    started_at: date.startedAt,
    finished_at: date.finishedAt,
    lease_expires_at: date.leaseExpiresAt,
    error_excerpt: excerpt(message),
    error_code: storableOrNull(date.error?.code ?? null),
    error_position: message !== null && !keptWhole(message) ? refs.error : null,
    result_position: date.metrics === null && date.outputs.length === 0 ? null : refs.result,
    off_schedule: date.offSchedule ? 1 : 0,
    forced: date.forced ? 1 : 0,
    cleared_at: date.clearedAt,
    start_position: date.startPosition,
    version: date.version,
    extra: extraOf(date, DATE_COLUMNS),
  };
}

/** The long fields a row points to, read from their events. */
export type Payloads = {
  /** `RunSucceeded`'s metrics and outputs. */
  result(position: number): { metrics: Record<string, unknown> | null; outputs: DateState['outputs'] };
  /** The whole error text of the event at `position`, as the fold would have set it for `kind` (`excerpt`: what the row holds). */
  error(position: number, kind: 'date' | 'run', excerpt: string): string;
};

/**
 * Stand-ins for metrics and outputs a reader does not read: the writer's fold only carries them along, and a row
 * only needs to know that there are some (its `result_position` stays), so appends never parse old payloads.
 */
const KEPT_METRICS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const KEPT_OUTPUTS: string[] = Object.freeze([]) as unknown as string[];
const keptResult: Payloads['result'] = () => ({ metrics: KEPT_METRICS, outputs: KEPT_OUTPUTS });

/** A light read's long values: stand-ins for metrics and outputs, excerpts for errors (for states and outcomes only). */
export const LIGHT_PAYLOADS: Payloads = { result: keptResult, error: (_position, _kind, excerpt) => excerpt };

/**
 * `payloads` with stand-ins for metrics and outputs, errors whole: what the table writer reads rows back with, and
 * what answers without results (pending, a page's strip) read.
 */
export function withoutResults(payloads: Pick<Payloads, 'error'>): Payloads {
  return { result: keptResult, error: payloads.error };
}

/**
 * The long values rows point to, read from the events at their positions (`eventAt`): a success's metrics and
 * outputs, a failure's or an interrupt's whole error text as the fold set it; the excerpt for an event that holds
 * none (the row's own text is then all there is).
 *
 * @example
 * const payloads = payloadsOfEvents((position) => events.get(position));
 */
export function payloadsOfEvents(eventAt: (position: number) => RecordedEvent | undefined): Payloads {
  return {
    result(position) {
      const event = eventAt(position);
      return event?.type === 'RunSucceeded' ? { metrics: event.data.metrics, outputs: event.data.outputs } : { metrics: null, outputs: [] };
    },
    error(position, kind, excerpt) {
      const event = eventAt(position);
      if (event?.type === 'RunFailed') return event.data.error;
      if (event?.type === 'RunInterrupted') return kind === 'date' ? event.data.message : `interrupted by ${event.data.by}: ${event.data.message}`;
      return excerpt;
    },
  };
}

/** A date's state from its row (and the events its row points to). */
export function dateOfRow(row: DateRow, payloads: Payloads): DateState {
  const result = row.result_position === null ? { metrics: null, outputs: [] } : payloads.result(row.result_position);
  const message = row.error_position === null ? row.error_excerpt : payloads.error(row.error_position, 'date', row.error_excerpt ?? '');
  return {
    date: row.date,
    status: row.status as DateState['status'],
    runId: row.run_id,
    attempt: row.attempt,
    attempts: row.attempts,
    runType: row.run_type as DateState['runType'],
    logicalDate: row.logical_date,
    dataInterval: { start: row.interval_start ?? row.logical_date, end: row.interval_end ?? row.run_after },
    runAfter: row.run_after,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    leaseExpiresAt: row.lease_expires_at,
    metrics: result.metrics,
    outputs: result.outputs,
    error: message === null ? null : { message, code: row.error_code },
    offSchedule: row.off_schedule === 1,
    forced: row.forced === 1,
    clearedAt: row.cleared_at,
    startPosition: row.start_position,
    version: row.version,
    ...(row.extra === null ? {} : (JSON.parse(row.extra) as object)),
  };
}

/**
 * A date as the overview's strip draws it: key, status, logical instant (epoch ms), off-schedule, the lease of a running
 * date (else null), the whole error of a failed or retrying one (else null), and the hand mark and retry its note tells.
 */
export type StripDate = Pick<DateState, 'date' | 'status' | 'offSchedule' | 'mark' | 'retry'> & { logicalMs: number; leaseExpiresAt: string | null; error: string | null };

/** The columns of a date row a strip draws (`StripDate`): the lease of a running date only, the error of a failed or retrying one only. */
export type StripDateRow = { date: string; status: string; logical_ms: number; off_schedule: number; lease_expires_at: string | null; error_excerpt: string | null; error_position: number | null; extra: string | null };

/** The select list of `StripDateRow`, in its order; both adapters read `rm_dates` with it. */
export const STRIP_DATE_SELECT =
  "date, status, logical_ms, off_schedule, CASE WHEN status = 'running' THEN lease_expires_at END AS lease_expires_at, CASE WHEN status IN ('failed', 'up_for_retry') THEN error_excerpt END AS error_excerpt, CASE WHEN status IN ('failed', 'up_for_retry') THEN error_position END AS error_position, extra";

/** A strip's date from its columns, the whole error read from its event when the row keeps an excerpt (as `dateOfRow` reads it). */
export function stripDateOfRow(row: StripDateRow, payloads: Pick<Payloads, 'error'>): StripDate {
  const error = row.error_position === null ? row.error_excerpt : payloads.error(row.error_position, 'date', row.error_excerpt ?? '');
  const extra = row.extra === null ? null : (JSON.parse(row.extra) as Pick<DateState, 'mark' | 'retry'>);
  return {
    date: row.date,
    status: row.status as DateState['status'],
    logicalMs: row.logical_ms,
    offSchedule: row.off_schedule === 1,
    leaseExpiresAt: row.lease_expires_at,
    error,
    ...(extra?.mark ? { mark: extra.mark } : {}),
    ...(extra?.retry ? { retry: extra.retry } : {}),
  };
}

/** A run's row. */
export function runRow(pipeline: string, run: RunRecord, seq: number, refs: Refs): RunRow {
  return {
    run_id: run.runId,
    pipeline,
    seq,
    date: run.date,
    attempt: run.attempt,
    run_type: run.runType,
    status: run.status,
    logical_date: run.logicalDate,
    interval_start: run.dataInterval.start,
    interval_end: run.dataInterval.end,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    lease_expires_at: run.leaseExpiresAt,
    actor: storable(run.actor),
    forced: run.forced ? 1 : 0,
    off_schedule: run.offSchedule ? 1 : 0,
    error_excerpt: excerpt(run.error),
    error_position: run.error !== null && !keptWhole(run.error) ? refs.error : null,
    result_position: run.metrics === null ? null : refs.result,
    extra: extraOf(run, RUN_COLUMNS),
  };
}

/** A run from its row. */
export function runOfRow(row: RunRow, payloads: Payloads): RunRecord {
  const error = row.error_position === null ? row.error_excerpt : payloads.error(row.error_position, 'run', row.error_excerpt ?? '');
  return {
    runId: row.run_id,
    date: row.date,
    attempt: row.attempt,
    runType: row.run_type as RunRecord['runType'],
    status: row.status as RunRecord['status'],
    logicalDate: row.logical_date,
    dataInterval: { start: row.interval_start, end: row.interval_end },
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    leaseExpiresAt: row.lease_expires_at,
    actor: row.actor,
    forced: row.forced === 1,
    offSchedule: row.off_schedule === 1,
    metrics: row.result_position === null ? null : payloads.result(row.result_position).metrics,
    error,
    ...(row.extra === null ? {} : (JSON.parse(row.extra) as object)),
  };
}

/** A pipeline row, decoded; `definition`, when given, is the row's definition already parsed (the table writer keeps the one it wrote). */
export function summaryOfRow(row: PipelineRow, definition?: PipelineDefinition | null): PipelineSummary {
  // Named, not spread into the literal (a spread builds each row's object on a slower path).
  const { paused, retired } = controlOfText(row.control);
  const summary = {
    pipeline: row.pipeline,
    definition: definition !== undefined ? definition : row.definition === null ? null : (JSON.parse(row.definition) as PipelineDefinition),
    definedAt: row.defined_at,
    version: row.version,
    watermark: row.watermark_date === null || row.watermark_logical === null ? null : { date: row.watermark_date, logicalDate: row.watermark_logical },
    completeThrough: row.complete_through,
    lastSuccess: row.last_success === null ? null : (JSON.parse(row.last_success) as LastOutcome),
    lastFailure: row.last_failure === null ? null : (JSON.parse(row.last_failure) as LastOutcome),
    slotCounts: JSON.parse(row.slot_counts) as Record<string, number>,
    misaligned: row.misaligned,
    throughSlots: row.through_slots,
    position: row.position,
    running: JSON.parse(row.running) as RunningDate[],
    latestMs: row.latest_ms,
    paused,
    retired,
    auditEntries: row.audit_entries,
  } as PipelineSummary;
  // `counts` and `runTally` are decoded when first read: `status` over 1,000 pipelines reads neither, and parsing
  // them was two fifths of its JSON. They are ordinary enumerable properties to their readers (spread, JSON,
  // equality); the accessors are shared by every summary (a closure per row gave each object its own map).
  undecoded.set(summary, { counts: row.counts, runTally: row.run_tally });
  return Object.defineProperties(summary, LAZY_COLUMNS);
}

/**
 * The columns of `rm_pipelines` a status summary is read from, as one expression: a JSON array of the six plain
 * values (each as JSON by `json`, which gives `null` for NULL) and the six JSON columns, so a row is one value and one
 * `JSON.parse`, not twenty-one values and six (over 1,000 pipelines, each value a driver hands over and each parse
 * cost more than the bytes they hold; eight values a row cost a cold `status` 4.9M instructions more than one).
 * `number`, when given, writes the three integer columns instead: an integer's text is its JSON already, so SQLite
 * gives them as they are (`null` for NULL) rather than through json_quote (1M instructions of a cold `status`).
 *
 * @example
 * db.prepare(`SELECT ${statusSummarySelect((c) => `json_quote(${c})`)} FROM rm_pipelines`).pluck(true)
 */
export function statusSummarySelect(json: (column: string) => string, number: (column: string) => string = json): string {
  // The watermark's key alone (a status row shows no logical date), null unless both are set, as a summary decodes it.
  const watermark = 'CASE WHEN watermark_logical IS NULL THEN NULL ELSE watermark_date END';
  const plain = [...['pipeline', watermark, 'complete_through'].map(json), ...['misaligned', 'through_slots', 'latest_ms'].map(number)];
  const texts = ["coalesce(definition, 'null')", "coalesce(last_success, 'null')", "coalesce(last_failure, 'null')", 'slot_counts', 'running', "coalesce(control, 'null')"];
  // One concat_ws, not a chain of `||`: each `||` copied the text made so far (thirteen copies of a growing row,
  // 17% of the statement over 1,000 pipelines in SQLite). No value is NULL (the plain columns are quoted, the texts
  // coalesced or NOT NULL), so concat_ws, which skips NULLs, joins all twelve, in SQLite and PostgreSQL alike.
  return `concat('[', concat_ws(',', ${[...plain, ...texts].join(', ')}), ']')`;
}

/**
 * An `ORDER BY` key that puts pipeline names in the order of `compareNames` when the texts are compared byte by byte
 * (SQLite's BINARY, PostgreSQL's COLLATE "C"): in the pipeline alphabet (`PIPELINE_NAME_PATTERN`) that order is the
 * code points' but for `_`, which comes first, as `!` (below `-`, `.`, the digits and the letters) does.
 */
export const NAME_ORDER_SQL = "replace(pipeline, '_', '!')";

/** A status summary from the text of `statusSummarySelect` (a bigint may come as text). */
export function statusSummaryOfText(text: string): StatusSummary {
  const values = JSON.parse(text) as unknown[];
  const control = values[11] as { paused?: PipelineControl; retired?: PipelineControl } | null;
  const watermarkDate = values[1] as string | null;
  const latestMs = values[5] as number | string | null;
  return {
    pipeline: values[0] as string,
    definition: values[6] as PipelineDefinition | null,
    watermark: watermarkDate === null ? null : { date: watermarkDate },
    completeThrough: values[2] as string | null,
    lastSuccess: values[7] as LastOutcome | null,
    lastFailure: values[8] as LastOutcome | null,
    slotCounts: values[9] as Record<string, number>,
    misaligned: Number(values[3]),
    throughSlots: Number(values[4]),
    running: values[10] as RunningDate[],
    latestMs: latestMs === null ? null : Number(latestMs),
    paused: control?.paused ?? null,
    retired: control?.retired ?? null,
  };
}

/** The JSON of a decoded summary's `counts` and `runTally` not read yet; a decoded value replaces its text. */
const undecoded = new WeakMap<PipelineSummary, { counts: string | Record<string, number>; runTally: string | RunTally }>();

function lazyColumn<K extends 'counts' | 'runTally'>(key: K): PropertyDescriptor {
  return {
    enumerable: true,
    configurable: true,
    get(this: PipelineSummary): PipelineSummary[K] {
      const held = undecoded.get(this) as { counts: string | Record<string, number>; runTally: string | RunTally };
      const value = held[key];
      if (typeof value !== 'string') return value as PipelineSummary[K];
      const decoded = JSON.parse(value) as PipelineSummary[K];
      held[key] = decoded;
      return decoded;
    },
    set(this: PipelineSummary, value: PipelineSummary[K]) {
      const held = undecoded.get(this) as { counts: string | Record<string, number>; runTally: string | RunTally };
      held[key] = value;
    },
  };
}

const LAZY_COLUMNS: PropertyDescriptorMap = { counts: lazyColumn('counts'), runTally: lazyColumn('runTally') };

/** A pipeline summary as its row; `definitionText`, when given, is its definition's JSON already (the table writer keeps the one it wrote). */
export function pipelineRow(summary: PipelineSummary, definitionText?: string | null): PipelineRow {
  const counts = nonZero(summary.counts);
  return {
    pipeline: summary.pipeline,
    definition: definitionText !== undefined ? definitionText : summary.definition === null ? null : JSON.stringify(summary.definition),
    schedule: summary.definition?.schedule ?? null,
    timezone: summary.definition?.timezone ?? null,
    defined_at: summary.definedAt,
    version: summary.version,
    watermark_date: summary.watermark?.date ?? null,
    watermark_logical: summary.watermark?.logicalDate ?? null,
    complete_through: summary.completeThrough,
    counts: JSON.stringify(counts),
    last_success: summary.lastSuccess === null ? null : JSON.stringify(summary.lastSuccess),
    last_failure: summary.lastFailure === null ? null : JSON.stringify(summary.lastFailure),
    slot_counts: JSON.stringify(nonZero(summary.slotCounts)),
    misaligned: summary.misaligned,
    through_slots: summary.throughSlots,
    run_tally: JSON.stringify(sortedTally(summary.runTally)),
    position: summary.position,
    running: JSON.stringify(summary.running),
    latest_ms: summary.latestMs,
    control: controlText(summary),
    audit_entries: summary.auditEntries,
  };
}

/** A pipeline's pause and retirement as the row's `control` holds them: the set ones, in one key order, or null for neither. */
function controlText(summary: Pick<PipelineSummary, 'paused' | 'retired'>): string | null {
  if (summary.paused === null && summary.retired === null) return null;
  const control: { paused?: PipelineControl; retired?: PipelineControl } = {};
  if (summary.paused !== null) control.paused = { since: summary.paused.since, by: summary.paused.by, reason: summary.paused.reason };
  if (summary.retired !== null) control.retired = { since: summary.retired.since, by: summary.retired.by, reason: summary.retired.reason };
  return JSON.stringify(control);
}

/** The row's `control`, decoded. */
function controlOfText(text: string | null): Pick<PipelineSummary, 'paused' | 'retired'> {
  if (text === null) return { paused: null, retired: null };
  const control = JSON.parse(text) as { paused?: PipelineControl; retired?: PipelineControl };
  return { paused: control.paused ?? null, retired: control.retired ?? null };
}

/** Counts without the zero ones, in name order: one text for equal counts, however they were reached. */
function nonZero(counts: Record<string, number>): Record<string, number> {
  // Keys sorted by code unit (the default sort), a plain loop: entries, a filter and fromEntries per row showed in every append.
  const out: Record<string, number> = {};
  for (const key of Object.keys(counts).sort()) if (counts[key] !== 0) out[key] = counts[key] as number;
  return out;
}
