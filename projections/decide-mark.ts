import type { RunMarked } from '../events/run-marked.js';
import type { PipelineState } from './pipeline-state.js';
import { accept, refuse, type Decision } from './refusal.js';
import type { Slot } from './slot.js';

export type MarkCommand = {
  /** The slots to mark, each with a new id for its mark (ids are randomness, kept out of the core). */
  slots: Array<{ slot: Slot; markId: string }>;
  status: RunMarked['data']['status'];
};

export type MarkDecision = {
  events: RunMarked[];
  marked: Array<{ date: string; runId: string; previousStatus: RunMarked['data']['previousStatus'] }>;
  /** Keys already in the status asked for: nothing recorded for them. */
  unchanged: Array<{ date: string; status: string; why: string }>;
};

/**
 * Which keys a mark sets to `success` or `skipped`, without running anything. A key that is
 * running is refused (the whole mark, nothing written): its run would be fenced out from under
 * it, so wait for it or clear it first. A key already in the status asked for is left as it is.
 *
 * @example
 * decideMark(state, { slots: [{ slot, markId }], status: 'skipped' })
 */
export function decideMark(state: PipelineState, command: MarkCommand): Decision<MarkDecision> {
  const decision: MarkDecision = { events: [], marked: [], unchanged: [] };
  for (const { slot, markId } of command.slots) {
    const date = state.dates.get(slot.date);
    if (date?.status === 'running') {
      return refuse(
        'ledger.alreadyRunning',
        `${state.pipeline} ${slot.date} is running as run ${date.runId} (lease until ${date.leaseExpiresAt}); nothing was marked. Wait for it to finish, or clear it first`,
      );
    }
    if (date?.status === command.status) {
      decision.unchanged.push({ date: slot.date, status: date.status, why: date.mark ? `already marked ${date.status}` : `already ${date.status}` });
      continue;
    }
    const previousStatus = date?.status ?? 'missing';
    decision.events.push({
      type: 'RunMarked',
      schemaVersion: 1,
      data: {
        pipeline: state.pipeline,
        date: slot.date,
        runId: markId,
        status: command.status,
        logicalDate: slot.logicalDate,
        dataInterval: slot.dataInterval,
        runAfter: slot.runAfter,
        previousStatus,
      },
    });
    decision.marked.push({ date: slot.date, runId: markId, previousStatus });
  }
  return accept(decision);
}
