import { isDone } from '../../projections/date-state.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import { leaseExpired } from '../../projections/date-state.js';
import { addPendingSlot, type PendingReport } from '../../projections/pending.js';
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
  refuseLongRange(timetable, fromMs, toMs);
  let count = 0;
  for (const slot of timetable.slotsBetween(fromMs, toMs)) {
    if (++count > MAX_SLOTS) throw rangeTooLarge(timetable, fromMs);
    yield slot;
  }
}

const YEAR_MS = 366 * 24 * 3600 * 1000;

/**
 * Refuses a range that holds far more slots than the limit before walking it:
 * the slots of its first year are counted (a schedule repeats yearly to within
 * a leap day), and the range's years multiply them. `0001-01-01..9999-12-31`
 * on an hourly pipeline is refused after 8,784 slots rather than 200,000.
 */
export function refuseLongRange(timetable: Timetable, fromMs: number, toMs: number): void {
  const endMs = timetable.spec.end === null ? toMs : Math.min(toMs, Date.parse(timetable.spec.end));
  const startMs = Math.max(fromMs, Date.parse(timetable.spec.start));
  if (!(endMs - startMs > YEAR_MS)) return;
  let inYear = 0;
  timetable.eachSlot(startMs, startMs + YEAR_MS - 1, () => {
    // The range is longer than this year, so it holds more than the limit too.
    if (++inYear > MAX_SLOTS) throw rangeTooLarge(timetable, fromMs);
  });
  // 0.9: a year of the range may hold a few slots fewer than the first (a leap day, a weekday pattern).
  if (inYear * 0.9 * Math.floor((endMs - startMs) / YEAR_MS) > MAX_SLOTS) throw rangeTooLarge(timetable, fromMs);
}

function rangeTooLarge(timetable: Timetable, fromMs: number): LedgerError {
  return new LedgerError(
    'input.rangeTooLarge',
    `the range from ${timetable.formatInstant(fromMs)} holds more than ${MAX_SLOTS.toLocaleString('en')} slots; narrow it with --from/--to (or check the pipeline's --start)`,
  );
}

/**
 * The pending report of the slots of a range that are due at `nowMs`, plus
 * those already started early, with the first and last of those slots' keys.
 * runAfter grows with the logical date, so the due ones are exactly those up
 * to the last due slot: two walks split at its tick, no date parsing. The walk
 * builds no `Slot`, and no object at all for a slot that is done: over ten
 * years of hourly slots, building and keeping them was most of the time.
 * `openEnd`: the caller gave no end, so runs in flight after the range's end up to now are listed too.
 */
export function duePending(
  timetable: Timetable,
  fromMs: number,
  toMs: number,
  nowMs: number,
  state: PipelineState,
  dependsOnPast = false,
  openEnd = false,
): PendingReport & { from: string | null; to: string | null } {
  const last = timetable.lastDue(nowMs);
  // Depends on past: each slot is told whether the one before it is done (the range's first asks the timetable).
  let previous: { date: string; done: boolean } | undefined;
  if (dependsOnPast) {
    const before = previousSlot(timetable, fromMs);
    previous = before ? { date: before.date, done: isDone(state.dates.get(before.date)?.status) } : undefined;
  }
  const visit = (date: string, logicalDate: string, end: string) => {
    addPendingSlot(report, state, nowMs, date, logicalDate, end, undefined, previous);
    if (dependsOnPast) previous = { date, done: isDone(state.dates.get(date)?.status) };
  };
  const lastTick = last === undefined ? Number.NEGATIVE_INFINITY : Date.parse(last.logicalDate);
  refuseLongRange(timetable, fromMs, toMs);
  const report: PendingReport = { pending: [], inFlight: [] };
  let from: string | null = null;
  let to: string | null = null;
  let count = 0;
  if (lastTick >= fromMs) {
    timetable.eachSlot(fromMs, Math.min(toMs, lastTick), (date, logicalDate, end) => {
      if (++count > MAX_SLOTS) throw rangeTooLarge(timetable, fromMs);
      from ??= date;
      to = date;
      visit(date, logicalDate, end);
    });
  }
  // Slots not yet due are listed only when they have a state (a run started early), but count towards the limit.
  if (toMs > lastTick) {
    timetable.eachSlot(Math.max(fromMs, lastTick + 1), toMs, (date, logicalDate, end) => {
      if (++count > MAX_SLOTS) throw rangeTooLarge(timetable, fromMs);
      if (!state.dates.has(date)) return;
      from ??= date;
      to = date;
      visit(date, logicalDate, end);
    });
  }
  // Off-schedule running runs are in flight too (the overview counts them); their keys are no slot, so no walk meets them.
  // Without an explicit end (`openEnd`, or the range ends at the last due slot), a manual run since then counts too, and so
  // does a run recorded on a slot that is not due yet (a redefinition from daily to @weekly made it one), as `state` shows it.
  const walked = new Set(report.inFlight.map((run) => run.date));
  const openTo = openEnd || toMs === lastTick ? Math.max(toMs, nowMs) : toMs;
  const extra = unwalkedInFlight(timetable, fromMs, toMs, openTo, nowMs, state).filter((run) => !walked.has(run.date));
  if (extra.length > 0) {
    const tick = (date: string) => Date.parse(state.dates.get(date)?.logicalDate ?? '');
    report.inFlight = [...report.inFlight, ...extra].sort((a, b) => tick(a.date) - tick(b.date));
  }
  return { ...report, from, to };
}

/**
 * The running runs (live lease) that neither walk meets: off-schedule ones inside `[fromMs, openTo]` on no slot, and
 * recorded slot rows after the walked range's end `toMs` up to `openTo` (past it only when the range ends at the last
 * due slot: a slot a redefinition made not due yet).
 */
function unwalkedInFlight(timetable: Timetable, fromMs: number, toMs: number, openTo: number, nowMs: number, state: PipelineState): PendingReport['inFlight'] {
  const out: PendingReport['inFlight'] = [];
  for (const date of state.dates.values()) {
    if (date.status !== 'running' || leaseExpired(date, nowMs)) continue;
    const tick = Date.parse(date.logicalDate);
    if (tick < fromMs || tick > openTo) continue;
    if (date.offSchedule ? timetable.slotAt(tick) : tick <= toMs) continue;
    out.push({ date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt });
  }
  return out;
}

/**
 * The slot just before the one whose logical date is `logicalMs` (which need not be a slot), or undefined
 * for the pipeline's first. An interval slot's predecessor is the latest due at its logical date; a
 * trigger slot's (zero-width, due at its own tick) the latest due just before it.
 *
 * @example
 * previousSlot(timetable, Date.parse('2026-11-03T00:00:00Z'))?.date // '2026-11-02'
 */
export function previousSlot(timetable: Timetable, logicalMs: number): Slot | undefined {
  const candidate = timetable.lastDue(logicalMs);
  if (candidate && Date.parse(candidate.logicalDate) < logicalMs) return candidate;
  return timetable.lastDue(logicalMs - 1);
}

/** Every slot from the pipeline's first, lazily. */
export function* slotsFrom(timetable: Timetable): Generator<Slot> {
  for (let slot = timetable.first(); slot; slot = timetable.next(slot)) yield slot;
}
