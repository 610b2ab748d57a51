import type { RunCleared } from '../events/types/run-cleared.js';
import type { PipelineState } from './pipeline-state.js';

export type ClearCommand = { dates: string[]; onlyFailed: boolean };

export type ClearDecision = {
  events: RunCleared[];
  cleared: Array<{ date: string; runId: string; previousStatus: RunCleared['data']['previousStatus'] }>;
  skipped: Array<{ date: string; status: string; why: string }>;
};

/**
 * Which of the given keys a clear closes. History is never deleted: each
 * cleared key gets a `RunCleared`, which makes it pending again and fences out
 * the run that was working on it.
 *
 * @example
 * decideClear(state, { dates: ['2026-11-04'], onlyFailed: false }).cleared
 */
export function decideClear(state: PipelineState, command: ClearCommand): ClearDecision {
  const decision: ClearDecision = { events: [], cleared: [], skipped: [] };
  for (const key of command.dates) {
    const date = state.dates.get(key);
    if (!date) {
      decision.skipped.push({ date: key, status: 'missing', why: 'never ran' });
    } else if (date.status === 'cleared') {
      decision.skipped.push({ date: key, status: 'cleared', why: 'already cleared' });
    } else if (command.onlyFailed && date.status !== 'failed') {
      decision.skipped.push({ date: key, status: date.status, why: 'not failed (--only-failed)' });
    } else {
      const previousStatus = date.status;
      decision.events.push({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: state.pipeline, date: key, runId: date.runId, previousStatus } });
      decision.cleared.push({ date: key, runId: date.runId, previousStatus });
    }
  }
  return decision;
}
