import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import type { DateState } from '../../projections/date-state.js';
import type { RunRecord } from '../../projections/run-history.js';
import type { PipelineSummary, StatusSummary } from '../../projections/pipeline-summary.js';
import type { DateRow, PipelineRow, RunRow, StripDate } from './read-model-rows.js';

/** Progress of a rebuild: events folded so far of all there are. */
export type RebuildProgress = (done: number, total: number) => void;

/** What `rebuild` did. */
export type RebuildResult = { pipelines: number; events: number; dates: number; runs: number };

/** Which dates of a pipeline a range read returns. */
export type DateQuery = {
  /** Inclusive bounds on the logical date's instant, in ms. */
  fromMs?: number;
  toMs?: number;
  /** Only dates of this status (e.g. `running`, for the runs in flight). */
  status?: string;
  /** Only these keys. */
  keys?: readonly string[];
  /** Without the values kept in events (metrics, outputs, whole long errors): for answers that only need the state. */
  light?: boolean;
  /**
   * Without metrics and outputs (stand-ins: `{}` and `[]` where a run recorded some), errors whole: for
   * answers that show states and errors but no results (pending, a page's strip), so no result event is read.
   */
  withoutResults?: boolean;
};

/** Which runs of a pipeline a run list returns: oldest first; `before` pages back from a run's start position. */
export type RunQuery = {
  date?: string;
  limit?: number;
  before?: number;
  /** Metrics as stand-ins and errors as excerpts: for outcomes and durations (the metrics scrape). */
  light?: boolean;
};

/** Every row of one pipeline as stored, for `verify --projections`. */
/** One row of `statuses`: a date's key, status, lease expiry and logical instant (epoch ms). */
export type StatusVisitor = (date: string, status: string, leaseExpiresAt: string, logicalMs: number) => void;

export type StoredRows = { summary: PipelineRow | null; dates: DateRow[]; runs: RunRow[] };

/**
 * The read models a store keeps beside its events, written by the table writer inside every append's
 * transaction (see read-model-fold.ts). Every answer here equals the fold of the events; `rebuild`
 * makes them so from scratch. Absent on a store that keeps none (the in-memory and export stores):
 * the ledger then folds the events, as it always did.
 *
 * @example
 * const summary = await store.readModels?.summary('etl_orders');
 */
export interface ReadModels {
  /**
   * Brings the tables up to the events when they lag (another process of an older release appended) or
   * are missing or of another projection version (rebuilds them, reporting progress). False when they
   * cannot be trusted and cannot be fixed from here (a read-only file): the caller folds the events.
   */
  ensure(progress?: RebuildProgress): Promise<boolean>;
  /** Drops and refolds every table from the events, in one transaction. */
  rebuild(progress?: RebuildProgress): Promise<RebuildResult>;
  summary(pipeline: string): Promise<PipelineSummary | null>;
  /**
   * For a write's decision, which only reads it: the pipeline's summary as this connection last wrote it, shared (not
   * to be changed), while no other connection has committed since it wrote it; undefined when `summary` must read it. Its
   * definition, version, watermark and position are the row's; its counts may still list zeros the row leaves out.
   */
  writtenSummary?(pipeline: string): PipelineSummary | undefined;
  /** Every pipeline's summary, by name. */
  summaries(): Promise<PipelineSummary[]>;
  /**
   * Every pipeline's status summary in the order of `compareNames` (`NAME_ORDER_SQL`: a listing's, so `status` sorts
   * nothing), each decoded and handed to `visit` in turn and not kept: `status` over 1,000 pipelines turns each into
   * its row at once, so they die young instead of being copied through every young-generation collection of the loop
   * (the stores hand over the rows' raw values at once: SQLite's `all()` cost a cold `status` fewer instructions than
   * a step per row). `visit` must not read the store.
   */
  eachStatusSummary(visit: (summary: StatusSummary) => void): Promise<void>;
  /** Every defined pipeline's definition, by name: the definition column alone (`pipelines`). */
  definitions(): Promise<PipelineDefinition[]>;
  /** A pipeline's dates the query selects, ascending by logical date. */
  dates(pipeline: string, query?: DateQuery): Promise<DateState[]>;
  /**
   * What the overview's strip draws of a pipeline's dates whose logical instant is in [fromMs, toMs] (epoch ms), ascending:
   * a few columns of each (see `StripDate`), not a whole `DateState`. 1,000 pipelines' strips read 30 rows each per
   * overview; their whole rows (25 columns) were 46 of an overview's 68 MB of garbage.
   */
  stripDates(pipeline: string, fromMs: number, toMs: number): Promise<StripDate[]>;
  runs(pipeline: string, query?: RunQuery): Promise<RunRecord[]>;
  /**
   * The key, status, lease and logical instant of every date whose logical date is after `afterMs`, handed
   * to `visit` one row at a time: what `status` looks up while it walks the slots after complete-through. No
   * array of them is built: the rows of ten years of hours, held at once, were most of a report's peak memory.
   */
  statuses(pipeline: string, afterMs: number, visit: StatusVisitor): Promise<void>;
  /**
   * One run, with its pipeline and its place in the run list (`seq`, its start position): of `pipeline` when given,
   * else of the pipeline whose run of that id started first (two pipelines' runs can share an id).
   */
  run(runId: string, pipeline?: string): Promise<(RunRecord & { pipeline: string; seq: number }) | null>;
  /** Every pipeline that has a row, by name. */
  pipelines(): Promise<string[]>;
  /** The audit entries of every pipeline's events, from the count each pipeline's row keeps (no event is read). */
  auditEntries(): Promise<number>;
  /** One pipeline's rows as stored (`verify --projections`). */
  storedRows(pipeline: string): Promise<StoredRows>;
}
