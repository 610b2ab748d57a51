import type { PipelineDefinition } from '../events/types/pipeline-definition.js';
import type { RecordedEvent } from '../events/recorded-event.js';
import { isCurrentRun, type DateState } from './date-state.js';
import type { PipelineControl } from './pipeline-control.js';

/** A date key and its logical date; compared by instant, never as text. */
export type DateMark = { date: string; logicalDate: string };

/** Everything the ledger knows about one pipeline, folded from its events. */
export type PipelineState = {
  pipeline: string;
  definition: PipelineDefinition | null;
  definedAt: string | null;
  /** Version of the pipeline's own stream (definitions). */
  version: number;
  dates: Map<string, DateState>;
  /** The greatest date key that ever had a success; never lowered. */
  watermark: DateMark | null;
  /** Position of the last event folded in (0 before any). */
  position: number;
  /** Set while the pipeline is paused: fleet runs start none of its dates. */
  paused: PipelineControl | null;
  /** Set while the pipeline is retired: it leaves status, check, metrics and fleet runs; its history stays. */
  retired: PipelineControl | null;
};

export function initialState(pipeline: string): PipelineState {
  return { pipeline, definition: null, definedAt: null, version: 0, dates: new Map(), watermark: null, position: 0, paused: null, retired: null };
}

/**
 * Folds one event into the state. The fold owns its state: `evolve`
 * updates the `dates` map of the state it is given instead of copying it, so
 * a rebuild over a million events stays linear. Keep a `structuredClone` if
 * you need the previous state.
 *
 * Completions from a run that is not current are ignored here as well as
 * refused by the deciders, so no log, however it was made, can let a stale
 * run change a key.
 *
 * @example
 * const state = events.reduce(evolve, initialState('etl_orders'));
 */
export function evolve(state: PipelineState, event: RecordedEvent): PipelineState {
  const next = { ...state };
  foldInto(next, event, { mark: null, ms: Number.NaN });
  return next;
}

/**
 * Folds `events` in order: the state `events.reduce(evolve, state)` gives,
 * built as one copy of the state record that each event updates, and with the
 * watermark's instant parsed once per new watermark. A copy per event and
 * two `Date.parse` per success were more than half of this fold's time in a
 * cold rebuild.
 *
 * @example
 * const state = evolveAll(initialState('etl_orders'), events);
 */
export function evolveAll(state: PipelineState, events: readonly RecordedEvent[]): PipelineState {
  const next = { ...state };
  const instant: WatermarkInstant = { mark: null, ms: Number.NaN };
  for (const event of events) foldInto(next, event, instant);
  return next;
}

/** The instant of `mark`, the watermark it was parsed for (compared by identity, so a stale one is never used). */
export type WatermarkInstant = { mark: DateMark | null; ms: number };

/**
 * `evolve` on a state record the caller owns, set in place, with the watermark's instant kept in `instant`
 * between calls: for a fold that looks at each event's before and after (the table writer's), where a copy
 * of the record and two `Date.parse` per event showed in a rebuild's time.
 *
 * @example
 * const instant = { mark: null, ms: Number.NaN };
 * for (const event of events) evolveInPlace(state, event, instant);
 */
export function evolveInPlace(state: PipelineState, event: RecordedEvent, instant: WatermarkInstant): void {
  foldInto(state, event, instant);
}

