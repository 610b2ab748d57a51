import { isDone } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';

/** The slot before a date, and what keeps it from counting as done. */
export type PreviousBlock = { date: string; status: string };

/**
 * Depends on past (Airflow's `depends_on_past`): a date may run only once the
 * slot before it succeeded or was marked skipped. Returns that previous slot
 * with its status (`missing` when it never ran) when it is not done, else null;
 * the pipeline's first slot (no previous) never waits.
 *
 * @example
 * previousSlotBlocks(state, '2026-11-03') // { date: '2026-11-03', status: 'failed' }
 */
export function previousSlotBlocks(state: PipelineState, previousDate: string | null): PreviousBlock | null {
  if (previousDate === null) return null;
  const previous = state.dates.get(previousDate);
  if (isDone(previous?.status)) return null;
  return { date: previousDate, status: previous?.status ?? 'missing' };
}
