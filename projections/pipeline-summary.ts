import type { PipelineDefinition } from '../events/types/pipeline-definition.js';
import type { RecordedEvent } from '../events/recorded-event.js';
import { isDone, type DateState } from './date-state.js';
import type { PipelineControl } from './pipeline-control.js';
import type { DateMark, PipelineState } from './pipeline-state.js';
import type { RunRecord } from './run-history.js';
import { auditEntriesOf } from './views/pipeline-history.js';
import { copyTally, tallyRun, type RunTally } from './views/run-tally.js';
import { tellingLine } from './views/telling-line.js';

/**
 * A pipeline at a glance, as its summary row keeps it: what `status`, `check` and `/metrics` read without
 * walking the dates. It is a fold like the others: `summaryFolder` takes a pipeline's events as the pure
 * `evolve` and `evolveRunHistory` changed its dates and runs, and gives the summary after them. Only
 * complete-through (and, after a redefinition, the slot counts) depend on rows the fold did not touch; the
 * table writer settles those from the stored rows (complete-through's walk, `countSlots`).
 */

/** Where the last success or failure of a pipeline happened; `error` on a failure only (its most telling line). */
export type LastOutcome = { date: string; runId: string; at: string; seq: number; error?: string };

/** A date whose status is `running`, as the summary keeps it. */
export type RunningDate = { date: string; runId: string; leaseExpiresAt: string; logicalDate: string };

/** A pipeline's summary (see read-model-rows.ts for its row). */
export type PipelineSummary = {
  pipeline: string;
  definition: PipelineDefinition | null;
  definedAt: string | null;
  version: number;
  watermark: DateMark | null;
  completeThrough: string | null;
  /** Date keys by status. */
  counts: Record<string, number>;
  lastSuccess: LastOutcome | null;
  lastFailure: LastOutcome | null;
  /** Date keys that are slots of the current timetable (the key's slot is at the row's logical date), by status. */
  slotCounts: Record<string, number>;
  /** Keys that name a slot at another instant than their logical date (after a zone change). */
  misaligned: number;
  /** How many slots there are up to and including complete-through. */
  throughSlots: number;
  runTally: RunTally;
  /** Position of the last event of this pipeline folded in. */
  position: number;
  /** The dates now running, by key. */
  running: RunningDate[];
  /** The latest logical date (ms) any date of the pipeline ever had, or null before any. */
  latestMs: number | null;
  /** Set while the pipeline is paused. */
  paused: PipelineControl | null;
  /** Set while the pipeline is retired. */
  retired: PipelineControl | null;
  /** The audit entries its events make (`auditEntriesOf`), counted as they are folded: an audit page says "of N" without reading them. */
  auditEntries: number;
};

/**
 * What `status` reads of a pipeline's summary: everything but its counts, run tally, audit count, definition instant,
 * version and position, which no status row shows, and its watermark's logical date (a row shows the key alone).
 */
export type StatusSummary = Pick<PipelineSummary, 'pipeline' | 'definition' | 'completeThrough' | 'lastSuccess' | 'lastFailure' | 'slotCounts' | 'misaligned' | 'throughSlots' | 'running' | 'latestMs' | 'paused' | 'retired'> & {
  watermark: Pick<DateMark, 'date'> | null;
};

/** The summary of a pipeline with no event yet. */
export function emptySummary(pipeline: string): PipelineSummary {
  return {
    pipeline,
    definition: null,
    definedAt: null,
    version: 0,
    watermark: null,
    completeThrough: null,
    counts: {},
    lastSuccess: null,
    lastFailure: null,
    slotCounts: {},
    misaligned: 0,
    throughSlots: 0,
    runTally: {},
    position: 0,
    running: [],
    latestMs: null,
    paused: null,
    retired: null,
    auditEntries: 0,
  };
}

/** Whether a date key is the slot at its logical instant (ms), names a slot at another instant, or names none: the timetable's to say. */
export type SlotKindOf = (key: string, logicalMs: number) => 'slot' | 'misaligned' | 'none';

/**
 * Adds a date to (`sign` 1) or takes it from (-1) `slotCounts` when its key is its slot; returns 1 when its key
 * names a slot at another instant (a misaligned date, counted apart), else 0.
 */
function tallySlot(slotCounts: Record<string, number>, kindOf: SlotKindOf, date: Pick<DateState, 'date' | 'status' | 'logicalDate'>, sign: 1 | -1): number {
  const kind = kindOf(date.date, Date.parse(date.logicalDate));
  if (kind === 'slot') slotCounts[date.status] = (slotCounts[date.status] ?? 0) + sign;
  return kind === 'misaligned' ? 1 : 0;
}

/**
 * The slot counts and misaligned dates of every date of a pipeline, counted from scratch (after a redefinition, and
 * on rebuild); none without a timetable.
 *
 * @example
 * const { slotCounts, misaligned } = countSlots(kindOf, dates);
 */
export function countSlots(kindOf: SlotKindOf | null, dates: Iterable<Pick<DateState, 'date' | 'status' | 'logicalDate'>>): { slotCounts: Record<string, number>; misaligned: number } {
  const slotCounts: Record<string, number> = {};
  let misaligned = 0;
  if (kindOf !== null) for (const date of dates) misaligned += tallySlot(slotCounts, kindOf, date, 1);
  return { slotCounts, misaligned };
}

/** What an event changed: its date and its run, as they were before it and are after it (and the run's start position). */
export type DateChange = { before: DateState | undefined; after: DateState };
export type RunChange = { before: RunRecord | undefined; after: RunRecord; seq: number };

