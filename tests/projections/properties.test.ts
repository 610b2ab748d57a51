import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { decideClear } from '../../projections/decide-clear.js';
import { decideCompletion } from '../../projections/decide-completion.js';
import { decideMark } from '../../projections/decide-mark.js';
import { completeThrough } from '../../projections/complete-through.js';
import { decideStart } from '../../projections/decide-start.js';
import { evolve, evolveAll, initialState, type PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { recordAll } from '../support/event-factory.js';

const P = 'etl';
const DATES = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'];
const slot = (date: string): Slot => ({
  date,
  logicalDate: `${date}T00:00:00Z`,
  dataInterval: { start: `${date}T00:00:00Z`, end: `${date}T23:59:59Z` },
  runAfter: `${date}T23:59:59Z`,
});

/** A command against one of four dates; completions pick any run ever started, current or stale. */
const command = fc.oneof(
  fc.record({ kind: fc.constant('start' as const), date: fc.constantFrom(...DATES), force: fc.boolean() }),
  fc.record({ kind: fc.constantFrom('succeed' as const, 'fail' as const, 'heartbeat' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('clear' as const), date: fc.constantFrom(...DATES), onlyFailed: fc.boolean() }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 180 }) }),
  // Run control: a failure that schedules a retry, and a mark by hand.
  fc.record({ kind: fc.constant('retry' as const), pick: fc.nat(), attempt: fc.integer({ min: 2, max: 4 }) }),
  fc.record({ kind: fc.constant('mark' as const), date: fc.constantFrom(...DATES), status: fc.constantFrom('success' as const, 'skipped' as const) }),
);

type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

/** Drives the deciders like the ledger does and returns the valid event log they produce. */
function simulate(commands: Command[]): RecordedEvent[] {
  let state = initialState(P);
  let nowMs = Date.parse('2026-11-05T00:00:00Z');
  const log: RecordedEvent[] = [];
  const runs: Array<{ runId: string; date: string }> = [];
  const append = (events: LedgerEvent[]) => {
    const recorded = recordAll(events.map((e) => ({ ...e, recordedAt: new Date(nowMs).toISOString() })), log.length + 1).map((e, i) => ({
      ...e,
      streamVersion: (state.dates.get((e.data as { date?: string }).date ?? '')?.version ?? 0) + i + 1,
    })) as RecordedEvent[];
    for (const event of recorded) state = evolve(state, event);
    log.push(...recorded);
  };
  for (const cmd of commands) {
    if (cmd.kind === 'wait') nowMs += cmd.minutes * 60_000;
    else if (cmd.kind === 'start') {
      const runId = `R${runs.length}`;
      const d = decideStart(state, { pipeline: P, slot: slot(cmd.date), onSchedule: true, runType: 'scheduled', force: cmd.force, runId, leaseMs: 3_600_000 }, { nowMs });
      if (d.ok) {
        runs.push({ runId, date: cmd.date });
        append(d.value.events);
      }
    } else if (cmd.kind === 'clear') {
      append(decideClear(state, { dates: [cmd.date], onlyFailed: cmd.onlyFailed }).events);
    } else if (cmd.kind === 'mark') {
      const d = decideMark(state, { slots: [{ slot: slot(cmd.date), markId: `M${log.length}` }], status: cmd.status });
      if (d.ok) append(d.value.events);
    } else if (cmd.kind === 'retry') {
      if (runs.length === 0) continue;
      const run = runs[cmd.pick % runs.length] as { runId: string; date: string };
      const retry = { attempt: cmd.attempt, maxAttempts: 4, nextAt: new Date(nowMs + 60_000).toISOString(), delayMs: 60_000 };
      const d = decideCompletion(state, { kind: 'fail', runId: run.runId, date: run.date, error: 'flaky', code: null, retry }, { nowMs });
      if (d.ok) append(d.value.events);
    } else if (runs.length > 0) {
      const run = runs[cmd.pick % runs.length] as { runId: string; date: string };
      const base = { runId: run.runId, date: run.date };
      const d = decideCompletion(
        state,
        cmd.kind === 'succeed' ? { kind: 'succeed', ...base, metrics: { n: cmd.pick }, outputs: [] } : cmd.kind === 'fail' ? { kind: 'fail', ...base, error: 'x', code: null } : { kind: 'heartbeat', ...base, leaseMs: 3_600_000 },
        { nowMs },
      );
      if (d.ok) append(d.value.events);
    }
  }
  return log;
}

