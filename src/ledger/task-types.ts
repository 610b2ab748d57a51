import type { TaskState } from '../../events/types/task-state-changed.js';
import type { RunOutcome } from '../../projections/derive-run-outcome.js';
import type { RunRecord } from '../../projections/run-history.js';
import type { TaskGridRow } from '../../projections/task-grid.js';
import type { AsOf } from './ledger-types.js';

/** What `ledger.task` takes: one task state of a run of a pipeline defined with tasks. */
export type TaskInput = {
  runId: string;
  taskId: string;
  /** One of Airflow's reportable states; terminal: success, failed, skipped, upstream_failed, removed. */
  state: TaskState | (string & {});
  /** Default: counted by the ledger (a new try after `up_for_retry`, or when a finished task runs again). */
  tryNumber?: number;
  error?: string | null;
  reason?: string;
  /** When the task really changed state, if not now: the producer's own instant (OpenLineage ingest passes its `eventTime`). */
  at?: string;
};

export type TaskResult = {
  runId: string;
  pipeline: string;
  date: string;
  taskId: string;
  state: TaskState;
  tryNumber: number;
  /** True when this exact state (same try) had already been recorded: nothing new was written. */
  repeated: boolean;
  /** The run's state as its tasks imply it; `success`/`failed` were recorded with this task's state. */
  run: RunOutcome;
};

/** One row of a run's task grid (`runs <pipeline> --run <id>`); `state` null means not reported yet (Airflow's `None`). */
export type TaskRow = TaskGridRow;

export type TaskGridView = { pipeline: string; run: RunRecord; tasks: TaskRow[]; outcome: RunOutcome | null };

export type TaskGridInput = { pipeline: string; runId: string; asOf?: AsOf };
