import type { DatasetRef, RunLog, RunOutput } from '../events/types/common.js';
import type { RetryScheduled } from '../events/types/retry-scheduled.js';
import type { RunFailed } from '../events/types/run-failed.js';
import type { RunHeartbeat } from '../events/types/run-heartbeat.js';
import type { RunInterrupted } from '../events/types/run-interrupted.js';
import type { RunSucceeded } from '../events/types/run-succeeded.js';
import type { PipelineState } from './pipeline-state.js';
import { accept, refuse, type Decision } from './refusal.js';

/** `at`: the producer's own instant of the completion (OpenLineage `eventTime`), recorded on the event when given. */
export type CompletionCommand =
  | { kind: 'succeed'; runId: string; date: string; metrics: Record<string, unknown>; outputs: RunOutput[]; log?: RunLog; at?: string; inputs?: DatasetRef[] }
  | { kind: 'fail'; runId: string; date: string; error: string; code: string | null; log?: RunLog; at?: string; retry?: RetryPlan }
  | { kind: 'heartbeat'; runId: string; date: string; leaseMs: number; at?: string }
  | { kind: 'interrupt'; runId: string; date: string; by: string; message: string; log?: RunLog; at?: string };

/** A failure that will be tried again: the next attempt's number within the policy, out of how many, and when. */
export type RetryPlan = { attempt: number; maxAttempts: number; nextAt: string; delayMs: number };

/** `events` is empty when the same completion was already recorded (idempotent repeat). */
export type CompletionDecision = { events: Array<RunSucceeded | RunFailed | RunHeartbeat | RunInterrupted | RetryScheduled>; repeated: boolean };

/**
 * Fencing: a completion must name the key's current run. A repeat of the
 * completion already recorded is a no-op, not an error.
 *
 * @example
 * decideCompletion(state, { kind: 'succeed', runId, date, metrics: {}, outputs: [] }, { nowMs })
 */
export function decideCompletion(state: PipelineState, command: CompletionCommand, context: { nowMs: number }): Decision<CompletionDecision> {
  const { pipeline } = state;
  const date = state.dates.get(command.date);
  const what = { heartbeat: 'heartbeat', succeed: 'success', fail: 'failure', interrupt: 'interruption' }[command.kind];
  if (!date) {
    return refuse('ledger.unknownRun', `run ${command.runId} has no start for ${pipeline} ${command.date}; start the run first`);
  }
  if (date.runId !== command.runId) {
    return refuse(
      'ledger.staleRun',
      `run ${command.runId} of ${pipeline} ${command.date} was superseded by attempt ${date.attempt} (run ${date.runId}); its ${what} is not recorded`,
    );
  }
  if (date.status === 'cleared') {
    return refuse(
      'ledger.staleRun',
      `run ${command.runId} of ${pipeline} ${command.date} was cleared at ${date.clearedAt}; its ${what} is not recorded. Start a new attempt instead`,
    );
  }
  const ref = { pipeline, date: command.date, runId: command.runId };
  if (date.status === 'running') {
    switch (command.kind) {
      case 'succeed':
        return accept({ events: [{ type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, metrics: command.metrics, outputs: command.outputs, ...logOf(command), ...atOf(command), ...(command.inputs && command.inputs.length > 0 ? { inputs: command.inputs } : {}) } }], repeated: false });
      case 'fail': {
        const failed: RunFailed = { type: 'RunFailed', schemaVersion: 1, data: { ...ref, error: command.error, code: command.code, ...logOf(command), ...atOf(command) } };
        // The retry goes in the same append as the failure: no reader ever sees the date failed in between.
        if (!command.retry) return accept({ events: [failed], repeated: false });
        const retry: RetryScheduled = { type: 'RetryScheduled', schemaVersion: 1, data: { ...ref, ...command.retry } };
        return accept({ events: [failed, retry], repeated: false });
      }
      case 'interrupt':
        return accept({ events: [{ type: 'RunInterrupted', schemaVersion: 1, data: { ...ref, by: command.by, message: command.message, ...logOf(command), ...atOf(command) } }], repeated: false });
      case 'heartbeat': {
        const leaseExpiresAt = new Date(context.nowMs + command.leaseMs).toISOString();
        return accept({ events: [{ type: 'RunHeartbeat', schemaVersion: 1, data: { ...ref, leaseExpiresAt, ...atOf(command) } }], repeated: false });
      }
    }
  }
  const repeat =
    (command.kind === 'succeed' && date.status === 'success') ||
    (command.kind === 'fail' && (date.status === 'failed' || date.status === 'up_for_retry')) ||
    (command.kind === 'interrupt' && date.status === 'interrupted');
  if (repeat) return accept({ events: [], repeated: true });
  const finished =
    date.error?.code === 'abandoned'
      ? 'was abandoned when its lease expired'
      : date.status === 'interrupted'
        ? 'was interrupted'
        : date.status === 'up_for_retry'
          ? 'already failed (a retry is scheduled)'
          : `already ${date.status === 'success' ? 'succeeded' : 'failed'}`;
  return refuse(
    'ledger.runFinished',
    `run ${command.runId} of ${pipeline} ${command.date} ${finished}; its ${what} is not recorded. Start a new attempt to run it again`,
  );
}

/** The `at` field only when the caller gave the producer's time: otherwise the event is as before. */
function atOf(command: { at?: string }): { at?: string } {
  return command.at === undefined ? {} : { at: command.at };
}

/** The log field only when a log was kept: an outcome without one is the same event as before logs existed. */
function logOf(command: { log?: RunLog }): { log?: RunLog } {
  return command.log === undefined ? {} : { log: command.log };
}