/** The summary's fold over one pipeline's events, from the summary as it stood before them. */
export type SummaryFolder = {
  /** One event, with the date and the run it changed (null: none), in position order. */
  add(event: Pick<RecordedEvent, 'type'>, date: DateChange | null, run: RunChange | null): void;
  /** Every event of the pipeline, in position order (also those that change no date or run): its audit entries are counted. */
  saw(event: RecordedEvent): void;
  /**
   * The summary after every event added. `state` is the pipeline's folded state; `dates` and `runs` are each changed
   * date and run as before its first change and now; `slotKindOf` null leaves the slot counts to be counted again over
   * every date (a redefinition changed which keys are slots). `lostDone`: a date that was done (success or skipped) is
   * not any more; `nowDone`: a changed date is done now (complete-through can only move on then).
   */
  finish(
    state: Pick<PipelineState, 'definition' | 'definedAt' | 'version' | 'watermark' | 'position' | 'paused' | 'retired'>,
    dates: Iterable<readonly [first: DateState | undefined, now: DateState]>,
    runs: Iterable<readonly [first: RunRecord | undefined, now: RunRecord]>,
    slotKindOf: SlotKindOf | null,
  ): { summary: PipelineSummary; lostDone: boolean; nowDone: boolean };
};

/**
 * The summary's fold: counts by status, slot counts, the run tally and the running dates moved by each changed date's
 * and run's state before and after; the last success and failure and the latest logical date event by event. Pure:
 * the summary handed in is never changed (a new one is made), so a writer may keep the one it stored.
 *
 * @example
 * const folder = summaryFolder(before);
 * folder.add(event, { before: dateBefore, after: dateAfter }, null);
 * const { summary } = folder.finish(state, changedDates, changedRuns, kindOf);
 */
export function summaryFolder(before: PipelineSummary): SummaryFolder {
  let lastSuccess = before.lastSuccess;
  let lastFailure = before.lastFailure;
  // Over every state a date takes, event by event: a refold and the appends that made the rows see the same ones.
  let latestMs = before.latestMs;
  let auditEntries = before.auditEntries;
  return {
    saw(event) {
      auditEntries += auditEntriesOf(event).length;
    },
    add(event, date, run) {
      if (date !== null && date.after.logicalDate !== date.before?.logicalDate) {
        const ms = Date.parse(date.after.logicalDate);
        if (latestMs === null || ms > latestMs) latestMs = ms;
      }
      if (run !== null) {
        const { before: was, after: now, seq } = run;
        // As the fold's status finds them: the latest recorded success or failure, ties to the later start.
        if (event.type === 'RunSucceeded' && now.status === 'success' && now.finishedAt !== null && was?.status !== 'success') {
          lastSuccess = later(lastSuccess, { date: now.date, runId: now.runId, at: now.finishedAt, seq });
        }
        if (now.error !== null && now.finishedAt !== null && now.error !== was?.error) {
          lastFailure = later(lastFailure, { date: now.date, runId: now.runId, at: now.finishedAt, seq, error: tellingLine(now.error) });
        }
      }
    },
    finish(state, dates, runs, slotKindOf) {
      const counts = { ...before.counts };
      const slotCounts = { ...before.slotCounts };
      const runTally = copyTally(before.runTally);
      let misaligned = before.misaligned;
      let lostDone = false;
      let nowDone = false;
      const running = new Map<string, RunningDate>(before.running.map((date) => [date.date, date]));
      for (const [first, date] of dates) {
        const was = first?.status;
        if (was !== undefined) counts[was] = (counts[was] ?? 0) - 1;
        counts[date.status] = (counts[date.status] ?? 0) + 1;
        if (slotKindOf !== null) {
          if (first !== undefined) misaligned -= tallySlot(slotCounts, slotKindOf, first, -1);
          misaligned += tallySlot(slotCounts, slotKindOf, date, 1);
        }
        // Done is a success or a skip (complete-through counts both): losing either walks it again.
        if (isDone(was) && !isDone(date.status)) lostDone = true;
        if (isDone(date.status)) nowDone = true;
        if (date.status === 'running') running.set(date.date, { date: date.date, runId: date.runId, leaseExpiresAt: date.leaseExpiresAt, logicalDate: date.logicalDate });
        else running.delete(date.date);
      }
      for (const [first, run] of runs) {
        if (first !== undefined) tallyRun(runTally, first, -1);
        tallyRun(runTally, run, 1);
      }
      const summary: PipelineSummary = {
        pipeline: before.pipeline,
        definition: state.definition,
        definedAt: state.definedAt,
        version: state.version,
        watermark: state.watermark,
        completeThrough: before.completeThrough,
        counts,
        lastSuccess,
        lastFailure,
        slotCounts,
        misaligned,
        throughSlots: before.throughSlots,
        runTally,
        position: state.position,
        // By key: one text for the same dates, however they came to run.
        running: [...running.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
        latestMs,
        paused: state.paused,
        retired: state.retired,
        auditEntries,
      };
      return { summary, lostDone, nowDone };
    },
  };
}

/**
 * The outcome `status` shows as the last one: the latest finish, and of two at the same instant the run
 * started later (the order the run history lists them in).
 */
function later(current: LastOutcome | null, candidate: LastOutcome): LastOutcome {
  if (current === null) return candidate;
  const a = Date.parse(candidate.at);
  const b = Date.parse(current.at);
  return a > b || (a === b && candidate.seq >= current.seq) ? candidate : current;
}
