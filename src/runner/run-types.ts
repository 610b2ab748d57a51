import type { RunLog, RunType } from '../../events/types/common.js';
import type { RecordedTextLimits } from '../../events/limits.js';
import type { PlanReason } from '../../projections/plan-runs.js';
import type { DataInterval } from '../../projections/slot.js';
import type { BlockedBy } from '../../projections/upstream-slots.js';

/** User metrics recorded with a success (rows, rejected, revenue, …). */
export type Metrics = Record<string, unknown>;

/** The run a task is asked to do: one claimed slot. */
export type RunContext = {
  pipeline: string;
  date: string;
  runId: string;
  attempt: number;
  runType: RunType;
  logicalDate: string;
  dataInterval: DataInterval;
  runAfter: string;
  /** Why the slot was picked (`missing`, `failed`, …); `manual` for `withRun`. */
  reason: PlanReason | 'requested';
  /** The pipeline's caps (`define --max-metrics-bytes` / `--max-error-bytes`): metrics over the first fail the run; a longer error text is cut to fit. */
  limits: RecordedTextLimits;
};

/**
 * How a task ended. Expected failures are values; the runner records them with `fail`. `log`: the run's log
 * file (path and sha256), recorded with the outcome whatever it is.
 */
export type TaskOutcome =
  | { status: 'success'; metrics: Metrics; outputs?: string[]; exitCode?: number | null; log?: RunLog }
  | { status: 'failed'; error: string; code: string | null; exitCode?: number | null; signal?: string | null; log?: RunLog };

/**
 * The work of one run. `signal` aborts when the runner is interrupted or the
 * run is fenced out (cleared or taken over while it worked): stop soon.
 */
export type RunTask = (run: RunContext, signal: AbortSignal) => Promise<TaskOutcome>;

/** How the note of a slot left unstarted because the ledger failed begins; the rest is the store's message in parentheses. */
export const STORE_NOTE = 'not started: the ledger could not be read or written';

/**
 * Why a slot the plan picked was not run. `upstream`: it waits for an upstream slot that is not done;
 * `waitingForPrevious`: the pipeline depends on past and the slot before it is not done;
 * `waitingForRetry`: its retry was scheduled and the runner stopped before its time.
 */
/** `oldRunAlive`: a stalled run started on this host still has a process here; its takeover waits for it. */
export type SkipReason = 'inFlight' | 'changed' | 'stopped' | 'interrupted' | 'upstream' | 'waitingForPrevious' | 'waitingForRetry' | 'oldRunAlive';

/** One line of a backfill or catchup summary (the `runs[]` of `--json`). */
export type RunReport = {
  date: string;
  runId: string | null;
  attempt: number | null;
  /** `interrupted`: the runner was stopped while this run worked; recorded as such, pending, not a failure. */
  /** `unrecorded`: the command finished (see `code`… and `error`) but its outcome could not be written; the ledger still shows the date running. */
  status: 'success' | 'failed' | 'interrupted' | 'unrecorded' | 'skipped';
  exitCode: number | null;
  durationMs: number;
  /** Why the slot was picked; null for a slot skipped because it was in flight when planned. */
  reason: PlanReason | null;
  /** The signal that ended the command, if one did. */
  signal: string | null;
  /** Failure: the error recorded in `RunFailed`, and its code (`exit:1`, `interrupted`, …). */
  error: string | null;
  code: string | null;
  /** Skips: why, and a one-line explanation. */
  skipReason: SkipReason | null;
  note: string | null;
  /** Under a retry policy (`--retries`): the attempt this was within it, of how many. */
  retry?: { attempt: number; of: number };
};

/** What a backfill or catchup did (`--json`: `{ pipeline, runs, succeeded, failed, skipped }`). */
export type RunSummary = {
  pipeline: string;
  runType: Extract<RunType, 'backfill' | 'catchup' | 'scheduled'>;
  runs: RunReport[];
  succeeded: number;
  failed: number;
  /** Runs whose command finished but whose outcome the ledger could not record (they stay running until their lease runs out). */
  unrecorded: number;
  skipped: number;
  /** A backfill's resolved bounds (first key, and the inclusive end: a bare --to on an hourly pipeline is the end of that day). */
  range?: { from: string; to: string };
  /** Runs the stop caught while they worked (recorded as interrupted, run again by the same command). */
  interruptedRuns: number;
  /** What stopped the runner (`SIGINT`, `SIGTERM`, or `aborted` for an AbortSignal without a name), if anything did. */
  interrupted: string | null;
  /** True when the runner stopped starting slots after a failure (no `--continue-on-failure`). */
  stoppedAfterFailure: boolean;
  durationMs: number;
  /** The store error that stopped the runner from starting more slots (the summary is still returned). */
  storeError?: string;
  /** Dates left alone because they wait for upstream slots that are not done (without `--wait-upstream`), each with the first. */
  blocked?: Array<{ date: string; blockedBy: BlockedBy }>;
  /** Failed attempts that were scheduled to be tried again (each also a run in the ledger). */
  retried: number;
  /** Depends on past: the first date that could not run, and the slot before it that was not done; null when none. */
  waitingForPrevious: { date: string; previous: string; status: string } | null;
};

/** Progress as it happens, for the reporter (bar or lines). */
export type RunProgress =
  | { kind: 'started'; run: RunContext }
  | { kind: 'finished'; report: RunReport }
  | { kind: 'output'; stream: 'stdout' | 'stderr'; date: string; line: string }
  /** Something the runner says once (e.g. the pipeline's own limit lowered --max-active-runs). */
  | { kind: 'note'; text: string }
  /** An attempt failed and will be tried again: attempt `attempt` of `of` at `nextAt`. */
  | { kind: 'retry'; date: string; runId: string; error: string; attempt: number; of: number; nextAt: string };
