import type { PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { LedgerError } from '../errors.js';
import type { Timetable } from '../timetable/timetable.js';

/** More slots than any answer should list; past it the caller is asked to narrow the range. */
const MAX_SLOTS = 200_000;

/**
 * The slots of a range, refusing ranges so long that listing them would take
 * minutes (a typo like `--start 0206-11-02` on an hourly pipeline is 16 million slots).
 */
export function* boundedSlots(timetable: Timetable, fromMs: number, toMs: number): Generator<Slot> {
  let count = 0;
  for (const slot of timetable.slotsBetween(fromMs, toMs)) {
    if (++count > MAX_SLOTS) {
      throw new LedgerError(
        'input.rangeTooLarge',
        `the range from ${timetable.formatInstant(fromMs)} holds more than ${MAX_SLOTS.toLocaleString('en')} slots; narrow it with --from/--to (or check the pipeline's --start)`,
      );
    }
    yield slot;
  }
}

/**
 * The slots of a range that are due at `nowMs`, plus those already started
 * early. runAfter grows with the logical date, so the due ones are exactly
 * those up to the last due slot: one key comparison a slot, no date parsing.
 */
export function dueSlots(timetable: Timetable, fromMs: number, toMs: number, nowMs: number, state: PipelineState): Slot[] {
  const last = timetable.lastDue(nowMs);
  const lastDue = last?.date;
  let due = last !== undefined && Date.parse(last.logicalDate) >= fromMs;
  const out: Slot[] = [];
  for (const slot of boundedSlots(timetable, fromMs, toMs)) {
    if (due || state.dates.has(slot.date)) out.push(slot);
    if (slot.date === lastDue) due = false;
  }
  return out;
}

/** Every slot from the pipeline's first, lazily. */
export function* slotsFrom(timetable: Timetable): Generator<Slot> {
  for (let slot = timetable.first(); slot; slot = timetable.next(slot)) yield slot;
}
