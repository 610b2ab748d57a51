import type { PipelineDefined } from './pipeline-defined.js';
import type { PipelinePaused } from './pipeline-paused.js';
import type { PipelineRedefined } from './pipeline-redefined.js';
import type { PipelineRetired } from './pipeline-retired.js';
import type { PipelineUnpaused } from './pipeline-unpaused.js';
import type { PipelineUnretired } from './pipeline-unretired.js';
import type { RetryScheduled } from './retry-scheduled.js';
import type { RunAbandoned } from './run-abandoned.js';
import type { RunCleared } from './run-cleared.js';
import type { RunFailed } from './run-failed.js';
import type { RunHeartbeat } from './run-heartbeat.js';
import type { RunInterrupted } from './run-interrupted.js';
import type { RunMarked } from './run-marked.js';
import type { RunStarted } from './run-started.js';
import type { RunSucceeded } from './run-succeeded.js';
import type { TaskStateChanged } from './task-state-changed.js';

/** Every event runledger records, discriminated on `type`. */
export type LedgerEvent =
  | PipelineDefined
  | PipelineRedefined
  | RunStarted
  | RunSucceeded
  | RunFailed
  | RunCleared
  | RunHeartbeat
  | RunAbandoned
  | RunInterrupted
  | TaskStateChanged
  | RunMarked
  | RetryScheduled
  | PipelinePaused
  | PipelineUnpaused
  | PipelineRetired
  | PipelineUnretired;

/** The name of every event runledger records. */
export type EventType = LedgerEvent['type'];
