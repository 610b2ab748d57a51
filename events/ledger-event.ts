import { z } from 'zod';
import type { LedgerEvent as PlainLedgerEvent } from './types/ledger-event.js';
import type { Equals } from './same-type.js';
import { PipelineDefined } from './pipeline-defined.js';
import { PipelinePaused } from './pipeline-paused.js';
import { PipelineRedefined } from './pipeline-redefined.js';
import { PipelineRetired } from './pipeline-retired.js';
import { PipelineUnpaused } from './pipeline-unpaused.js';
import { PipelineUnretired } from './pipeline-unretired.js';
import { RetryScheduled } from './retry-scheduled.js';
import { RunAbandoned } from './run-abandoned.js';
import { RunCleared } from './run-cleared.js';
import { RunFailed } from './run-failed.js';
import { RunHeartbeat } from './run-heartbeat.js';
import { RunInterrupted } from './run-interrupted.js';
import { RunMarked } from './run-marked.js';
import { RunStarted } from './run-started.js';
import { RunSucceeded } from './run-succeeded.js';
import { TaskStateChanged } from './task-state-changed.js';

/** Every event runledger records, discriminated on `type`. */
export const LedgerEvent = z.discriminatedUnion('type', [
  PipelineDefined,
  PipelineRedefined,
  RunStarted,
  RunSucceeded,
  RunFailed,
  RunCleared,
  RunHeartbeat,
  RunAbandoned,
  RunInterrupted,
  TaskStateChanged,
  RunMarked,
  RetryScheduled,
  PipelinePaused,
  PipelineUnpaused,
  PipelineRetired,
  PipelineUnretired,
]);
export type LedgerEvent = PlainLedgerEvent;
true satisfies Equals<LedgerEvent, z.infer<typeof LedgerEvent>>;
export type { EventType } from './types/ledger-event.js';
