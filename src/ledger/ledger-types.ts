import type { PipelineControl } from '../../projections/pipeline-control.js';
import type { RunOutput, RunType } from '../../events/types/common.js';
import type { EventType } from '../../events/types/ledger-event.js';
import type { ClearedBecause, DateStatus, ManualMark, RetryProgress } from '../../projections/date-state.js';
import type { PendingSlot } from '../../projections/pending.js';
import type { BlockedBy } from '../../projections/upstream-slots.js';
import type { RunRecord } from '../../projections/run-history.js';
import type { DataInterval } from '../../projections/slot.js';
import type { Duration } from './library-options.js';

/** `asOf`: an event position, or an instant; a query then answers as the ledger stood at that point. */
export type AsOf = { position: number } | { instant: string };

/** Filters of `log`; every one given narrows the result. Instants are RFC 3339. */
export type LogInput = {
  pipeline?: string;
  date?: string;
  runId?: string;
  types?: EventType[];
  actor?: string;
  since?: string;
  until?: string;
  asOf?: AsOf;
  /** Keep only the last n matching events. */
  limit?: number;
};

export type StartInput = {
  pipeline: string;
  /** A date key, or any instant that is exactly a slot's logical date (or, for manual runs, any instant). */
  date: string;
  runType?: RunType;
  force?: boolean;
  /** How long the run may go without a heartbeat: `"1h"`, `"30m"` (as `--lease`), or milliseconds; default the pipeline's. */
  lease?: Duration;
  /** @deprecated Use `lease` (`"1h"` or milliseconds); `leaseMs` works until the next minor version. */
  leaseMs?: number;
  /**
   * Start only if the key has had exactly this many attempts: an optimistic
   * precondition for runners that decided from a state they read earlier
   * (`ledger.changed` otherwise).
   */
  expectAttempts?: number;
  /** Explicit data interval of a manual run (default: the timetable's interval for its date). */
  dataInterval?: { start: string; end: string };
  reason?: string;
  /**
   * A run id of the caller's own (OpenLineage ingest keeps the producer's
   * runId); it must not name a run already in the ledger. Default: a new ULID.
   */
  runId?: string;
  /** When the key is running `runId`, record that run as failed with `message` (code `superseded`) and start anyway. */
  supersede?: { runId: string; message: string };
  /** The OpenLineage job and event time the run came from, recorded on it. */
  openlineage?: { namespace: string; job: string; eventTime: string };
  /** The pool the run takes a place in and the pool's size as the runner keeps it (`--pool NAME=N`), recorded on it. */
  pool?: { name: string; size: number };
  /** When the run really started, if not now: the producer's own instant (OpenLineage ingest passes its `eventTime`). */
  at?: string;
};

export type StartResult = {
  runId: string;
  pipeline: string;
  date: string;
  attempt: number;
  runType: RunType;
  logicalDate: string;
  dataInterval: DataInterval;
  runAfter: string;
  leaseExpiresAt: string;
  offSchedule: boolean;
  forced: boolean;
  takeoverOf: string | null;
  /** Set when the pipeline is paused: the start went ahead (a direct start always does), and says so. */
  paused?: PipelineControl;
};

export type CompletionResult = {
  runId: string;
  pipeline: string;
  date: string;
  status: 'success' | 'failed' | 'interrupted' | 'running';
  /** True when this exact completion had already been recorded: nothing new was written. */
  repeated: boolean;
  leaseExpiresAt?: string;
};

export type ClearInput = {
  pipeline: string;
  dates?: string[];
  from?: string;
  to?: string;
  onlyFailed?: boolean;
  reason?: string;
  dryRun?: boolean;
  /**
   * Clear as well every date of every downstream pipeline that waits for a cleared date, transitively,
   * in the same atomic append; each such clear names the clear it came from (`clear --downstream`).
   */
  downstream?: boolean;
};

/** A date a cascade cleared (or would clear, on a dry run), and the clear of the upstream date it came from. */
export type DownstreamClear = { pipeline: string; date: string; runId: string; previousStatus: string; cause: { pipeline: string; date: string } };

/** What `mark` takes: the dates (or a range), what to mark them as (`success: true` or `skipped: true`, one of them), and why (required). */
export type MarkInput = {
  pipeline: string;
  dates?: string[];
  from?: string;
  to?: string;
  success?: boolean;
  skipped?: boolean;
  reason: string;
  dryRun?: boolean;
};

export type MarkResult = {
  pipeline: string;
  status: 'success' | 'skipped';
  dryRun: boolean;
  /** Each key marked, with the mark's id (a clear names it) and the status it had before. */
  marked: Array<{ date: string; runId: string; previousStatus: string }>;
  /** Keys already in the status asked for: nothing recorded for them. */
  unchanged: Array<{ date: string; status: string; why: string }>;
};

export type ClearResult = {
  pipeline: string;
  dryRun: boolean;
  cleared: Array<{ date: string; runId: string; previousStatus: string }>;
  skipped: Array<{ date: string; status: string; why: string }>;
  /** With `downstream`: the dates of downstream pipelines cleared with them, in dependency order then by date. */
  downstream?: DownstreamClear[];
};

export type DateRow = {
  date: string;
  /** `missing`: a due slot with no run; `not-due`: a slot whose run-after is still ahead (a range past now), never missing. */
  status: 'missing' | 'not-due' | DateStatus;
  runId: string | null;
  attempt: number | null;
  attempts: number;
  runType: RunType | null;
  logicalDate: string;
  dataInterval: DataInterval;
  startedAt: string | null;
  finishedAt: string | null;
  leaseExpiresAt: string | null;
  metrics: Record<string, unknown> | null;
  outputs: RunOutput[];
  error: string | null;
  errorCode: string | null;
  offSchedule: boolean;
  stalled: boolean;
  /** A date not done that waits for an upstream slot that is not done: the first such slot. */
  blockedBy?: BlockedBy;
  /** A date a cascade cleared: the upstream clear it came from, who made it and why. */
  clearCause?: ClearedBecause;
  /** Set by hand (`runledger mark`): to what, by whom, why, when; no command ran. */
  mark?: ManualMark;
  /** Under a retry policy: the attempt within it, of how many, and when the next one may start while it waits. */
  retry?: RetryProgress;
};

/**
 * `nextFrom`: present when the query had a `limit`; the `from` that continues the listing where this page
 * stopped (pass it back with the same `to`), or null when the range ends on this page.
 */
export type StateView = { pipeline: string; watermark: string | null; completeThrough: string | null; position: number; dates: DateRow[]; nextFrom?: string | null };
export type WatermarkView = { pipeline: string; watermark: string | null; completeThrough: string | null };
export type PendingView = {
  pipeline: string;
  from: string | null;
  to: string | null;
  pending: PendingSlot[];
  inFlight: Array<{ date: string; runId: string; leaseExpiresAt: string }>;
};
export type RunsView = { pipeline: string; runs: RunRecord[] };
export type RangeInput = { pipeline: string; from?: string; to?: string; asOf?: AsOf };

/**
 * `state` over a range, a page at a time: `limit` rows at most (oldest first); the view's `nextFrom` is the
 * `from` of the next page.
 */
export type StateInput = RangeInput & {
  limit?: number;
  /** false: every row's metrics null and outputs `[]`, so no result is read (views of states and errors: a page's strip). */
  metrics?: boolean;
};
