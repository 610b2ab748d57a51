import type { RunLog, RunOutput, RunType } from '../events/types/common.js';
import type { RecordedEvent } from '../events/recorded-event.js';
import type { DataInterval } from './slot.js';

export type RunStatus = 'running' | 'success' | 'failed' | 'interrupted' | 'cleared' | 'abandoned';

/** One attempt at one date key (the rows of `runs`). */
export type RunRecord = {
  runId: string;
  date: string;
  attempt: number;
  runType: RunType;
  status: RunStatus;
  logicalDate: string;
  dataInterval: DataInterval;
  /** The producer's own start time (`at`, OpenLineage `eventTime`) when it sent one, else when the start was recorded. */
  startedAt: string;
  /** The end, by the same rule as `startedAt`; a duration is `finishedAt - startedAt`. */
  finishedAt: string | null;
  leaseExpiresAt: string;
  actor: string;
  forced: boolean;
  offSchedule: boolean;
  metrics: Record<string, unknown> | null;
  error: string | null;
  /** The log file of the command's output its outcome recorded, path and sha256 (absent when none was kept). */
  log?: RunLog;
  /** The OpenLineage job and event time of an ingested run (absent otherwise). */
  openlineage?: { namespace: string; job: string; eventTime: string };
  /** The datasets a successful run wrote (absent when it named none). */
  outputs?: RunOutput[];
  /** Tasks that reported no state before the producer's verdict ended the run (absent when every task reported). */
  unreportedTasks?: string[];
  /** A failed attempt that was scheduled to be tried again: the next attempt (within the policy), of how many, and when. */
  retry?: { attempt: number; of: number; nextAt: string };
};

/** Every run of a pipeline, in start order, keyed by run id. */
export type RunHistory = { runs: Map<string, RunRecord> };

export function initialRunHistory(): RunHistory {
  return { runs: new Map() };
}

/**
 * Folds one event into the run history. Like `evolve`, it updates the map it
 * is given. A result only lands on a run that is still `running`, matching
 * the fencing of the per-date state.
 */
export function evolveRunHistory(history: RunHistory, event: RecordedEvent): RunHistory {
  switch (event.type) {
    case 'PipelineDefined':
    case 'PipelineRedefined':
    case 'PipelinePaused':
    case 'PipelineUnpaused':
    case 'PipelineRetired':
    case 'PipelineUnretired':
    // A mark is no run (nothing ran); it is in the log, and in the date's state.
    case 'RunMarked':
    // Task rows are folded by projections/task-runs.ts; a run's outcome comes from its own RunSucceeded or RunFailed (S12).
    case 'TaskStateChanged':
      return history;
    case 'RunHeartbeat':
      update(history, event.data.runId, (r) => (r.status === 'running' ? { ...r, leaseExpiresAt: event.data.leaseExpiresAt } : r));
      return history;
    case 'RunStarted': {
      const d = event.data;
      history.runs.set(d.runId, {
        runId: d.runId,
        date: d.date,
        attempt: d.attempt,
        runType: d.runType,
        status: 'running',
        logicalDate: d.logicalDate,
        dataInterval: { start: d.dataInterval.start, end: d.dataInterval.end },
        startedAt: d.at ?? event.recordedAt,
        finishedAt: null,
        leaseExpiresAt: d.leaseExpiresAt,
        actor: event.metadata.actor,
        forced: d.force,
        offSchedule: d.offSchedule,
        metrics: null,
        error: null,
        ...(d.openlineage ? { openlineage: d.openlineage } : {}),
      });
      return history;
    }
    case 'RunSucceeded':
      update(history, event.data.runId, (r) =>
        r.status === 'running'
          ? { ...r, status: 'success', finishedAt: event.data.at ?? event.recordedAt, metrics: event.data.metrics, ...withLog(event.data.log), ...withOutputs(event.data.outputs), ...withUnreported(event.data.unreportedTasks) }
          : r,
      );
      return history;
    case 'RunFailed':
      update(history, event.data.runId, (r) =>
        r.status === 'running'
          ? { ...r, status: 'failed', finishedAt: event.data.at ?? event.recordedAt, error: event.data.error, ...withLog(event.data.log), ...withUnreported(event.data.unreportedTasks) }
          : r,
      );
      return history;
    case 'RetryScheduled':
      // The attempt stays failed; the retry is the next attempt, a run of its own when it starts.
      update(history, event.data.runId, (r) => (r.status === 'failed' ? { ...r, retry: { attempt: event.data.attempt, of: event.data.maxAttempts, nextAt: event.data.nextAt } } : r));
      return history;
    case 'RunInterrupted':
      update(history, event.data.runId, (r) =>
        r.status === 'running' ? { ...r, status: 'interrupted', finishedAt: event.data.at ?? event.recordedAt, error: `interrupted by ${event.data.by}: ${event.data.message}`, ...withLog(event.data.log) } : r,
      );
      return history;
    case 'RunAbandoned':
      update(history, event.data.runId, (r) =>
        r.status === 'running' ? { ...r, status: 'abandoned', finishedAt: event.recordedAt, error: 'lease expired' } : r,
      );
      return history;
    case 'RunCleared':
      // A clear closes the generation of the key's current run, whatever its outcome was.
      update(history, event.data.runId, (r) => (r.status === 'cleared' ? r : { ...r, status: 'cleared', finishedAt: r.finishedAt ?? event.recordedAt }));
      return history;
    default: {
      const unknown: never = event;
      throw new Error(`evolveRunHistory: unhandled event ${JSON.stringify((unknown as { type: unknown }).type)}`);
    }
  }
}

function withLog(log: RunLog | undefined): { log?: RunLog } {
  return log ? { log: { path: log.path, sha256: log.sha256 } } : {};
}

function withOutputs(outputs: readonly RunOutput[]): { outputs?: RunOutput[] } {
  return outputs.length > 0 ? { outputs: outputs.map((o) => (typeof o === 'string' ? o : { namespace: o.namespace, name: o.name })) } : {};
}

function withUnreported(tasks: readonly string[] | undefined): { unreportedTasks?: string[] } {
  return tasks && tasks.length > 0 ? { unreportedTasks: [...tasks] } : {};
}

function update(history: RunHistory, runId: string, change: (run: RunRecord) => RunRecord): void {
  const run = history.runs.get(runId);
  if (run) history.runs.set(runId, change(run));
}
