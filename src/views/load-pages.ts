import { readSchedulers } from '../ops/read-schedulers.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { buildCalendar, cellStatus, type CalendarInput, type CellStatus } from '../../projections/views/calendar.js';
import { historyStrip } from '../../projections/views/history-strip.js';
import { compareNames } from '../../projections/views/compare-names.js';
import { taskDateGrid } from '../../projections/views/task-date-grid.js';
import { compareWorstFirst, withPause, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { statusOfFold } from '../ledger/status-of-fold.js';
import type { TaskRuns } from '../../projections/task-runs.js';
import { inDueStrip, statusStrip } from '../../projections/views/status-strip.js';
import { AUDIT_EVENT_TYPES, auditEntriesOf, historyFold, type AuditEntry, type PipelineHistory } from '../../projections/views/pipeline-history.js';
import { runRows } from '../../projections/views/run-rows.js';
import { LedgerError } from '../errors.js';
import { IN_THREAD_BATCH_ROWS, VERIFY_BATCH_ROWS, verifyChain } from '../audit/verify-chain.js';
import type { Ledger } from '../ledger/ledger.js';
import type { AsOf, DateRow, StateView } from '../ledger/ledger-types.js';
import { statusFromTables, tableView, viewOfSummary } from '../ledger/read-model-views.js';
import type { ReadModels } from '../store/read-models.js';
import { sha256Hex } from '../store/seal-events.js';
import { createTimetableHistory } from '../timetable/timetable-history.js';
import type { Timetable } from '../timetable/timetable.js';
import { stripRange, tableStrip, type StripRange } from './table-strip.js';
import { calendarWindow, defaultDayRows, type CalendarWindow, type CalendarWindowInput } from './calendar-window.js';
import type { AuditPage, OverviewPage, OverviewRow, PageTime, PipelinePage, RunPage, VerifyPage } from './page-models.js';
import { inZone } from '../format/zoned-instant.js';
import { addOverdueRetries, addPoolWaits } from '../ops/read-status.js';

export type PageLimits = {
  /** Calendar rows kept (most recent); default 120 months for daily pipelines, 31 days for the rest. */
  monthRows?: number;
  dayRows?: number;
  /** Runs listed on a pipeline page (newest first); default 100. */
  runs?: number;
  /** Audit entries listed; default 200. */
  audit?: number;
};

/**
 * Resolves where a page stands in time: with an as-of point, the moment it
 * names (an instant, or when the event at that position was recorded, as the
 * CLI's `--as-of` does); without one, the ledger's clock and head.
 */
export async function pageTime(ledger: Ledger, asOf: AsOf | undefined): Promise<PageTime> {
  const head = await ledger.store.head();
  if (asOf === undefined) return { nowMs: ledger.now(), asOf: null, position: head.position };
  if ('instant' in asOf) return { nowMs: Date.parse(asOf.instant), asOf, position: await ledger.store.positionAt(asOf.instant) };
  if (asOf.position > head.position) {
    throw new LedgerError('input.asOfBeyondHead', `as_of ${asOf.position} is past the ledger's last event (position ${head.position}); pass a position up to ${head.position} or an instant`);
  }
  let nowMs = ledger.now();
  for await (const batch of ledger.store.read({ fromPosition: asOf.position, toPosition: asOf.position, batchSize: 1 })) {
    const event = batch[0];
    if (event) nowMs = Date.parse(event.recordedAt);
  }
  return { nowMs, asOf, position: asOf.position };
}

/** Every pipeline defined at a position, by name (the definitions as they stood then). */
export async function definitionsAt(ledger: Ledger, position: number): Promise<PipelineDefinition[]> {
  const byName = new Map<string, PipelineDefinition>();
  // Only the definitions' events, by their type: not every run's event of the history.
  for await (const batch of ledger.store.read({ toPosition: position, types: ['PipelineDefined', 'PipelineRedefined'] })) {
    for (const event of batch) {
      if (event.type === 'PipelineDefined') byName.set(event.data.pipeline, event.data);
      if (event.type === 'PipelineRedefined') byName.set(event.data.pipeline, event.data.definition);
    }
  }
  return [...byName.values()].sort((a, b) => compareNames(a.pipeline, b.pipeline));
}

function asOfInput(time: PageTime): { asOf?: AsOf } {
  return time.asOf ? { asOf: time.asOf } : {};
}

/**
 * The overview: one row per pipeline, worst first, with the same summary as
 * `status` (lag, pending by reason, in flight, last failure) and a strip of
 * its last 30 slots.
 */
export async function loadOverview(ledger: Ledger, asOf: AsOf | undefined, definitions?: PipelineDefinition[]): Promise<OverviewPage> {
  // Definitions given with no as-of are today's (the report's chosen pipelines): their rows are the tables' too.
  const live = asOf === undefined ? ledger.store.readModels : undefined;
  if (live !== undefined && (await live.ensure())) return loadTableOverview(ledger, live, definitions?.map((d) => d.pipeline));
  const time = await pageTime(ledger, asOf);
  const head = await ledger.store.head();
  const rows: OverviewRow[] = [];
  const models = await tablesOf(ledger, time);
  for (const definition of definitions ?? (await definitionsAt(ledger, time.position))) {
    const status = await overviewStatus(ledger, models, definition.pipeline, time);
    if (status === null) continue;
    // The strip is the last 30 rows of the whole state: of the present read a page at a time without metrics; of the
    // past, the state from 30 slots before the last due one (57 years of minutes would be refused as too many slots).
    // A row recorded on a slot not due yet is left out: the strip's columns are due slots (see `inDueStrip`).
    const { timetable } = await ledger.pipeline(definition.pipeline, time.asOf ?? undefined);
    const lastDueMs = lastDueTick(timetable, time.nowMs);
    const last: DateRow[] = time.asOf === null ? [] : await lastRowsOfPast(ledger, definition.pipeline, timetable, time.asOf, time.nowMs, 30);
    if (time.asOf === null) {
      await eachStateRow(ledger, definition.pipeline, time, (row) => {
        if (!inDueStrip(row, lastDueMs)) return;
        last.push(row);
        if (last.length > 60) last.splice(0, last.length - 30);
      });
    }
    rows.push({ status, strip: statusStrip(last, 30, (iso) => inZone(iso, definition.timezone)) });
  }
  rows.sort((a, b) => compareWorstFirst(a.status, b.status));
  return { kind: 'overview', time, head, rows, ...(time.asOf === null ? { schedulers: await readSchedulers(ledger, time.nowMs) } : {}) };
}

/**
 * The read models a page of the present reads from, or null (a page of the past, a store without
 * them): then each page folds its pipelines, as it always did.
 */
async function tablesOf(ledger: Ledger, time: PageTime): Promise<ReadModels | null> {
  const models = time.asOf === null ? ledger.store.readModels : undefined;
  return models !== undefined && (await models.ensure()) ? models : null;
}

/** An overview row's status (with its pause): from the pipeline's summary row and the dates after its complete-through, or from its fold; null for a pipeline retired then. */
async function overviewStatus(ledger: Ledger, models: ReadModels | null, pipeline: string, time: PageTime): Promise<PipelineStatus | null> {
  if (models !== null) {
    const summary = await models.summary(pipeline);
    if (summary?.retired) return null;
    return withPause((await statusFromTables(models, pipeline, time.nowMs)).status, summary?.paused ?? null);
  }
  const { timetable, state, history } = await ledger.pipeline(pipeline, time.asOf ?? undefined);
  if (state.retired !== null) return null;
  return withPause(statusOfFold({ timetable, state, history, nowMs: time.nowMs }), state.paused);
}

/**
 * A pipeline page's definition, timetable and task runs: from the summary row when the page reads the
 * tables (the task runs, which no table holds, folded only for a pipeline that declares tasks), else
 * from the fold. A fold holds every date and run of the pipeline: a report of three hourly pipelines
 * over two years peaked at 550 MB folding them.
 */
async function pageDefinition(ledger: Ledger, pipeline: string, time: PageTime): Promise<{ definition: PipelineDefinition; timetable: Timetable; tasks: () => Promise<TaskRuns>; control: Pick<PipelineState, 'paused' | 'retired'> }> {
  const models = await tablesOf(ledger, time);
  const folded = async () => ledger.pipeline(pipeline, time.asOf ?? undefined);
  if (models === null) {
    const { definition, timetable, tasks, state } = await folded();
    return { definition, timetable, tasks: async () => tasks, control: { paused: state.paused, retired: state.retired } };
  }
  const { definition, timetable, summary } = await tableView(models, pipeline);
  return { definition, timetable, tasks: async () => (await folded()).tasks, control: { paused: summary.paused, retired: summary.retired } };
}

/** Slots of the overview's strip. */
const OVERVIEW_STRIP = 30;

/**
 * The overview of now from the read models: the summary rows name the pipelines, `status` reads each one's row, and
 * its strip is the statuses of `state` from the 30th due slot back (the same last 30 keys the whole state ends with),
 * read by `tableStrip` without building that state. `only`: just these pipelines (the report's).
 */
async function loadTableOverview(ledger: Ledger, models: ReadModels, only?: readonly string[]): Promise<OverviewPage> {
  const time = await pageTime(ledger, undefined);
  const head = await ledger.store.head();
  const rows: OverviewRow[] = [];
  const chosen = only === undefined ? null : new Set(only);
  // A retired pipeline leaves the overview (its pages and history stay, by its name).
  const summaries = (await models.summaries()).filter((s) => s.definition !== null && s.retired === null && (chosen === null || chosen.has(s.pipeline))).sort((a, b) => compareNames(a.pipeline, b.pipeline));
  // Every status row in one read of the summary rows (as `status` reads them), not two reads of a pipeline's row each.
  const statuses = await ledger.pipelineStatuses({ pipelines: summaries.map((s) => s.pipeline), nowMs: time.nowMs });
  // The timetable of a summary's definition is shared by the pipelines of one schedule, and so are the strip's slots.
  const ranges = new Map<Timetable, StripRange>();
  for (const [i, summary] of summaries.entries()) {
    const pipeline = summary.pipeline;
    const { timetable } = viewOfSummary(models, pipeline, summary);
    let range = ranges.get(timetable);
    if (range === undefined) ranges.set(timetable, (range = stripRange(timetable, time.nowMs, OVERVIEW_STRIP)));
    rows.push({ status: statuses[i] as PipelineStatus, strip: await tableStrip(models, pipeline, timetable, range, time.nowMs, OVERVIEW_STRIP) });
  }
  // Pools are a fact of now: a full pool's pipelines say their dates wait for a place.
  // The list pipelineStatuses gave (the rows' statuses, in its order): it knows which of its pipelines are in a pool.
  await addPoolWaits(ledger, statuses, time.nowMs);
  // A retry overdue (nobody started it by its time plus the lease) is named in the row, as `status` names it.
  await addOverdueRetries(ledger, rows.map((r) => r.status), time.nowMs);
  rows.sort((a, b) => compareWorstFirst(a.status, b.status));
  return { kind: 'overview', time, head, rows, ...(time.asOf === null ? { schedulers: await readSchedulers(ledger, time.nowMs) } : {}) };
}

/** A pipeline's history folded from its events: watermark and complete-through over time, and its audit timeline. */
export async function loadHistory(ledger: Ledger, pipeline: string, toPosition: number): Promise<PipelineHistory> {
  const fold = historyFold((definition) => createTimetableHistory(definition));
  for await (const batch of ledger.store.read({ pipeline, toPosition })) for (const event of batch) fold.add(event);
  return fold.result();
}

/**
 * The keys of the slots after the last due one that fall in the same calendar
 * row (the rest of this month, or of this local day), with their instants, so
 * the calendar shows what is not due yet. A key `state` shows (a date recorded on
 * a slot not due yet) is left out: its row is drawn instead.
 */
export function notDueKeys(timetable: Timetable, state: StateView, nowMs: number): Array<{ date: string; at: number }> {
  const last = timetable.lastDue(nowMs);
  let slot = last ? timetable.next(last) : timetable.first();
  if (!slot) return [];
  const rowOf = (key: string) => (timetable.dailyKeys ? key.slice(0, 7) : key.slice(0, 10));
  const row = rowOf(last?.date ?? slot.date);
  const keys: Array<{ date: string; at: number }> = [];
  // Bounded: a row holds at most a month of days or a day of minutes.
  for (let n = 0; slot && n < 1500 && rowOf(slot.date) === row; n++, slot = timetable.next(slot)) keys.push({ date: slot.date, at: Date.parse(slot.logicalDate) });
  if (keys.length === 0) return keys;
  // The rows already shown under those keys, found without a set of every row's key (a day of minutes is 1,440).
  const candidates = new Set(keys.map((k) => k.date));
  const shown = new Set<string>();
  for (const d of state.dates) if (candidates.has(d.date)) shown.add(d.date);
  return shown.size === 0 ? keys : keys.filter((key) => !shown.has(key.date));
}

/**
 * The calendar of a state view, with the not-yet-due rest of its last row: each not-due slot in its place among the
 * rows by instant (before a row of the same instant, as `state` lists a slot first), so a row after the last due slot
 * (recorded on a slot not due yet, or off-schedule) keeps its cell and the columns their order.
 */
export function calendarOf(timetable: Timetable, state: StateView, nowMs: number, maxRows: number | undefined, explicitTo: boolean) {
  const notDue = explicitTo ? [] : notDueKeys(timetable, state, nowMs);
  const dates: CalendarInput[] = [];
  let next = 0;
  for (const row of state.dates) {
    const at = Date.parse(row.logicalDate);
    for (let key = notDue[next]; key !== undefined && key.at <= at; key = notDue[++next]) dates.push(notDueRow(key.date));
    dates.push(row);
  }
  for (const key of notDue.slice(next)) dates.push(notDueRow(key.date));
  return buildCalendar({
    dates,
    dailyKeys: timetable.dailyKeys,
    instant: (iso: string) => timetable.formatInstant(Date.parse(iso)),
    watermark: state.watermark,
    completeThrough: state.completeThrough,
    ...(maxRows === undefined ? {} : { maxRows }),
  });
}

/** A calendar cell of a slot not due yet, with no row. */
function notDueRow(date: string): CalendarInput {
  return { date, status: 'not-due', stalled: false, attempts: 0, error: null };
}

/**
 * A pipeline page's calendar part: the calendar of the window's state, its Older/Newer pages (kept inside
 * the asked range), and the range it shows when one was asked for.
 */
export function calendarPart(timetable: Timetable, state: StateView, nowMs: number, window: CalendarWindow, input: PipelinePageInput): Pick<PipelinePage, 'calendar' | 'calendarPages' | 'calendarRange'> {
  const calendar = calendarOf(timetable, state, nowMs, undefined, !window.latest);
  const ranged = input.from !== undefined || input.to !== undefined;
  return {
    calendar: { ...calendar, hiddenRows: window.older?.rows ?? 0 },
    calendarPages: { older: window.older, newer: window.newer, ...(input.from === undefined ? {} : { from: input.from }), ...(input.rows === undefined ? {} : { limit: input.rows }), ...rangeEnd(input) },
    calendarRange: ranged && state.dates.length > 0 ? { from: state.dates[0]?.date ?? '', to: state.dates.at(-1)?.date ?? '' } : ranged ? { from: input.from ?? '…', to: input.to ?? '…' } : null,
  };
}

/**
 * The range of `state` a calendar window reads: the window's; the newest window of a page asked for no range ends open,
 * as `state` without --to does, so the rows after the last due slot (a date recorded on a slot not due yet, an
 * off-schedule run since) are drawn in its last row.
 */
export function windowRange(window: CalendarWindow, input: CalendarWindowInput): { from?: string; to?: string } {
  if (window.from === null || window.to === null) return {};
  const open = window.latest && input.to === undefined && rangeEnd(input).until === undefined;
  return open ? { from: window.from } : { from: window.from, to: window.to };
}

/** Where a pipeline page stands in its calendar and runs: the calendar window, and the run the runs table lists the runs before. */
export type PipelinePageInput = CalendarWindowInput & { runsBefore?: string };

/**
 * The end of the range the calendar pages walk inside: kept from an older or newer page, or a strip bucket's
 * `to` (a page asked with both `from` and `to`); none when the page was not asked for a range.
 */
export function rangeEnd(input: CalendarWindowInput): { until?: string } {
  const until = input.until ?? (input.from !== undefined && input.to !== undefined ? input.to : undefined);
  return until === undefined ? {} : { until };
}

/** Cells a calendar page reads at most (31 days of minutes fit). */
const CALENDAR_CELLS = 50_000;
/** Columns of the whole-history strip. */
const STRIP_COLUMNS = 600;
/** Dates of the task × date grid (the most recent with a run). */
const TASK_GRID_DATES = 30;

/**
 * The pipeline page: one window of its calendar (the most recent rows by
 * default; `from`/`to` narrow it to a range, as the history strip's links do,
 * and older rows page back inside it), the whole history as a strip, pending
 * with reasons, the task × date grid, a page of runs (newest first), watermark
 * by logical date, audit timeline.
 */
export async function loadPipelinePage(ledger: Ledger, pipeline: string, asOf: AsOf | undefined, limits: PageLimits = {}, input: PipelinePageInput = {}): Promise<PipelinePage> {
  return (await loadPipelineSection(ledger, pipeline, asOf, limits, input)).page;
}

/**
 * The pipeline page and its whole audit timeline (the page keeps the most
 * recent entries), from one fold of its events: `report` builds its audit
 * section from these instead of folding every pipeline a second time.
 */
export async function loadPipelineSection(ledger: Ledger, pipeline: string, asOf: AsOf | undefined, limits: PageLimits = {}, input: PipelinePageInput = {}): Promise<{ page: PipelinePage; audit: AuditEntry[] }> {
  const time = await pageTime(ledger, asOf);
  const { definition, timetable, tasks, control } = await pageDefinition(ledger, pipeline, time);
  const window = calendarWindow(timetable, time.nowMs, { ...input, ...rangeEnd(input) }, timetable.dailyKeys ? (limits.monthRows ?? 120) : (limits.dayRows ?? defaultDayRows(timetable, time.nowMs)));
  const state = await ledger.state({ pipeline, ...windowRange(window, input), limit: CALENDAR_CELLS, ...asOfInput(time) });
  // The strip and the task grid span the whole history: one status per date, whatever window the calendar shows.
  // Read without metrics, and dropped once the strip is drawn, before the pending list and the history are read.
  const { strip, withRuns } = await wholeHistoryStrip(ledger, pipeline, time);
  const pending = await ledger.pending({ pipeline, ...asOfInput(time) });
  const folded = await loadHistory(ledger, pipeline, time.position);
  const runs = await runsPart(ledger, pipeline, time, limits, input);
  const page: PipelinePage = {
    kind: 'pipeline',
    time,
    definition,
    watermark: state.watermark,
    completeThrough: state.completeThrough,
    ...calendarPart(timetable, state, time.nowMs, window, input),
    strip,
    taskGrid: (definition.tasks?.length ?? 0) > 0 ? taskDateGrid(definition.tasks?.map((t) => t.id) ?? [], withRuns, await tasks()) : null,
    pending,
    pendingTotal: pending.pending.length,
    paused: control.paused,
    retired: control.retired,
    ...runs,
    hasTasks: (definition.tasks?.length ?? 0) > 0,
    points: folded.points,
    chartDates: null,
    audit: folded.audit.slice(-(limits.audit ?? 200)).reverse(),
    auditScanned: null,
    auditTotal: folded.audit.length,
  };
  return { page, audit: folded.audit };
}

/**
 * A pipeline page's runs table: `limits.runs` runs (default 100) newest first, before the run `input.runsBefore` when
 * given, and the run the older page lists the runs before (null: none left).
 */
export async function runsPart(ledger: Ledger, pipeline: string, time: PageTime, limits: PageLimits, input: PipelinePageInput): Promise<Pick<PipelinePage, 'runs' | 'olderRuns' | 'runsBefore'>> {
  const runsLimit = limits.runs ?? 100;
  // One run more than the page tells whether older runs are left.
  const runsPage = await ledger.runs({ pipeline, limit: runsLimit + 1, ...(input.runsBefore === undefined ? {} : { before: input.runsBefore }), ...asOfInput(time) });
  const olderRuns = runsPage.runs.length > runsLimit;
  // runRows lists the runs (oldest first) newest first.
  const runs = runRows(olderRuns ? runsPage.runs.slice(1) : runsPage.runs, runsLimit, time.nowMs);
  return { runs: runs.rows, olderRuns: olderRuns ? (runs.rows.at(-1)?.runId ?? null) : null, runsBefore: input.runsBefore ?? null };
}

/** The whole-history strip of a pipeline page and the last dates with a run (for its task grid). */
async function wholeHistoryStrip(ledger: Ledger, pipeline: string, time: PageTime) {
  const cells: { dates: string[]; statuses: CellStatus[] } = { dates: [], statuses: [] };
  const withRuns: DateRow[] = [];
  await eachStateRow(ledger, pipeline, time, (row) => {
    cells.dates.push(row.date);
    cells.statuses.push(cellStatus(row));
    if (row.runId === null) return;
    withRuns.push(row);
    if (withRuns.length > 2 * TASK_GRID_DATES) withRuns.splice(0, withRuns.length - TASK_GRID_DATES);
  });
  return { strip: historyStrip(cells, STRIP_COLUMNS), withRuns: withRuns.slice(-TASK_GRID_DATES) };
}

/**
 * The last `count` rows of a pipeline's whole state as it stood at `asOf`: the state from the slot `count - 1` before the
 * last due one, which ends as the whole state does (its slots, and the off-schedule rows after them); the whole state
 * when the pipeline has fewer slots (its off-schedule rows before the first slot show then too). Rows recorded on a slot
 * not due yet are left out, as the strip leaves them out (`inDueStrip`).
 */
async function lastRowsOfPast(ledger: Ledger, pipeline: string, timetable: Timetable, asOf: AsOf, nowMs: number, count: number): Promise<DateRow[]> {
  let slot = timetable.lastDue(nowMs);
  for (let i = 1; slot !== undefined && i < count; i++) slot = timetable.slotAtOrBefore(Date.parse(slot.logicalDate) - 1);
  const view = await ledger.state({ pipeline, metrics: false, asOf, ...(slot === undefined ? {} : { from: slot.date }) });
  const lastDueMs = lastDueTick(timetable, nowMs);
  return view.dates.filter((row) => inDueStrip(row, lastDueMs)).slice(-count);
}

/** The last due slot's logical instant, or -Infinity when no slot is due yet. */
function lastDueTick(timetable: Timetable, nowMs: number): number {
  const last = timetable.lastDue(nowMs);
  return last === undefined ? Number.NEGATIVE_INFINITY : Date.parse(last.logicalDate);
}

/** Rows of a state page read to walk a whole history (a page of the present; one of the past is folded once, whole). */
const STATE_PAGE_ROWS = 2000;

/**
 * Every row of a pipeline's whole state, oldest first, without metrics: a page at a time from the
 * tables, so a long history is never held at once (17,520 hourly rows read whole took 90 MB).
 */
async function eachStateRow(ledger: Ledger, pipeline: string, time: PageTime, visit: (row: DateRow) => void): Promise<void> {
  if (time.asOf !== null) {
    for (const row of (await ledger.state({ pipeline, metrics: false, asOf: time.asOf })).dates) visit(row);
    return;
  }
  let from: string | undefined;
  for (;;) {
    const page = await ledger.state({ pipeline, metrics: false, limit: STATE_PAGE_ROWS, ...(from === undefined ? {} : { from }) });
    for (const row of page.dates) visit(row);
    if (page.nextFrom === null || page.nextFrom === undefined) return;
    from = page.nextFrom;
  }
}

/** A run page: the run, its task grid (pipelines with tasks) and its events. */
export async function loadRunPage(ledger: Ledger, pipeline: string, runId: string, asOf: AsOf | undefined): Promise<RunPage> {
  const time = await pageTime(ledger, asOf);
  const grid = await ledger.runTasks({ pipeline, runId, ...asOfInput(time) });
  const { definition } = await ledger.pipeline(pipeline, time.asOf ?? undefined);
  const { events } = await ledger.log({ runId, ...asOfInput(time) });
  return { kind: 'run', time, timeZone: definition.timezone, grid, events };
}

/** Events an audit page reads back at most (of the types that make entries) before it offers the older ones on a page of their own. */
export const AUDIT_PAGE_SCAN = 10_000;

/**
 * A page of the audit timeline of every pipeline, newest first: the entries of the events before position `before`
 * (default: every event the page reflects), read back by index over the event types that make entries, until `limit`
 * entries or `AUDIT_PAGE_SCAN` such events. `older` is the `before` of the next page (null: none left). Nothing else is
 * read, so a page costs its own entries, not the ledger's history.
 */
export async function loadAuditPage(ledger: Ledger, asOf: AsOf | undefined, options: { limit?: number; before?: number } = {}): Promise<AuditPage> {
  const limit = options.limit ?? 500;
  const time = await pageTime(ledger, asOf);
  const entries: AuditEntry[] = [];
  const upTo = Math.min(time.position, options.before === undefined ? Number.POSITIVE_INFINITY : options.before - 1);
  let older: number | null = null;
  let scanned = 0;
  const filter = { toPosition: upTo, types: AUDIT_EVENT_TYPES, batchSize: 500 };
  const read = upTo < 1 ? undefined : ledger.store.readBackward?.(filter);
  if (read === undefined && upTo >= 1) {
    // A store that reads forward only: the same events, the newest kept.
    const kept: RecordedEvent[] = [];
    for await (const batch of ledger.store.read(filter)) {
      kept.push(...batch);
      if (kept.length > 2 * AUDIT_PAGE_SCAN) kept.splice(0, kept.length - AUDIT_PAGE_SCAN);
    }
    for (let i = kept.length - 1; i >= 0; i--) {
      const event = kept[i] as RecordedEvent;
      if (entries.length >= limit || scanned >= AUDIT_PAGE_SCAN) {
        older = event.position + 1;
        break;
      }
      scanned += 1;
      entries.push(...auditEntriesOf(event).reverse());
    }
  }
  if (read !== undefined) {
    scan: for await (const batch of read) {
      for (const event of batch) {
        // An event's entries stay on one page: the page ends between events.
        if (entries.length >= limit || scanned >= AUDIT_PAGE_SCAN) {
          older = event.position + 1;
          break scan;
        }
        scanned += 1;
        entries.push(...auditEntriesOf(event).reverse());
      }
    }
  }
  const zones: Record<string, string> = {};
  for (const definition of await definitionsAt(ledger, time.position)) zones[definition.pipeline] = definition.timezone;
  return { kind: 'audit', time, entries, total: await auditTotal(ledger, time), zones, older, before: options.before ?? null };
}

/**
 * Every audit entry of the ledger, from the count each pipeline's read-model row keeps (one sum, no event read); null
 * for a page of the past (the rows count the present) or a store without read models.
 */
async function auditTotal(ledger: Ledger, time: PageTime): Promise<number | null> {
  const models = time.asOf === null ? ledger.store.readModels : undefined;
  if (models === undefined || !(await models.ensure())) return null;
  return models.auditEntries();
}

/**
 * The `verify` result with the head hash; the chain is always walked whole, whatever the as-of.
 * `inThread`: payloads checked in this thread, not a second one (the report: a worker's own heap cost it 40 MB).
 * What the walk adds to a report's peak is mostly outside the JavaScript heap: JSON.parse internalizes every string
 * value of up to 10 characters, and V8 keeps its string table off the heap, with dead entries until the next full
 * collection. The bench ledger's 472,348 run ids (8–10 characters) grew it to a 14 MB mapping during the walk
 * (RSS 156 → 174 MB at the report's end; 1M unique 10-character values: an 8 MB table, 11-character ones: none).
 */
export async function loadVerifyPage(ledger: Ledger, options: { inThread?: boolean } = {}): Promise<VerifyPage> {
  const time = await pageTime(ledger, undefined);
  const batchSize = options.inThread ? IN_THREAD_BATCH_ROWS : VERIFY_BATCH_ROWS;
  const report = await verifyChain(ledger.store.readRaw({ batchSize }), { sha256: sha256Hex, ...(options.inThread ? { worker: null } : {}) });
  return { kind: 'verify', time, report };
}
