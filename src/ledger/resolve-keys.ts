import type { PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { LedgerError } from '../errors.js';
import { parseRangeEnd, parseRangeStart } from '../timetable/parse-range-end.js';
import type { Timetable } from '../timetable/timetable.js';
import type { ClearInput, StartInput } from './ledger-types.js';
import { boundedSlots } from './slots.js';

/**
 * [from, to] in ms: defaults are the pipeline's first slot and the last slot due now; a bare date `to` on an instant-keyed pipeline is the end of that local day.
 *
 * @example
 * const [fromMs, toMs] = rangeOf(timetable, { from: '2026-11-02' }, nowMs);
 */
export function rangeOf(timetable: Timetable, input: { from?: string; to?: string }, nowMs: number): [number, number] {
  const from = input.from !== undefined ? parseRangeStart(timetable, input.from) : Date.parse(timetable.first()?.logicalDate ?? '1970-01-01T00:00:00Z');
  const lastDue = timetable.lastDue(nowMs);
  const to = input.to !== undefined ? parseRangeEnd(timetable, input.to) : lastDue ? Date.parse(lastDue.logicalDate) : from - 1;
  // A reversed range is a typo, not an empty answer (and `clear` would call it "no dates named").
  if (input.from !== undefined && input.to !== undefined && from > to) {
    throw new LedgerError('input.invalidRange', `--from ${input.from} is after --to ${input.to}; give the earlier date first`);
  }
  return [from, to];
}

/**
 * The key a date text names in this pipeline.
 *
 * @example
 * keyOf(timetable, '2026-11-03', state) // '2026-11-03'
 */
export function keyOf(timetable: Timetable, text: string, state: PipelineState): string {
  // A key recorded under an earlier timetable (`2026-11-03` before a redefinition to `0 6 * * *`) still names itself,
  // so every date `state` shows can be cleared and looked up.
  if (state.dates.has(text)) return text;
  const ms = timetable.parseDate(text);
  return timetable.slotAt(ms)?.date ?? timetable.formatInstant(ms);
}

/**
 * The slot a start names: the timetable's own slot, or an off-schedule one keyed by its full instant.
 *
 * @example
 * const { slot, onSchedule } = slotFor(timetable, input, 'scheduled');
 */
export function slotFor(timetable: Timetable, input: StartInput, runType: StartInput['runType']): { slot: Slot; onSchedule: boolean } {
  const ms = timetable.parseDate(input.date);
  const onScheduleSlot = timetable.slotAt(ms);
  const explicit = input.dataInterval;
  if (explicit && runType !== 'manual') {
    throw new LedgerError('input.intervalNeedsManual', "an explicit data interval is only for manual runs; add --type manual (library: runType: 'manual')");
  }
  const interval = explicit
    ? { start: timetable.formatInstant(timetable.parseDate(explicit.start)), end: timetable.formatInstant(timetable.parseDate(explicit.end)) }
    : undefined;
  if (interval && Date.parse(interval.end) < Date.parse(interval.start)) {
    throw new LedgerError('input.invalidInterval', `--interval-end ${explicit?.end} is before --interval-start ${explicit?.start}`);
  }
  if (onScheduleSlot) return { slot: interval ? { ...onScheduleSlot, dataInterval: interval } : onScheduleSlot, onSchedule: true };
  // Off-schedule keys are always full instants, so they never collide with a daily slot's key.
  const dataInterval = interval ?? timetable.intervalFor(ms);
  const logicalDate = timetable.formatInstant(ms);
  return { slot: { date: logicalDate, logicalDate, dataInterval, runAfter: dataInterval.end }, onSchedule: false };
}

/**
 * The keys a clear names: its dates, and every slot or recorded key of its range.
 *
 * @example
 * const keys = keysFor(timetable, state, { pipeline: 'etl_orders', dates: ['2026-11-03'] }, Date.now);
 */
export function keysFor(timetable: Timetable, state: PipelineState, input: Pick<ClearInput, 'dates' | 'from' | 'to'>, now: () => number, verb: 'clear' | 'mark' = 'clear'): string[] {
  const keys = new Set<string>((input.dates ?? []).map((d) => keyOf(timetable, d, state)));
  if (input.from !== undefined || input.to !== undefined) {
    const [fromMs, toMs] = rangeOf(timetable, input, now());
    for (const slot of boundedSlots(timetable, fromMs, toMs)) keys.add(slot.date);
    for (const date of state.dates.values()) {
      const at = Date.parse(date.logicalDate);
      if (at >= fromMs && at <= toMs) keys.add(date.date);
    }
  }
  if (keys.size === 0) throw new LedgerError('input.nothingToClear', `name the dates to ${verb}, or a range with --from and --to`);
  return [...keys];
}
