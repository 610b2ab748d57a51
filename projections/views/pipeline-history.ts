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

export type AuditKind = 'defined' | 'redefined' | 'cleared' | 'forced' | 'takeover' | 'abandoned' | 'marked';

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
  const note = (e: RecordedEvent, kind: AuditKind, date: string | null, runId: string | null, detail: string) =>
    audit.push({ position: e.position, at: e.recordedAt, actor: e.metadata.actor, kind, pipeline: e.data.pipeline, date, runId, reason: e.metadata.reason ?? null, detail });

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
    switch (event.type) {
      case 'PipelineDefined':
        walker = walkerFor(event.data);
        through = walkFrom(state, walker.first(), null);
        note(event, 'defined', null, null, `defined: ${event.data.schedule} (${event.data.timetable}) in ${event.data.timezone} from ${event.data.start}`);
        break;
      case 'PipelineRedefined':
        walker = walkerFor(event.data.definition);
        through = walkFrom(state, walker.first(), null);
        note(event, 'redefined', null, null, `redefined: ${event.data.changes.map((c) => `${c.field} ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join(', ')}`);
        break;
      case 'RunCleared':
        note(event, 'cleared', event.data.date, event.data.runId, `cleared ${event.data.date} (was ${event.data.previousStatus})`);
        break;
      case 'RunStarted':
        if (event.data.force) note(event, 'forced', event.data.date, event.data.runId, `forced re-run of ${event.data.date} (attempt ${event.data.attempt})`);
        if (event.data.takeoverOf) note(event, 'takeover', event.data.date, event.data.runId, `took over run ${event.data.takeoverOf} of ${event.data.date} after its lease expired`);
        break;
      case 'RunAbandoned':
        note(event, 'abandoned', event.data.date, event.data.runId, `abandoned run of ${event.data.date}: ${event.data.reason}`);
        break;
      case 'RunMarked':
        note(event, 'marked', event.data.date, event.data.runId, `marked ${event.data.date} ${event.data.status} (was ${event.data.previousStatus}); no command ran`);
        break;
      default:
        break;
    }
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