const fold = (events: RecordedEvent[], from: PipelineState = initialState(P)) => events.reduce(evolve, from);
/** The chunks of a log cut at `cuts` (taken modulo its length, sorted, once each), in order; together they are the log. */
function chunksOf(log: RecordedEvent[], cuts: number[]): RecordedEvent[][] {
  const ends = [...[...new Set(cuts.map((c) => c % (log.length + 1)))].sort((a, b) => a - b), log.length];
  return ends.map((end, i) => log.slice(i === 0 ? 0 : ends[i - 1], end));
}
const view = (s: PipelineState) => ({
  watermark: s.watermark,
  dates: [...s.dates.values()].map((d) => ({ date: d.date, status: d.status, runId: d.runId, attempt: d.attempt, metrics: d.metrics, error: d.error, retry: d.retry, mark: d.mark })),
});

describe('properties of the pure core', () => {
  const logs = fc.array(command, { minLength: 1, maxLength: 60 }).map(simulate);

  test('the watermark never decreases over any prefix of any valid event sequence (S5)', () => {
    fc.assert(
      fc.property(logs, (log) => {
        let state = initialState(P);
        let previous = Number.NEGATIVE_INFINITY;
        for (const event of log) {
          state = evolve(state, event);
          const mark = state.watermark ? Date.parse(state.watermark.logicalDate) : Number.NEGATIVE_INFINITY;
          expect(mark).toBeGreaterThanOrEqual(previous);
          previous = mark;
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a rebuild from scratch equals incremental application in any chunking (S15)', () => {
    fc.assert(
      fc.property(logs, fc.array(fc.nat(), { maxLength: 6 }), (log, cuts) => {
        const whole = fold(log);
        let state = initialState(P);
        // A checkpoint is a copy taken between chunks, as a stored snapshot would be.
        for (const chunk of chunksOf(log, cuts)) state = fold(chunk, structuredClone(state));
        expect(state).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  test('folding chunks with evolveAll gives the state evolve gives event by event, field for field and in the same key order', () => {
    const text = (s: PipelineState) => JSON.stringify({ ...s, dates: [...s.dates] });
    fc.assert(
      fc.property(logs, fc.array(fc.nat(), { maxLength: 6 }), (log, cuts) => {
        const whole = fold(log);
        let state = initialState(P);
        for (const chunk of chunksOf(log, cuts)) {
          const given = structuredClone(state);
          const fields = { ...given, dates: null };
          state = evolveAll(given, chunk);
          // Like evolve, it updates the dates map it is given, but not the state record.
          expect({ ...given, dates: null }).toEqual(fields);
        }
        expect(state).toEqual(whole);
        expect(text(state)).toBe(text(whole));
      }),
      { numRuns: 300 },
    );
  });

  test('complete-through covers exactly the leading dates that succeeded or were skipped; a skip never raises the watermark', () => {
    fc.assert(
      fc.property(logs, (log) => {
        const state = fold(log);
        const through = completeThrough(state, DATES.map(slot));
        const leading = DATES.findIndex((d) => !['success', 'skipped'].includes(state.dates.get(d)?.status ?? 'missing'));
        expect(through).toBe(leading === 0 ? null : (DATES[(leading === -1 ? DATES.length : leading) - 1] ?? null));
        // The watermark is a date that once had a success, by a run or a mark, never only a skip.
        const succeededOnce = new Set(log.flatMap((e) => (e.type === 'RunSucceeded' || (e.type === 'RunMarked' && e.data.status === 'success') ? [e.data.date] : [])));
        if (state.watermark) expect(succeededOnce.has(state.watermark.date)).toBe(true);
        // A date waits for its retry only right after a failure with a schedule, and says which attempt.
        for (const d of state.dates.values()) if (d.status === 'up_for_retry') expect(d.retry?.nextAt).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  test('a stale completion never changes state (S3)', () => {
    fc.assert(
      fc.property(logs, fc.nat(), fc.boolean(), (log, pick, succeed) => {
        const state = fold(log);
        const started = log.filter((e): e is Extract<RecordedEvent, { type: 'RunStarted' }> => e.type === 'RunStarted');
        const stale = started.filter((e) => {
          const d = state.dates.get(e.data.date);
          return !d || d.runId !== e.data.runId || d.status === 'cleared';
        });
        fc.pre(stale.length > 0);
        const run = stale[pick % stale.length] as Extract<RecordedEvent, { type: 'RunStarted' }>;
        const ref = { runId: run.data.runId, date: run.data.date };
        const decision = decideCompletion(state, succeed ? { kind: 'succeed', ...ref, metrics: {}, outputs: [] } : { kind: 'fail', ...ref, error: 'late', code: null }, { nowMs: Date.parse('2026-12-01T00:00:00Z') });
        expect(decision.ok).toBe(false);
        // Even a forged stale event in the log leaves the state as it was.
        const before = view(state);
        const forged: LedgerEvent = succeed
          ? { type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: P, ...ref, metrics: { forged: true }, outputs: [] } }
          : { type: 'RunFailed', schemaVersion: 1, data: { pipeline: P, ...ref, error: 'forged', code: null } };
        const after = view(fold(recordAll([forged], log.length + 1), structuredClone(state)));
        expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});
