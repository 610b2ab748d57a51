import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { CalendarView, CellStatus } from '../../projections/views/calendar.js';
import type { OverviewFilter } from '../../projections/views/overview-filter.js';
import type { PipelineStatus } from '../../projections/views/pipeline-status.js';
import type { SchedulerHealthView } from '../../projections/views/scheduler-health.js';
import type { PoolWait } from '../../projections/views/pool-wait.js';
import type { StripCell } from '../../projections/views/status-strip.js';
import type { StripBucket } from '../../projections/views/history-strip.js';
import type { TaskDateGrid } from '../../projections/views/task-date-grid.js';
import type { AuditEntry, HistoryPoint } from '../../projections/views/pipeline-history.js';
import type { RunRow } from '../../projections/views/run-rows.js';
import type { VerifyReport } from '../audit/verify-chain.js';
import type { AsOf, DateRow, PendingView } from '../ledger/ledger-types.js';
import type { TaskGridView } from '../ledger/task-types.js';
import type { ChainHead } from '../store/event-store.js';

/** Where a page stands in time: now, or a point in the past. */
export type PageTime = {
  nowMs: number;
  asOf: AsOf | null;
  /** The position of the last event the page reflects. */
  position: number;
};

/** One line of the overview: `status`'s summary of the pipeline and a strip of its last slots. */
export type OverviewRow = { status: PipelineStatus; strip: StripCell[] };

/** `filter`: what the rows were narrowed to (`?status=&q=`); `total`: rows before it. */
/** `schedulers`: the health of each scheduler, on a page of the present only (health has no history). */
export type OverviewPage = { kind: 'overview'; time: PageTime; head: ChainHead; rows: OverviewRow[]; filter?: OverviewFilter; total?: number; schedulers?: SchedulerHealthView[] };

export type PipelinePage = {
  kind: 'pipeline';
  time: PageTime;
  definition: PipelineDefinition;
  watermark: string | null;
  completeThrough: string | null;
  calendar: CalendarView;
  /**
   * The calendar pages beside this one (`to` of each; `newer.to` null: the latest), the `from` and `limit` the page was
   * asked with, and `until`, the end of the range they page inside (a strip bucket's `to`), which they keep.
   */
  calendarPages: { older: { rows: number; to: string } | null; newer: { to: string | null } | null; from?: string; limit?: number; until?: string };
  /** The dates the calendar shows when the page was asked for a range or an older page (`from`/`to`: a history-strip bucket, or paging), or null for the most recent rows. */
  calendarRange: { from: string; to: string } | null;
  /** The whole history, a column per date or bucket of dates. */
  strip: StripBucket[];
  /** Tasks × the most recent dates with a run, for pipelines with tasks. */
  taskGrid: TaskDateGrid | null;
  /** The oldest pending dates (a bounded list on a served page of now) and the runs in flight. */
  pending: PendingView;
  /** Every pending date, listed or not. */
  pendingTotal: number;
  /** The pipeline's pause and retirement as they stood at the page's instant (null: not paused, not retired). */
  paused: PipelineControl | null;
  retired: PipelineControl | null;
  /** On a page of now: the pipeline's pool is full while it has dates that could start (they wait for a place). */
  poolWait?: PoolWait;
  /** A page of runs, newest first. */
  runs: RunRow[];
  /** The oldest run shown, when older runs are left (their page lists the runs before it), else null. */
  olderRuns: string | null;
  /** The run this page lists the runs before, or null for the newest runs. */
  runsBefore: string | null;
  hasTasks: boolean;
  points: HistoryPoint[];
  /** When the chart draws only the most recent dates as they stand now (a served page of now): how many; null when it draws the folded history. */
  chartDates: number | null;
  audit: AuditEntry[];
  /** Events read back for the audit entries when that stopped before the pipeline's first event, else null. */
  auditScanned: number | null;
  /** Every audit entry of the pipeline (the fold's, or the count its read-model row keeps), when known; the page lists the newest. */
  auditTotal?: number;
};

/** `timeZone`: the pipeline's zone, in which the page shows every instant. */
export type RunPage = { kind: 'run'; time: PageTime; timeZone: string; grid: TaskGridView; events: RecordedEvent[] };

/**
 * `zones`: each listed pipeline's zone, in which its entries' times are shown. `total`: every entry, when counted (a
 * report; a served page of now, from the counts the read models keep per pipeline); `older`: the `before` of the page of older entries on a served page (null: none left); `before`: the one
 * this page was asked with.
 */
export type AuditPage = { kind: 'audit'; time: PageTime; entries: AuditEntry[]; total: number | null; zones: Record<string, string>; older?: number | null; before?: number | null };

export type VerifyPage = { kind: 'verify'; time: PageTime; report: VerifyReport };

/**
 * One date of a pipeline: its state, every attempt (newest first), and of
 * the latest run the task grid, the events and the end of its output log
 * (`problem` says why there is none: still running, no file kept, changed).
 */
export type DatePage = {
  kind: 'date';
  time: PageTime;
  definition: PipelineDefinition;
  date: string;
  status: CellStatus;
  row: DateRow | null;
  runs: RunRow[];
  grid: TaskGridView | null;
  events: RecordedEvent[];
  log: { path: string | null; text: string; cut: boolean; problem: string | null } | null;
  watermark: string | null;
  completeThrough: string | null;
};

export type Page = OverviewPage | PipelinePage | RunPage | AuditPage | VerifyPage | DatePage;
