import { isDone } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';
import type { Slot } from './slot.js';

/**
 * The greatest key K such that every slot from the pipeline's first up to
 * K is currently done (`success`, or marked `skipped`: nothing to process), or null. `slots` must start at the pipeline's
 * first slot; the walk stops at the first slot that is not a success, so an
 * endless timetable is fine.
 *
 * @example
 * completeThrough(state, slotsFrom(timetable.first()))
 */
export function completeThrough(state: PipelineState, slots: Iterable<Slot>): string | null {
  let through: string | null = null;
  for (const slot of slots) {
    if (!isDone(state.dates.get(slot.date)?.status)) break;
    through = slot.date;
  }
  return through;
}
