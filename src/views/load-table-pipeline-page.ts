import { cellStatus, STATUS_SEVERITY, type CellStatus } from '../../projections/views/calendar.js';
import { historyStrip, type StripBucket } from '../../projections/views/history-strip.js';
import { auditEntriesOf, type AuditEntry } from '../../projections/views/pipeline-history.js';
import { pointsFromDates, type Mark } from '../../projections/views/points-from-dates.js';
import { taskDateGrid } from '../../projections/views/task-date-grid.js';
import { evolveTaskRuns, initialTaskRuns, type TaskRuns } from '../../projections/task-runs.js';
import { runStream } from '../../events/recorded-event.js';
import type { Ledger } from '../ledger/ledger.js';
import type { AsOf, PendingView } from '../ledger/ledger-types.js';
import { tableView } from '../ledger/read-model-views.js';
import { rangeOf } from '../ledger/resolve-keys.js';
import type { DateState } from '../../projections/date-state.js';
import type { PipelineSummary } from '../../projections/pipeline-summary.js';
import type { ReadModels } from '../store/read-models.js';
import type { Timetable } from '../timetable/timetable.js';
import type { Slot } from '../../projections/slot.js';
import { calendarWindow, defaultDayRows } from './calendar-window.js';
import { stripPeriods, type PeriodColumn } from './strip-periods.js';
import { calendarPart, loadHistory, loadPipelinePage, pageTime, rangeEnd, runsPart, windowRange, type PageLimits, type PipelinePageInput } from './load-pages.js';
import { duePending } from '../ledger/slots.js';
import { leaseExpired } from '../../projections/date-state.js';
import type { PipelinePage } from './page-models.js';
import { readPipelinePoolWait } from '../ops/read-pool-waits.js';

/** Cells a calendar page reads at most (31 days of minutes fit). */
const CALENDAR_CELLS = 50_000;
/** Columns of the whole-history strip. */
const STRIP_COLUMNS = 600;
/** Columns of a long pipeline's strip at most: one per day, month, quarter or year, the finest that fits. */
const STRIP_PERIODS = 400;
/** Dates of the task × date grid (the most recent with a run). */
const TASK_GRID_DATES = 30;
/** Pending dates the page lists (the oldest); the count covers the rest. */
export const PENDING_LISTED = 200;
/** The most recent dates the chart draws. */
const CHART_DATES = 400;
/** Events of the pipeline read back for its audit entries, at most. */
export const AUDIT_SCAN = 10_000;
/**
 * Due slots past which the page stops walking every slot: the strip is then aggregated per period from the rows and
 * the slots' count per period, and the pending list walks the slots only up to its last entry. A minutely pipeline
 * started in 1970 has 30 million; walking them cost 33 s and 2.7 GB for one view.
 */
export const SLOTS_WALKED = 200_000;


/**
 * The pipeline page as `serve` shows it: from the read models when the ledger keeps them and the
 * page is of now, else folded from the events as before (`loadPipelinePage`).
 *
 * @example
 * const page = await loadServedPipelinePage(ledger, 'etl_orders', undefined, {}, { rows: 12 });
 */
export async function loadServedPipelinePage(ledger: Ledger, pipeline: string, asOf: AsOf | undefined, limits: PageLimits = {}, input: PipelinePageInput = {}): Promise<PipelinePage> {
  const models = asOf === undefined ? ledger.store.readModels : undefined;
  const page = models !== undefined && (await models.ensure()) ? await loadTablePipelinePage(ledger, models, pipeline, limits, input) : asOf === undefined ? null : await loadPastLongPipelinePage(ledger, pipeline, asOf, limits, input);
  return page ?? loadPipelinePage(ledger, pipeline, asOf, limits, input);
}

/**
 * The page of a long pipeline (more than `SLOTS_WALKED` due slots) as it stood at an earlier point: its events up to
 * that point folded once, and from that fold its window of the calendar, the strip a column per period, the oldest
 * pending slots and their count, the chart and the audit, as the page of now draws them from the tables. Null for a
 * shorter pipeline: the fold's page (`loadPipelinePage`) then lists every slot, as it always did. Upstream waits are not
 * marked on this page's pending list.
 */
