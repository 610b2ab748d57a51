import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import type { DateState } from '../../projections/date-state.js';
import { LedgerError } from '../errors.js';
import { parseDateText } from '../timetable/parse-date.js';
import { createTimetableHistory, timetablePeriods } from '../timetable/timetable-history.js';
import { formatInstant, zoneClock } from '../timetable/zoned-time.js';

/** The fields whose change moves slots: a change of any of them takes effect from an instant (`--effective`). */
const SLOT_FIELDS = ['schedule', 'timetable', 'timezone', 'start'] as const;

/** What a change of timetable from an instant does: the instant, and the last date under the old timetable and the first under the new. */
export type EffectiveChange = { at: string; lastOld: string | null; firstNew: string | null };

/**
 * Whether the change from `before` to `after` moves slots (schedule, zone, start or timetable kind).
 *
 * @example
 * movesSlots(daily, { ...daily, timezone: 'Asia/Jakarta' }) // true
 */
export function movesSlots(before: PipelineDefinition, after: PipelineDefinition): boolean {
  return SLOT_FIELDS.some((field) => changed(before, after, field));
}

/** A field of the timetable that changed; the start by its instant (a new zone writes the same instant with its own offset). */
function changed(before: PipelineDefinition, after: PipelineDefinition, field: (typeof SLOT_FIELDS)[number]): boolean {
  return field === 'start' ? Date.parse(before.start) !== Date.parse(after.start) : before[field] !== after[field];
}

/**
 * A redefinition's timetable, by the rule for definitions over time: a change of schedule, zone, start or
 * timetable kind given `effective` (`now`'s instant or one given) keeps the old timetable for the logical dates
 * before that instant (as an earlier timetable of the definition) and follows the new one from it on;
 * without `effective` the new timetable replaces the current one over its whole period. Either way it is
 * refused (`ledger.timetableChange`) when a recorded date that is a slot now would no longer be one: the
 * ledger never re-keys or drops what was recorded. `--effective` with no such change is bad input.
 *
 * @example
 * planTimetableChange(before, after, { effective: '2026-11-05T10:00:00Z', nowMs, dates: state.dates.values() })
 */
export function planTimetableChange(
  before: PipelineDefinition,
  after: PipelineDefinition,
  options: { effective?: string | undefined; nowMs: number; dates: Iterable<Pick<DateState, 'date' | 'logicalDate'>> },
): { definition: PipelineDefinition; effective?: EffectiveChange } {
  const moved = movesSlots(before, after);
  if (options.effective !== undefined && !moved) {
    throw new LedgerError(
      'input.invalidEffective',
      `--effective goes with a change of --schedule, --tz, --start or --timetable; ${after.pipeline} keeps its timetable, so leave --effective out`,
    );
  }
  if (!moved) return { definition: after };
  const periods = timetablePeriods(before);
  const current = periods[periods.length - 1] as (typeof periods)[number];
  let definition = after;
  let atMs: number | null = null;
  if (options.effective !== undefined) {
    atMs = effectiveMs(options.effective, after.timezone, options.nowMs);
    const sinceMs = Date.parse(current.from ?? before.start);
    if (!(atMs > sinceMs)) {
      throw new LedgerError(
        'input.invalidEffective',
        `--effective ${options.effective} is not after ${current.from ?? before.start}, when ${after.pipeline}'s current timetable took effect; give a later instant, or leave --effective out to change that timetable over its whole period`,
      );
    }
    const until = formatInstant(atMs, zoneClock(before.timezone));
    const earlier = [...(before.earlierTimetables ?? []), { schedule: before.schedule, timetable: before.timetable, timezone: before.timezone, start: before.start, until }];
    definition = { ...after, earlierTimetables: earlier };
  }
  const old = createTimetableHistory(before);
  const next = createTimetableHistory(definition);
  const lost: Array<{ date: string; ms: number }> = [];
  for (const date of options.dates) {
    const ms = Date.parse(date.logicalDate);
    if (old.slotKeyAt(ms) === date.date && next.slotKeyAt(ms) !== date.date) lost.push({ date: date.date, ms });
  }
  if (lost.length > 0) throw lostDatesError(before, after, lost, options.effective, old.formatInstant.bind(old));
  if (atMs === null) return { definition };
  const lastOld = next.slotAtOrBefore(atMs - 1);
  const firstNew = lastOld ? next.next(lastOld) : next.first();
  return {
    definition,
    effective: { at: next.formatInstant(atMs), lastOld: lastOld?.date ?? null, firstNew: firstNew?.date ?? null },
  };
}

/** `now`, a date (midnight in the new zone) or an RFC 3339 instant, as epoch ms. */
function effectiveMs(text: string, zone: string, nowMs: number): number {
  if (text.trim() === 'now') return nowMs;
  try {
    return parseDateText(text, zoneClock(zone));
  } catch (error) {
    if (error instanceof LedgerError) {
      throw new LedgerError('input.invalidEffective', `--effective ${error.message}; give now, a date (midnight in --tz) or an RFC 3339 instant`, { cause: error });
    }
    throw error;
  }
}

function lostDatesError(
  before: PipelineDefinition,
  after: PipelineDefinition,
  lost: Array<{ date: string; ms: number }>,
  effective: string | undefined,
  format: (ms: number) => string,
): LedgerError {
  lost.sort((a, b) => a.ms - b.ms);
  const first = lost[0] as { date: string; ms: number };
  const latest = lost[lost.length - 1] as { date: string; ms: number };
  const which = lost.length === 1 ? `recorded date ${first.date}` : `${lost.length} recorded dates, ${first.date} to ${latest.date},`;
  const change = SLOT_FIELDS.filter((field) => changed(before, after, field))
    .map((field) => `${field === 'timezone' ? 'zone' : field} ${before[field]} -> ${after[field]}`)
    .join(', ');
  if (effective === undefined) {
    return new LedgerError(
      'ledger.timetableChange',
      `changing ${after.pipeline}'s ${change} would re-key or drop ${which} made under the old timetable; say from when the new one holds with --effective now or --effective <instant> after ${format(latest.ms)} (dates before it keep the old timetable and their states)`,
    );
  }
  return new LedgerError(
    'ledger.timetableChange',
    `from --effective ${effective}, ${after.pipeline}'s new timetable (${change}) would re-key or drop ${which} made under the old one; give an instant after ${format(latest.ms)}, or now`,
  );
}
