import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { Ledger } from '../ledger/ledger.js';
import { timetableOfDefinition } from '../ledger/load-pipeline.js';

/** When the scheduler has something to do next, and what: a slot falling due, a retry's time, or a live run's lease running out (a takeover, if its runner died). */
export type NextWake = { atMs: number; pipeline: string; date: string; why: WakeReason } | null;
export type WakeReason = 'due' | 'retry' | 'lease';

/**
 * The soonest instant after `nowMs` at which a pipeline with a command has something due: its next slot's
 * run-after, a date's retry time, or the end of a live run's lease (stalled then, unless heartbeats extend it). The timetables answer the first by arithmetic and the status counts say
 * which pipelines have a retry waiting, so no pipeline's dates are read unless one does: a sleeping
 * scheduler costs nothing per pipeline per second.
 *
 * @example
 * await nextWake(ledger, definitions, ledger.now()) // { atMs: 1793926800000, pipeline: 'etl_orders', date: '2026-11-05', why: 'due' }
 */
export async function nextWake(ledger: Ledger, definitions: readonly PipelineDefinition[], nowMs: number): Promise<NextWake> {
  let best: NextWake = null;
  const offer = (atMs: number, pipeline: string, date: string, why: WakeReason) => {
    if (atMs > nowMs && (best === null || atMs < best.atMs)) best = { atMs, pipeline, date, why };
  };
  for (const definition of definitions) {
    // From the definition: loading each pipeline's state only for its timetable kept every state in memory.
    const timetable = timetableOfDefinition(definition);
    const last = timetable.lastDue(nowMs);
    const next = last ? timetable.next(last) : timetable.first();
    if (next) offer(Date.parse(next.runAfter), definition.pipeline, next.date, 'due');
  }
  if (definitions.length === 0) return best;
  const statuses = await ledger.pipelineStatuses({ pipelines: definitions.map((d) => d.pipeline), nowMs });
  for (const status of statuses) {
    // A run whose runner died sends no more heartbeats and no event marks its lease's end: wake then to take it over.
    for (const run of status.inFlight) offer(Date.parse(run.leaseExpiresAt) + 1, status.pipeline, run.date, 'lease');
    if (status.pending.up_for_retry === 0) continue;
    const { state } = await ledger.pipeline(status.pipeline);
    for (const date of state.dates.values()) {
      if (date.status === 'up_for_retry' && date.retry?.nextAt) offer(Date.parse(date.retry.nextAt), status.pipeline, date.date, 'retry');
    }
  }
  return best;
}
