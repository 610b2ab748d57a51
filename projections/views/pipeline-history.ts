import type { EventType, LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { isDone } from '../date-state.js';
import { evolve, initialState, type PipelineState } from '../pipeline-state.js';
import type { Slot } from '../slot.js';

/** Walks a timetable's slots; `src/` builds one from a definition, so this file stays pure. */
export type SlotWalker = { first(): Slot | undefined; next(slot: Slot): Slot | undefined };

/** Watermark and complete-through right after the event at `position`; logical dates for plotting. */
export type HistoryPoint = {
  position: number;
  at: string;
  watermark: string | null;
  watermarkAt: string | null;
  completeThrough: string | null;
  completeThroughAt: string | null;
};

export type AuditKind = 'defined' | 'redefined' | 'cleared' | 'forced' | 'takeover' | 'abandoned' | 'marked' | 'paused' | 'unpaused' | 'retired' | 'unretired';

/** One entry of the audit timeline: who changed the course of the pipeline's history, and why. */
export type AuditEntry = {
  position: number;
  at: string;
  actor: string;
  kind: AuditKind;
  pipeline: string;
  date: string | null;
  runId: string | null;
  reason: string | null;
  /** One short sentence: what changed. */
  detail: string;
};

export type PipelineHistory = { points: HistoryPoint[]; audit: AuditEntry[]; position: number };

/**
 * Folds a pipeline's events (oldest first) into the watermark and
 * complete-through over time, one point per change, and the audit timeline of
 * definitions, redefinitions, clears, forced re-runs, takeovers and abandoned
 * runs with actor and reason. Complete-through is advanced from where it
 * stands when the next slot succeeds, and re-walked from the first slot only
 * when a key at or before it stops being a success, so a history of n slots
 * costs O(n) for the usual in-order runs.
 *
 * One event at a time, so callers read the log in batches and never hold it whole.
 *
 * @example
 * const fold = historyFold(walkerFor);
 * for await (const batch of store.read({ pipeline })) for (const e of batch) fold.add(e);
 * fold.result().points
 */
export function historyFold(walkerFor: (definition: PipelineDefinition) => SlotWalker): { add(event: RecordedEvent): void; result(): PipelineHistory } {
  let state: PipelineState | null = null;
  let walker: SlotWalker | null = null;
  let through: Slot | null = null;
  const points: HistoryPoint[] = [];
  const audit: AuditEntry[] = [];
  const walkFrom = (s: PipelineState, from: Slot | undefined, last: Slot | null): Slot | null => {
    let done = last;
    for (let slot = from; slot && isDone(s.dates.get(slot.date)?.status); slot = walker?.next(slot)) done = slot;
    return done;
  };

  const add = (event: RecordedEvent): void => {
    state ??= initialState(event.data.pipeline);
    const before = 'date' in event.data ? state.dates.get(event.data.date)?.status : undefined;
    const previous = { watermark: state.watermark?.date ?? null, through: through?.date ?? null };
    state = evolve(state, event);
    if (event.type === 'PipelineDefined') {
      walker = walkerFor(event.data);
      through = walkFrom(state, walker.first(), null);
    } else if (event.type === 'PipelineRedefined') {
      walker = walkerFor(event.data.definition);
      through = walkFrom(state, walker.first(), null);
    }
    audit.push(...auditEntriesOf(event));
    if (walker && 'date' in event.data && event.type !== 'TaskStateChanged') {
      const key = event.data.date;
      const after = state.dates.get(key)?.status;
      if (after !== before) {
        const next = through ? walker.next(through) : walker.first();
        if (isDone(after) && next?.date === key) through = walkFrom(state, next, through);
        else if (!isDone(after) && through && isAtOrBefore(state, key, through)) through = walkFrom(state, walker.first(), null);
      }
    }
    const watermark = state.watermark;
    if ((watermark?.date ?? null) !== previous.watermark || (through?.date ?? null) !== previous.through || points.length === 0) {
      points.push({
        position: event.position,
        at: event.recordedAt,
        watermark: watermark?.date ?? null,
        watermarkAt: watermark?.logicalDate ?? null,
        completeThrough: through?.date ?? null,
        completeThroughAt: through?.logicalDate ?? null,
      });
    }
  };
  return { add, result: () => ({ points, audit, position: state?.position ?? 0 }) };
}

/** The audit entry of `event`, by its kind, date, run id and detail (the event's position, instant, actor, pipeline and reason). */
type EntryMaker = (kind: AuditKind, date: string | null, runId: string | null, detail: string) => AuditEntry;

/**
 * The audit entries of each type of event that makes any (a definition, redefinition, clear, forced re-run, takeover,
 * abandoned run or mark; a forced take-over makes two). The types read for the audit are this record's keys
 * (`AUDIT_EVENT_TYPES`), so an entry added here is one the type-filtered reads find.
 */
const AUDIT_ENTRIES: { [T in EventType]?: (e: RecordedEvent<Extract<LedgerEvent, { type: T }>>, entry: EntryMaker) => AuditEntry[] } = {
  PipelineDefined: (e, entry) => [entry('defined', null, null, `defined: ${e.data.schedule} (${e.data.timetable}) in ${e.data.timezone} from ${e.data.start}`)],
  PipelineRedefined: (e, entry) => [entry('redefined', null, null, `redefined: ${e.data.changes.map((c) => `${c.field} ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join(', ')}`)],
  RunCleared: (e, entry) => [entry('cleared', e.data.date, e.data.runId, `cleared ${e.data.date} (was ${e.data.previousStatus})`)],
  RunStarted: (e, entry) => [
    ...(e.data.force ? [entry('forced', e.data.date, e.data.runId, `forced re-run of ${e.data.date} (attempt ${e.data.attempt})`)] : []),
    ...(e.data.takeoverOf ? [entry('takeover', e.data.date, e.data.runId, `took over run ${e.data.takeoverOf} of ${e.data.date} after its lease expired`)] : []),
  ],
  RunAbandoned: (e, entry) => [entry('abandoned', e.data.date, e.data.runId, `abandoned run of ${e.data.date}: ${e.data.reason}`)],
  PipelinePaused: (_e, entry) => [entry('paused', null, null, 'paused: fleet runs leave it alone')],
  PipelineUnpaused: (_e, entry) => [entry('unpaused', null, null, 'unpaused')],
  PipelineRetired: (_e, entry) => [entry('retired', null, null, 'retired: history kept')],
  PipelineUnretired: (_e, entry) => [entry('unretired', null, null, 'brought back (unretired)')],
  RunMarked: (e, entry) => [entry('marked', e.data.date, e.data.runId, `marked ${e.data.date} ${e.data.status} (was ${e.data.previousStatus}); no command ran`)],
};

/** The types of the events `auditEntriesOf` makes entries of: an event of any other type makes none. */
export const AUDIT_EVENT_TYPES = Object.keys(AUDIT_ENTRIES) as EventType[];

/**
 * The audit entries an event makes: each depends on its event alone, so the newest entries can be read from the
 * newest events by index.
 *
 * @example
 * auditEntriesOf(clearedEvent)[0]?.detail // 'cleared 2026-11-03 (was success)'
 */
export function auditEntriesOf(e: RecordedEvent): AuditEntry[] {
  const make = Object.hasOwn(AUDIT_ENTRIES, e.type) ? (AUDIT_ENTRIES[e.type] as ((event: RecordedEvent, entry: EntryMaker) => AuditEntry[]) | undefined) : undefined;
  if (make === undefined) return [];
  return make(e, (kind, date, runId, detail) => ({
    position: e.position,
    at: e.recordedAt,
    actor: e.metadata.actor,
    kind,
    pipeline: e.data.pipeline,
    date,
    runId,
    reason: e.metadata.reason ?? null,
    detail,
  }));
}

function isAtOrBefore(state: PipelineState, key: string, through: Slot): boolean {
  const logical = state.dates.get(key)?.logicalDate;
  return logical !== undefined && Date.parse(logical) <= Date.parse(through.logicalDate);
}

/**
 * At most `max` points for a chart, evenly spread, always keeping the first
 * and the last so the line starts and ends where the history does.
 *
 * @example
 * thinPoints(points, 400).length <= 400
 */
export function thinPoints<T>(points: readonly T[], max: number): T[] {
  if (points.length <= max || max < 2) return [...points];
  const out: T[] = [];
  const step = (points.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) {
    const p = points[Math.round(i * step)];
    if (p !== undefined) out.push(p);
  }
  return out;
}