async function loadPastLongPipelinePage(ledger: Ledger, pipeline: string, asOf: AsOf, limits: PageLimits, input: PipelinePageInput): Promise<PipelinePage | null> {
  const time = await pageTime(ledger, asOf);
  const folded = await ledger.pipeline(pipeline, time.asOf ?? undefined);
  const { definition, timetable, state } = folded;
  const [fromMs, toMs] = rangeOf(timetable, {}, time.nowMs);
  const slots = toMs >= fromMs ? timetable.countSlots(fromMs - 1, toMs) : 0;
  if (slots <= SLOTS_WALKED) return null;
  const rows = [...state.dates.values()].map((date) => {
    const at = Date.parse(date.logicalDate);
    const onSlot = at >= fromMs && at <= toMs && timetable.slotKeyAt(at) === date.date;
    return { date: date.date, status: cellStatus({ status: date.status, stalled: leaseExpired(date, time.nowMs) }), at, onSlot, offSchedule: date.offSchedule && at <= Math.max(toMs, time.nowMs) };
  });
  rows.sort((a, b) => a.at - b.at || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const keys: History = { dates: [], statuses: [], at: [], kinds: [] };
  for (const row of rows) {
    if (!row.onSlot && !row.offSchedule && (row.at < fromMs || row.at > Math.max(toMs, time.nowMs))) continue;
    addKey(keys, row.date, row.status, row.at, RECORDED | (row.onSlot ? ON_SLOT : 0) | (row.offSchedule ? OFF_SCHEDULE : 0));
  }
  const sparse: Sparse = { ...keys, fromMs, toMs, slots };
  const window = calendarWindow(timetable, time.nowMs, { ...input, ...rangeEnd(input) }, timetable.dailyKeys ? (limits.monthRows ?? 120) : (limits.dayRows ?? defaultDayRows(timetable, time.nowMs)));
  const windowState = await ledger.state({ pipeline, ...windowRange(window, input), limit: CALENDAR_CELLS, asOf });
  // Pending as `pending` lists it, from the same fold, one stretch of slots at a time; counted as the due slots not done.
  const pending = await oldestPendingOfSlots(timetable, sparse, async (stretch) => {
    const [a, b] = rangeOf(timetable, stretch, time.nowMs);
    return duePending(timetable, a, b, time.nowMs, state, definition.dependsOnPast === true).pending;
  });
  let done = 0;
  for (let i = 0; i < keys.dates.length; i++) if (((keys.kinds[i] as number) & ON_SLOT) !== 0 && ['success', 'skipped', 'running'].includes(keys.statuses[i] as string)) done += 1;
  const history = await loadHistory(ledger, pipeline, time.position);
  const runs = await runsPart(ledger, pipeline, time, limits, input);
  const last = timetable.lastDue(time.nowMs);
  return {
    kind: 'pipeline',
    time,
    definition,
    watermark: windowState.watermark,
    completeThrough: windowState.completeThrough,
    ...calendarPart(timetable, windowState, time.nowMs, window, input),
    strip: aggregatedStrip(timetable, sparse, STRIP_PERIODS),
    taskGrid: null,
    pending: { pipeline, from: last === undefined ? null : (timetable.first()?.date ?? null), to: last?.date ?? null, pending, inFlight: [...state.dates.values()].filter((d) => d.status === 'running' && !leaseExpired(d, time.nowMs)).map((d) => ({ date: d.date, runId: d.runId, leaseExpiresAt: d.leaseExpiresAt })) },
    pendingTotal: slots - done,
    paused: state.paused,
    retired: state.retired,
    ...runs,
    hasTasks: (definition.tasks?.length ?? 0) > 0,
    points: history.points,
    chartDates: null,
    audit: history.audit.slice(-(limits.audit ?? 200)).reverse(),
    auditScanned: null,
    auditTotal: history.audit.length,
  };
}

/**
 * The whole history, one status per key, oldest first, as arrays of the same length (the key at an index,
 * its status, instant and kind): ten years of hours as one object a key, beside the rows read to make
 * them, were most of a report's peak memory.
 */
type History = {
  dates: string[];
  statuses: CellStatus[];
  /** The key's instant: its slot's tick, or an off-slot row's logical date. */
  at: number[];
  /** `RECORDED`, `ON_SLOT` and `OFF_SCHEDULE`, or'ed. */
  kinds: number[];
};

/** The key has a row. */
const RECORDED = 1;
/** The key is a due slot's. */
const ON_SLOT = 2;
/** The key is an off-schedule run's. */
const OFF_SCHEDULE = 4;

function addKey(history: History, date: string, status: CellStatus, at: number, kind: number): void {
  history.dates.push(date);
  history.statuses.push(status);
  history.at.push(at);
  history.kinds.push(kind);
}

/**
 * The whole history as one status per key, as `state` over every due slot lists it: the timetable's
 * slots walked without building any, each looked up among the rows' (key, status, lease) read one at a
 * time; the few rows on no slot (off-schedule runs, keys of an earlier timetable) read by key and put in
 * their place.
 */
async function historyKeys(models: ReadModels, pipeline: string, timetable: Timetable, nowMs: number): Promise<History | null> {
  const [fromMs, toMs] = rangeOf(timetable, {}, nowMs);
  // Each row's index by key, with its status and logical instant at that index.
  const rows = new Map<string, number>();
  const rowStatus: CellStatus[] = [];
  const rowLogical: number[] = [];
  await models.statuses(pipeline, Number.MIN_SAFE_INTEGER, (date, status, lease, logicalMs) => {
    rows.set(date, rowStatus.length);
    rowStatus.push(cellStatus({ status: status as Exclude<CellStatus, 'stalled' | 'not-due'>, stalled: status === 'running' && Date.parse(lease) <= nowMs }));
    rowLogical.push(logicalMs);
  });
  const keys: History = { dates: [], statuses: [], at: [], kinds: [] };
  const onSlot = new Uint8Array(rowStatus.length);
  let shifted = false;
  if (toMs >= fromMs) {
    timetable.eachSlot(fromMs, toMs, (date, _logicalDate, _end, tick) => {
      const row = rows.get(date);
      if (row === undefined) return addKey(keys, date, 'missing', tick, ON_SLOT);
      onSlot[row] = 1;
      if (rowLogical[row] !== tick) shifted = true;
      addKey(keys, date, rowStatus[row] as CellStatus, tick, ON_SLOT | RECORDED);
    });
  }
  // A row under a slot's key for another instant (a key of an earlier timetable, e.g. before a zone change): the fold decides.
  if (shifted) return null;
  const elsewhere: string[] = [];
  for (const [date, row] of rows) if (onSlot[row] === 0) elsewhere.push(date);
  if (elsewhere.length === 0) return keys;
  const offSlots: Array<{ date: string; status: CellStatus; at: number; kind: number }> = [];
  for (const date of await models.dates(pipeline, { keys: elsewhere, light: true })) {
    const at = Date.parse(date.logicalDate);
    // As `state` bounds them: off-schedule runs before the start and up to now show, other rows from the slots' start up to
    // now (a date recorded on a slot not due yet shows after the last due one).
    if (date.offSchedule ? at > Math.max(toMs, nowMs) : at < fromMs || at > Math.max(toMs, nowMs)) continue;
    const row = rows.get(date.date);
    offSlots.push({ date: date.date, status: row === undefined ? 'missing' : (rowStatus[row] as CellStatus), at, kind: RECORDED | (date.offSchedule ? OFF_SCHEDULE : 0) });
  }
  // The slots' keys ascend; the off-slot rows go after any key of the same instant, by key among themselves (as `state` lists them).
  offSlots.sort((a, b) => a.at - b.at || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const merged: History = { dates: [], statuses: [], at: [], kinds: [] };
  let next = 0;
  for (let i = 0; i < keys.dates.length; i++) {
    const at = keys.at[i] as number;
    for (let off = offSlots[next]; off !== undefined && off.at < at; off = offSlots[++next]) addKey(merged, off.date, off.status, off.at, off.kind);
    addKey(merged, keys.dates[i] as string, keys.statuses[i] as CellStatus, at, keys.kinds[i] as number);
  }
  for (const off of offSlots.slice(next)) addKey(merged, off.date, off.status, off.at, off.kind);
  return merged;
}

/**
 * The recorded keys alone, oldest first, each marked on a slot or not, for a pipeline with more due slots than
 * `SLOTS_WALKED`: what the page draws from the keys (the chart, the in-flight runs) needs only these, and the strip and
 * the pending list ask the timetable for the slots between them. Null when a row sits under a slot's key for another
 * instant (the fold decides then, as for `historyKeys`).
 */
async function recordedKeys(models: ReadModels, pipeline: string, timetable: Timetable, nowMs: number, slots: number): Promise<Sparse | null> {
  const [fromMs, toMs] = rangeOf(timetable, {}, nowMs);
  const rows: Array<{ date: string; status: CellStatus; at: number; onSlot: boolean }> = [];
  await models.statuses(pipeline, Number.MIN_SAFE_INTEGER, (date, status, lease, logicalMs) => {
    const onSlot = logicalMs >= fromMs && logicalMs <= toMs && timetable.slotKeyAt(logicalMs) === date;
    rows.push({ date, status: cellStatus({ status: status as Exclude<CellStatus, 'stalled' | 'not-due'>, stalled: status === 'running' && Date.parse(lease) <= nowMs }), at: logicalMs, onSlot });
  });
  const elsewhere = rows.filter((r) => !r.onSlot);
  const offSchedule = new Set<string>();
  if (elsewhere.length > 0) {
    for (const date of await models.dates(pipeline, { keys: elsewhere.map((r) => r.date), light: true })) {
      const at = Date.parse(date.logicalDate);
      if (timetable.slotKeyAt(at) !== undefined && timetable.slotKeyAt(at) !== date.date) return null;
      if (date.offSchedule && at <= Math.max(toMs, nowMs)) offSchedule.add(date.date);
    }
  }
  rows.sort((a, b) => a.at - b.at || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const keys: History = { dates: [], statuses: [], at: [], kinds: [] };
  for (const row of rows) {
    if (!row.onSlot && !offSchedule.has(row.date) && (row.at < fromMs || row.at > Math.max(toMs, nowMs))) continue;
    addKey(keys, row.date, row.status, row.at, RECORDED | (row.onSlot ? ON_SLOT : 0) | (offSchedule.has(row.date) ? OFF_SCHEDULE : 0));
  }
  return { ...keys, fromMs, toMs, slots };
}

/** The recorded keys of a long pipeline and the range of its due slots. */
type Sparse = History & { fromMs: number; toMs: number; slots: number };

/**
 * The strip of a long pipeline, one column per period of its zone (`stripSpans`): each column's worst status among its rows, and
 * `missing` when it holds more slots than rows on a slot. A column without rows costs one slot lookup; one with rows
 * one count of its slots.
 */
function aggregatedStrip(timetable: Timetable, keys: Sparse, columns: number): StripBucket[] {
  const out: StripBucket[] = [];
  // Rows of each column on no slot (off-schedule runs), counted beside its slots.
  const offSlot: number[] = [];
  let next = 0;
  const kept = keptColumns(timetable);
  for (const { fromMs: a, toMs: b, period } of stripSpans(timetable, keys.fromMs, keys.toMs, columns)) {
    const column = kept.of(a, b);
    let status: CellStatus = 'success';
    let failed = 0;
    let onSlot = 0;
    let rows = 0;
    let first: string | null = null;
    let lastKey: string | null = null;
    for (; next < keys.dates.length && (keys.at[next] as number) <= b; next++) {
      const keyStatus = keys.statuses[next] as CellStatus;
      if (STATUS_SEVERITY[keyStatus] > STATUS_SEVERITY[status]) status = keyStatus;
      if (keyStatus === 'failed') failed += 1;
      if (((keys.kinds[next] as number) & ON_SLOT) !== 0) onSlot += 1;
      rows += 1;
      first ??= keys.dates[next] as string;
      lastKey = keys.dates[next] as string;
    }
    const hasSlot = column.firstKey !== undefined;
    if (!hasSlot && rows === 0) continue;
    // A column with rows, or of a period, counts its slots; one without has some (its last slot is inside it), counted below.
    const slots = !hasSlot ? 0 : rows === 0 && period === undefined ? null : kept.count(column, a, b);
    if ((slots === null || slots > onSlot) && STATUS_SEVERITY.missing > STATUS_SEVERITY[status]) status = 'missing';
    const firstKey = column.firstKey;
    const from = firstKey === undefined ? (first ?? '') : first === null || firstKey <= first ? firstKey : first;
    const slotTo = column.lastKey;
    const to = slotTo === undefined ? (lastKey ?? from) : lastKey === null || slotTo >= lastKey ? slotTo : lastKey;
    out.push({ from, to, count: slots === null ? -(b - a + 1) : Math.max(slots, onSlot) + (rows - onSlot), status, failed, ...(period === undefined ? {} : { period }) });
    offSlot.push(rows - onSlot);
  }
  // The columns without rows share the slots the others do not hold, by their width (largest remainders first), so the
  // strip's counts add up to every slot: one count of the whole range instead of one per column.
  const empty = out.filter((bucket) => bucket.count < 0);
  const left = Math.max(0, keys.slots - out.reduce((n, bucket, i) => n + (bucket.count < 0 ? 0 : bucket.count - (offSlot[i] as number)), 0));
  const widths = empty.reduce((n, bucket) => n - bucket.count, 0);
  const shares = empty.map((bucket) => (left * -bucket.count) / widths);
  let given = 0;
  empty.forEach((bucket, i) => {
    bucket.count = Math.floor(shares[i] as number);
    given += bucket.count;
  });
  const byRemainder = empty.map((bucket, i) => ({ bucket, rest: (shares[i] as number) - bucket.count })).sort((x, y) => y.rest - x.rest);
  for (let i = 0; i < left - given && i < byRemainder.length; i++) (byRemainder[i] as { bucket: StripBucket }).bucket.count += 1;
  return out;
}

/**
 * What a strip column of `[a, b]` needs of the timetable: the key of its first slot (undefined: it holds none), the key
 * of the last slot at or before `b` (undefined: none yet), and, once asked, how many slots it holds.
 */
type ColumnSlots = { firstKey: string | undefined; lastKey: string | undefined; count: number | undefined };

/** Column answers kept per timetable, at most this many (the newest column's end moves with each due slot). */
const COLUMNS_KEPT = 2048;
const columnsOfTimetable = new WeakMap<Timetable, Map<string, ColumnSlots>>();

/**
 * The slots at a strip column's edges, kept per timetable (the store keeps one timetable object per definition): they
 * depend on the timetable alone, not on the rows, so a view of a long pipeline looks up only the columns it has not
 * seen (the newest), not two slots of each of its hundreds of columns (a quarter of minutes' slots built each time
 * were a quarter of a 1970 minutely page's garbage).
 */
function keptColumns(timetable: Timetable): { of(a: number, b: number): ColumnSlots; count(column: ColumnSlots, a: number, b: number): number } {
  let kept = columnsOfTimetable.get(timetable);
  if (kept === undefined) {
    kept = new Map();
    columnsOfTimetable.set(timetable, kept);
  }
  const map = kept;
  // The columns are consecutive: a column's last slot is the slot before the next one's start, looked up once.
  let lastBefore: { at: number; slot: Slot | undefined } | null = null;
  const slotAtOrBefore = (ms: number) => (lastBefore !== null && lastBefore.at === ms ? lastBefore.slot : timetable.slotAtOrBefore(ms));
  return {
    of(a, b) {
      const key = `${a} ${b}`;
      const found = map.get(key);
      if (found !== undefined) return found;
      const before = slotAtOrBefore(a - 1);
      const last = slotAtOrBefore(b);
      lastBefore = { at: b, slot: last };
      const hasSlot = last !== undefined && Date.parse(last.logicalDate) >= a;
      const firstSlot = hasSlot ? (before ? timetable.next(before) : timetable.first()) : undefined;
      const column: ColumnSlots = { firstKey: firstSlot?.date, lastKey: last?.date, count: undefined };
      if (map.size >= COLUMNS_KEPT) map.clear();
      map.set(key, column);
      return column;
    },
    count(column, a, b) {
      column.count ??= timetable.countSlots(a - 1, b);
      return column.count;
    },
  };
}

/** The stretches of time a long pipeline's strip draws: its zone's days, months, quarters or years, else equal widths. */
function stripSpans(timetable: Timetable, fromMs: number, toMs: number, columns: number): Array<{ fromMs: number; toMs: number; period?: StripBucket['period'] }> {
  const periods = keptPeriods(timetable, fromMs, toMs, columns);
  if (periods !== null) return periods;
  const width = Math.max(1, Math.ceil((toMs - fromMs + 1) / columns));
  const spans: Array<{ fromMs: number; toMs: number }> = [];
  for (let a = fromMs; a <= toMs; a += width) spans.push({ fromMs: a, toMs: Math.min(toMs, a + width - 1) });
  return spans;
}

/** The period columns last made per timetable, by their range's start, the local day of its end and the columns asked. */
const periodsOfTimetable = new WeakMap<Timetable, { key: string; columns: PeriodColumn[] | null }>();

/**
 * `stripPeriods`, kept per timetable while the range's end stays in one local day: which periods and where they
 * start depend on the range's first and last days only, so a later end of the same day moves only the last column's
 * end (the columns of 57 years of quarters were made again on every view).
 */
function keptPeriods(timetable: Timetable, fromMs: number, toMs: number, columns: number): PeriodColumn[] | null {
  const key = `${fromMs} ${timetable.formatInstant(toMs).slice(0, 10)} ${columns}`;
  let kept = periodsOfTimetable.get(timetable);
  if (kept?.key !== key) {
    kept = { key, columns: stripPeriods(timetable, fromMs, toMs, columns) };
    periodsOfTimetable.set(timetable, kept);
  }
  const made = kept.columns;
  const last = made?.at(-1);
  if (made === null || last === undefined || last.toMs === toMs) return made;
  return [...made.slice(0, -1), { ...last, toMs }];
}

/** The oldest `PENDING_LISTED` pending slots of a long pipeline: its slots walked from the first, only as far as the last one listed. */
async function oldestPendingOfSlots(timetable: Timetable, keys: Sparse, pendingOf: (stretch: { from: string; to: string }) => Promise<PendingView['pending']>): Promise<PendingView['pending']> {
  const done = new Map<string, CellStatus>();
  for (let i = 0; i < keys.dates.length; i++) done.set(keys.dates[i] as string, keys.statuses[i] as CellStatus);
  let listed = 0;
  let from: string | null = null;
  let to: string | null = null;
  const stretches: Array<{ from: string; to: string }> = [];
  for (const slot of timetable.slotsBetween(keys.fromMs, keys.toMs)) {
    const status = done.get(slot.date);
    if (status === 'success' || status === 'skipped' || status === 'running') {
      if (from !== null && to !== null) stretches.push({ from, to });
      from = to = null;
      continue;
    }
    from ??= slot.date;
    to = slot.date;
    if (++listed === PENDING_LISTED) break;
  }
  if (from !== null && to !== null) stretches.push({ from, to });
  const pending: PendingView['pending'] = [];
  for (const stretch of stretches) pending.push(...(await pendingOf(stretch)));
  return pending.slice(0, PENDING_LISTED);
}

/**
 * The oldest `PENDING_LISTED` pending dates: the due slots whose row is not done (nor a run whose lease
 * is live) tell which they are, and `pending` over each stretch of them gives them with their reasons,
 * so the page reads the rows of the dates it lists, not those between them.
 */
async function oldestPending(ledger: Ledger, pipeline: string, keys: History): Promise<PendingView['pending']> {
  const stretches: Array<{ from: string; to: string }> = [];
  let listed = 0;
  let open = false;
  for (let i = 0; i < keys.dates.length; i++) {
    if (listed === PENDING_LISTED) break;
    if (((keys.kinds[i] as number) & ON_SLOT) === 0) continue;
    const status = keys.statuses[i];
    if (status === 'success' || status === 'skipped' || status === 'running') {
      open = false;
      continue;
    }
    listed += 1;
    const date = keys.dates[i] as string;
    const last = stretches.at(-1);
    if (open && last !== undefined) last.to = date;
    else stretches.push({ from: date, to: date });
    open = true;
  }
  const pending: PendingView['pending'] = [];
  for (const { from, to } of stretches) pending.push(...(await ledger.pending({ pipeline, from, to })).pending);
  return pending.slice(0, PENDING_LISTED);
}

/** The newest audit entries of a pipeline, read back from its last events by index; `scanned` is set when the scan stopped before its first event. */
async function newestAudit(ledger: Ledger, pipeline: string, limit: number): Promise<{ entries: AuditEntry[]; scanned: number | null }> {
  const entries: AuditEntry[] = [];
  let seen = 0;
  const read = ledger.store.readBackward?.({ pipeline, batchSize: 500 });
  if (read === undefined) return { entries, scanned: null };
  for await (const batch of read) {
    for (const event of batch) {
      seen += 1;
      entries.push(...auditEntriesOf(event).reverse());
      if (entries.length >= limit) return { entries: entries.slice(0, limit), scanned: null };
      if (seen >= AUDIT_SCAN && event.type !== 'PipelineDefined') return { entries, scanned: seen };
    }
  }
  return { entries, scanned: null };
}

/** The task states of the runs of the given dates, folded from each date's own stream (its starts, clears and marks fence them) by index. */
async function tasksOfDates(ledger: Ledger, pipeline: string, dates: readonly string[]): Promise<TaskRuns> {
  let tasks = initialTaskRuns();
  for (const date of dates) {
    for await (const batch of ledger.store.read({ stream: runStream(pipeline, date) })) for (const event of batch) tasks = evolveTaskRuns(tasks, event);
  }
  return tasks;
}

/**
 * The runs in flight that `pending` over the whole range lists: on a due slot, off-schedule inside the range, or
 * recorded after the last due slot (a slot a redefinition made not due yet); not a key of an earlier timetable inside
 * the range, which `status` counts but no slot of today's meets.
 */
function pendingInFlight(inFlight: PendingView['inFlight'], keys: History, timetable: Timetable, nowMs: number): PendingView['inFlight'] {
  if (inFlight.length === 0) return [];
  const [fromMs, toMs] = rangeOf(timetable, {}, nowMs);
  const running = new Set(inFlight.map((run) => run.date));
  const listed = new Set<string>();
  for (let i = 0; i < keys.dates.length; i++) {
    const kind = keys.kinds[i] as number;
    const date = keys.dates[i] as string;
    const at = keys.at[i] as number;
    const after = (kind & (ON_SLOT | OFF_SCHEDULE)) === 0 && at > toMs;
    if (running.has(date) && ((kind & ON_SLOT) !== 0 || ((kind & OFF_SCHEDULE) !== 0 && at >= fromMs) || after)) listed.add(date);
  }
  return inFlight.filter((run) => listed.has(run.date));
}

/** The indexes of the newest `limit` keys with a row (oldest first), and how many keys have one. */
function newestRecorded(keys: History, limit: number): { latest: number[]; recorded: number } {
  const latest: number[] = [];
  let recorded = 0;
  for (let i = keys.dates.length - 1; i >= 0; i--) {
    if (((keys.kinds[i] as number) & RECORDED) === 0) continue;
    recorded += 1;
    if (latest.length < limit) latest.push(i);
  }
  return { latest: latest.reverse(), recorded };
}

/** Complete-through with its logical date: from the dates read when it is among them, else from its slot. */
function throughMark(dates: ReadonlyArray<{ date: string; logicalDate: string }>, timetable: Timetable, through: string | null): Mark | null {
  if (through === null) return null;
  const row = dates.find((d) => d.date === through);
  if (row !== undefined) return { date: through, logicalDate: row.logicalDate };
  const slot = timetable.slotAt(timetable.parseDate(through));
  return { date: through, logicalDate: slot?.logicalDate ?? through };
}

/**
 * The pipeline page of now from the read models, each part reading what it shows: the summary row;
 * the calendar's window of dates by their index; the strip from the compact status of every key;
 * the count of pending dates from `status` and the oldest of them by range; the task grid's and the
 * chart's most recent dates by key; a page of runs; the newest audit entries from the last events. Null when a row
 * sits under a slot's key for another instant: the page is folded then.
 */
async function loadTablePipelinePage(ledger: Ledger, models: ReadModels, pipeline: string, limits: PageLimits, input: PipelinePageInput): Promise<PipelinePage | null> {
  const time = await pageTime(ledger, undefined);
  const { definition, timetable, summary } = await tableView(models, pipeline);
  // A pipeline with keys at another instant than their slot's (after a zone change) may be folded instead: then its keys
  // are read first, so a page that goes to the fold has read nothing else. None such: the keys can wait.
  const early = summary.misaligned > 0 ? await historyKeys(models, pipeline, timetable, time.nowMs) : undefined;
  if (early === null) return null;
  // First the part that reads the most (up to thousands of events decoded), while nothing else of the page is held.
  const audit = await newestAudit(ledger, pipeline, limits.audit ?? 200);
  const calendar = await calendarOfNow(ledger, pipeline, timetable, time.nowMs, limits, input);
  const [rangeFrom, rangeTo] = rangeOf(timetable, {}, time.nowMs);
  const slots = early === undefined && rangeTo >= rangeFrom ? timetable.countSlots(rangeFrom - 1, rangeTo) : 0;
  const sparse = slots > SLOTS_WALKED ? await recordedKeys(models, pipeline, timetable, time.nowMs, slots) : undefined;
  if (sparse === null) return null;
  const keys = sparse ?? early ?? (await historyKeys(models, pipeline, timetable, time.nowMs));
  if (keys === null) return null;
  const hasTasks = (definition.tasks?.length ?? 0) > 0;
  const recent = await recentDates(models, pipeline, keys, hasTasks, timetable, summary);
  const { status } = await ledger.pipelineStatus({ pipeline, nowMs: time.nowMs });
  const pending = sparse ? await oldestPendingOfSlots(timetable, sparse, async (stretch) => (await ledger.pending({ pipeline, ...stretch })).pending) : await oldestPending(ledger, pipeline, keys);
  const runs = await runsPart(ledger, pipeline, time, limits, input);
  const first = timetable.first();
  const last = timetable.lastDue(time.nowMs);
  const poolWait = definition.pool === undefined ? null : await readPipelinePoolWait(ledger, pipeline);
  return {
    kind: 'pipeline',
    time,
    definition,
    ...calendar,
    strip: sparse ? aggregatedStrip(timetable, sparse, STRIP_PERIODS) : historyStrip(keys, STRIP_COLUMNS),
    taskGrid: hasTasks ? taskDateGrid(definition.tasks?.map((t) => t.id) ?? [], recent.gridDates, await tasksOfDates(ledger, pipeline, recent.gridDates.map((d) => d.date))) : null,
    pending: { pipeline, from: last === undefined ? null : (first?.date ?? null), to: last?.date ?? null, pending, inFlight: pendingInFlight(status.inFlight, keys, timetable, time.nowMs) },
    pendingTotal: status.pending.total,
    paused: summary.paused,
    retired: summary.retired,
    ...(poolWait && pending.some((p) => p.reason !== 'upstream' && p.reason !== 'waitingForPrevious' && p.reason !== 'up_for_retry') ? { poolWait } : {}),
    ...runs,
    hasTasks,
    points: recent.points,
    chartDates: recent.chartDates,
    audit: audit.entries,
    auditScanned: audit.scanned,
    auditTotal: summary.auditEntries,
  };
}

/**
 * The calendar window's part of the page, from the window's state read here and dropped on return: a page's
 * rows held while the rest of it was read outlived collections of the young generation (a report promoted them
 * at every page).
 */
async function calendarOfNow(ledger: Ledger, pipeline: string, timetable: Timetable, nowMs: number, limits: PageLimits, input: PipelinePageInput): Promise<Pick<PipelinePage, 'watermark' | 'completeThrough' | 'calendar' | 'calendarPages' | 'calendarRange'>> {
  const window = calendarWindow(timetable, nowMs, { ...input, ...rangeEnd(input) }, timetable.dailyKeys ? (limits.monthRows ?? 120) : (limits.dayRows ?? defaultDayRows(timetable, nowMs)));
  // Without metrics: a cell shows none, and a day of minutes' successes would decode 1,440 result payloads.
  const state = await ledger.state({ pipeline, ...windowRange(window, input), limit: CALENDAR_CELLS, metrics: false });
  return { watermark: state.watermark, completeThrough: state.completeThrough, ...calendarPart(timetable, state, nowMs, window, input) };
}

/**
 * The chart's points and the task grid's dates, from the most recent recorded keys' rows read in one read by the
 * logical dates' index from the oldest of them (the rows read are dropped on return, as in `calendarOfNow`).
 */
async function recentDates(models: ReadModels, pipeline: string, keys: History, hasTasks: boolean, timetable: Timetable, summary: PipelineSummary): Promise<{ gridDates: DateState[]; points: PipelinePage['points']; chartDates: number }> {
  const { latest, recorded } = newestRecorded(keys, Math.max(CHART_DATES, TASK_GRID_DATES));
  const wanted = new Set(latest.map((i) => keys.dates[i] as string));
  const latestRows = latest.length === 0 ? [] : (await models.dates(pipeline, { fromMs: Math.min(...latest.map((i) => keys.at[i] as number)), light: true })).filter((d) => wanted.has(d.date));
  const chartDates = latestRows.slice(-CHART_DATES);
  return {
    gridDates: hasTasks ? latestRows.slice(-TASK_GRID_DATES) : [],
    points: pointsFromDates(chartDates, { watermark: summary.watermark, completeThrough: throughMark(chartDates, timetable, summary.completeThrough) }),
    chartDates: Math.min(recorded, CHART_DATES),
  };
}