/** `evolve` on a state record the caller owns: sets its fields in place. */
function foldInto(next: PipelineState, event: RecordedEvent, instant: WatermarkInstant): void {
  next.position = event.position;
  switch (event.type) {
    case 'PipelineDefined':
      next.definition = event.data;
      next.definedAt = event.recordedAt;
      next.version = event.streamVersion;
      return;
    case 'PipelineRedefined':
      next.definition = event.data.definition;
      next.version = event.streamVersion;
      return;
    case 'PipelinePaused':
      next.paused = control(event);
      next.version = event.streamVersion;
      return;
    case 'PipelineUnpaused':
      next.paused = null;
      next.version = event.streamVersion;
      return;
    case 'PipelineRetired':
      next.retired = control(event);
      next.version = event.streamVersion;
      return;
    case 'PipelineUnretired':
      next.retired = null;
      next.version = event.streamVersion;
      return;
    case 'RunStarted': {
      const d = event.data;
      const before = next.dates.get(d.date);
      // The attempt a scheduled retry was waiting for: the date stays under its retry policy.
      const retry = before?.status === 'up_for_retry' && before.retry ? { retry: { attempt: before.retry.attempt, of: before.retry.of, nextAt: null } } : {};
      next.dates.set(d.date, {
        date: d.date,
        status: 'running',
        runId: d.runId,
        attempt: d.attempt,
        attempts: (before?.attempts ?? 0) + 1,
        runType: d.runType,
        logicalDate: d.logicalDate,
        dataInterval: { start: d.dataInterval.start, end: d.dataInterval.end },
        runAfter: d.runAfter,
        startedAt: d.at ?? event.recordedAt,
        finishedAt: null,
        leaseExpiresAt: d.leaseExpiresAt,
        metrics: null,
        outputs: [],
        error: null,
        offSchedule: d.offSchedule,
        forced: d.force,
        clearedAt: null,
        startPosition: event.position,
        version: event.streamVersion,
        ...retry,
      });
      return;
    }
    case 'RunSucceeded': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId) || date.status !== 'running') return touch(next, event);
      next.dates.set(date.date, {
        ...date,
        status: 'success',
        finishedAt: event.data.at ?? event.recordedAt,
        metrics: event.data.metrics,
        outputs: event.data.outputs,
        version: event.streamVersion,
      });
      raiseWatermark(next, { date: date.date, logicalDate: date.logicalDate }, instant);
      return;
    }
    case 'RunMarked': {
      const d = event.data;
      const before = next.dates.get(d.date);
      // A running key is refused by the decider; no log, however made, may mark one from under its run.
      if (before?.status === 'running') return touch(next, event);
      next.dates.set(d.date, {
        date: d.date,
        status: d.status,
        runId: d.runId,
        attempt: before?.attempt ?? 0,
        attempts: before?.attempts ?? 0,
        runType: before?.runType ?? 'manual',
        logicalDate: d.logicalDate,
        dataInterval: { start: d.dataInterval.start, end: d.dataInterval.end },
        runAfter: d.runAfter,
        startedAt: event.recordedAt,
        finishedAt: event.recordedAt,
        leaseExpiresAt: event.recordedAt,
        metrics: null,
        outputs: [],
        error: null,
        offSchedule: false,
        forced: false,
        clearedAt: null,
        startPosition: event.position,
        version: event.streamVersion,
        mark: { status: d.status, actor: event.metadata.actor, reason: event.metadata.reason ?? '', at: event.recordedAt },
      });
      // A success by hand is a success: downstream may read the date (Airflow's mark success does the same).
      if (d.status === 'success') raiseWatermark(next, { date: d.date, logicalDate: d.logicalDate }, instant);
      return;
    }
    case 'RetryScheduled': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId) || date.status !== 'failed') return touch(next, event);
      const { attempt, maxAttempts, nextAt } = event.data;
      next.dates.set(date.date, { ...date, status: 'up_for_retry', retry: { attempt, of: maxAttempts, nextAt }, version: event.streamVersion });
      return;
    }
    case 'RunFailed': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId) || date.status !== 'running') return touch(next, event);
      next.dates.set(date.date, {
        ...date,
        status: 'failed',
        finishedAt: event.data.at ?? event.recordedAt,
        error: { message: event.data.error, code: event.data.code },
        version: event.streamVersion,
      });
      return;
    }
    case 'RunAbandoned': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId)) return touch(next, event);
      next.dates.set(date.date, {
        ...date,
        status: 'failed',
        finishedAt: event.recordedAt,
        error: { message: `abandoned: lease expired at ${date.leaseExpiresAt}`, code: 'abandoned' },
        version: event.streamVersion,
      });
      return;
    }
    case 'RunInterrupted': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId) || date.status !== 'running') return touch(next, event);
      next.dates.set(date.date, {
        ...date,
        status: 'interrupted',
        finishedAt: event.data.at ?? event.recordedAt,
        error: { message: event.data.message, code: 'interrupted' },
        version: event.streamVersion,
      });
      return;
    }
    case 'RunHeartbeat': {
      const date = next.dates.get(event.data.date);
      if (!date || !isCurrentRun(date, event.data.runId) || date.status !== 'running') return touch(next, event);
      next.dates.set(date.date, { ...date, leaseExpiresAt: event.data.leaseExpiresAt, version: event.streamVersion });
      return;
    }
    case 'RunCleared': {
      const date = next.dates.get(event.data.date);
      if (!date || date.status === 'cleared') return touch(next, event);
      // A clear also cancels a scheduled retry: the key starts its policy afresh.
      const { retry: _cancelled, ...rest } = date;
      const cause = event.data.cause;
      next.dates.set(date.date, {
        ...rest,
        status: 'cleared',
        clearedAt: event.recordedAt,
        version: event.streamVersion,
        ...(cause ? { clearCause: { eventId: cause.eventId, pipeline: cause.pipeline, date: cause.date, actor: event.metadata.actor, reason: event.metadata.reason ?? null } } : {}),
      });
      return;
    }
    case 'TaskStateChanged':
      // Task states live in projections/task-runs.ts; the run's own outcome arrives as its RunSucceeded or RunFailed (S12).
      return touch(next, event);
    default: {
      const unknown: never = event;
      throw new Error(`evolve: unhandled event ${JSON.stringify((unknown as { type: unknown }).type)}`);
    }
  }
}

/** A pause or retirement as the fold keeps it: the event's instant, actor and reason. */
function control(event: RecordedEvent): PipelineControl {
  return { since: event.recordedAt, by: event.metadata.actor, reason: event.metadata.reason ?? '' };
}

/** Moves the watermark up to `mark` when it is later (never down, S5). */
function raiseWatermark(next: PipelineState, mark: DateMark, instant: WatermarkInstant): void {
  const markMs = Date.parse(mark.logicalDate);
  const watermark = next.watermark;
  if (watermark !== null && instant.mark !== watermark) {
    instant.mark = watermark;
    instant.ms = Date.parse(watermark.logicalDate);
  }
  if (watermark === null || markMs > instant.ms) {
    next.watermark = mark;
    instant.mark = mark;
    instant.ms = markMs;
  }
}

/**
 * An ignored run event still advances its key's stream version, so the next
 * append on that key expects the version the store really holds.
 */
function touch(state: PipelineState, event: RecordedEvent & { data: { date: string } }): void {
  const date = state.dates.get(event.data.date);
  if (date) state.dates.set(date.date, { ...date, version: event.streamVersion });
}
