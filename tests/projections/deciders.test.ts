import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import { decideClear } from '../../projections/decide-clear.js';
import { decideCompletion, type CompletionCommand } from '../../projections/decide-completion.js';
import { decideStart, type StartCommand } from '../../projections/decide-start.js';
import { evolve, initialState, type PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { recordAll } from '../support/event-factory.js';

const P = 'etl';
const slot = (date: string): Slot => ({
  date,
  logicalDate: `${date}T00:00:00Z`,
  dataInterval: { start: `${date}T00:00:00Z`, end: `${date}T23:59:59Z` },
  runAfter: `${date}T23:59:59Z`,
});
const NOW = Date.parse('2026-11-05T12:00:00Z');

const started = (date: string, runId: string, attempt = 1, lease = '2026-11-05T13:00:00.000Z'): LedgerEvent => ({
  type: 'RunStarted',
  schemaVersion: 1,
  data: { pipeline: P, date, runId, attempt, runType: 'scheduled', logicalDate: `${date}T00:00:00Z`, dataInterval: slot(date).dataInterval, runAfter: slot(date).runAfter, leaseExpiresAt: lease, force: false, offSchedule: false, takeoverOf: null },
});
const succeeded = (date: string, runId: string): LedgerEvent => ({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: P, date, runId, metrics: {}, outputs: [] } });
const failed = (date: string, runId: string): LedgerEvent => ({ type: 'RunFailed', schemaVersion: 1, data: { pipeline: P, date, runId, error: 'boom', code: null } });
const cleared = (date: string, runId: string): LedgerEvent => ({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: P, date, runId, previousStatus: 'success' } });

function stateOf(events: LedgerEvent[]): PipelineState {
  return recordAll(events).reduce(evolve, initialState(P));
}

function startCmd(date: string, over: Partial<StartCommand> = {}): StartCommand {
  return { pipeline: P, slot: slot(date), onSchedule: true, runType: 'scheduled', force: false, runId: 'NEW', leaseMs: 3_600_000, ...over };
}

describe('S4 start rules', () => {
  test.each([
    { label: 'a missing date starts attempt 1', given: [], cmd: startCmd('2026-11-02'), outcome: ['RunStarted'], attempt: 1 },
    { label: 'a failed date starts a new attempt', given: [started('2026-11-02', 'A'), failed('2026-11-02', 'A')], cmd: startCmd('2026-11-02'), outcome: ['RunStarted'], attempt: 2 },
    { label: 'a cleared date starts a new attempt', given: [started('2026-11-02', 'A'), succeeded('2026-11-02', 'A'), cleared('2026-11-02', 'A')], cmd: startCmd('2026-11-02'), outcome: ['RunStarted'], attempt: 2 },
    { label: 'a running date with a live lease is refused', given: [started('2026-11-02', 'A')], cmd: startCmd('2026-11-02'), outcome: 'ledger.alreadyRunning' },
    { label: 'a running date whose lease expired is taken over', given: [started('2026-11-02', 'A', 1, '2026-11-05T11:00:00.000Z')], cmd: startCmd('2026-11-02'), outcome: ['RunAbandoned', 'RunStarted'], attempt: 2 },
    { label: 'a successful date is refused without force', given: [started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], cmd: startCmd('2026-11-02'), outcome: 'ledger.alreadySucceeded' },
    { label: 'a successful date is reprocessed with force', given: [started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], cmd: startCmd('2026-11-02', { force: true }), outcome: ['RunStarted'], attempt: 2 },
    { label: 'a future logical date is refused, even for manual runs', given: [], cmd: startCmd('2026-11-06', { runType: 'manual' }), outcome: 'ledger.futureDate' },
    { label: 'a slot not yet due is refused for scheduled runs', given: [], cmd: startCmd('2026-11-05'), outcome: 'ledger.notDue' },
    { label: 'a slot not yet due may run manually', given: [], cmd: startCmd('2026-11-05', { runType: 'manual' }), outcome: ['RunStarted'], attempt: 1 },
    { label: 'an off-schedule date is refused unless manual', given: [], cmd: startCmd('2026-11-02', { onSchedule: false }), outcome: 'ledger.notASlot' },
    { label: 'an off-schedule manual run is accepted', given: [], cmd: startCmd('2026-11-02', { onSchedule: false, runType: 'manual' }), outcome: ['RunStarted'], attempt: 1 },
  ])('$label', ({ given, cmd, outcome, attempt }) => {
    const decision = decideStart(stateOf(given), cmd, { nowMs: NOW });
    if (typeof outcome === 'string') {
      expect(decision.ok).toBe(false);
      if (!decision.ok) expect(decision.refusal.code).toBe(outcome);
      return;
    }
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    expect(decision.value.events.map((e) => e.type)).toEqual(outcome);
    expect(decision.value.attempt).toBe(attempt);
  });

  test('a forced reprocess and an off-schedule run are recorded in the event', () => {
    const forced = decideStart(stateOf([started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')]), startCmd('2026-11-02', { force: true }), { nowMs: NOW });
    const off = decideStart(stateOf([]), startCmd('2026-11-02', { onSchedule: false, runType: 'manual' }), { nowMs: NOW });
    expect(forced.ok && forced.value.events[0]?.type === 'RunStarted' && forced.value.events[0].data.force).toBe(true);
    expect(off.ok && off.value.events[0]?.type === 'RunStarted' && off.value.events[0].data.offSchedule).toBe(true);
  });
});

describe('S3 fencing of completions', () => {
  const succeedCmd = (runId: string): CompletionCommand => ({ kind: 'succeed', runId, date: '2026-11-02', metrics: {}, outputs: [] });
  const failCmd = (runId: string): CompletionCommand => ({ kind: 'fail', runId, date: '2026-11-02', error: 'x', code: null });
  test.each([
    { label: 'the current running run may succeed', given: [started('2026-11-02', 'A')], cmd: succeedCmd('A'), outcome: ['RunSucceeded'] },
    { label: 'the current running run may fail', given: [started('2026-11-02', 'A')], cmd: failCmd('A'), outcome: ['RunFailed'] },
    { label: 'a run cleared while running is refused', given: [started('2026-11-02', 'A'), cleared('2026-11-02', 'A')], cmd: succeedCmd('A'), outcome: 'ledger.staleRun' },
    { label: 'a run superseded by a newer attempt is refused', given: [started('2026-11-02', 'A'), failed('2026-11-02', 'A'), started('2026-11-02', 'B', 2)], cmd: succeedCmd('A'), outcome: 'ledger.staleRun' },
    { label: 'the same success twice is a silent repeat', given: [started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], cmd: succeedCmd('A'), outcome: [] },
    { label: 'the same failure twice is a silent repeat', given: [started('2026-11-02', 'A'), failed('2026-11-02', 'A')], cmd: failCmd('A'), outcome: [] },
    { label: 'a success after the run failed is refused', given: [started('2026-11-02', 'A'), failed('2026-11-02', 'A')], cmd: succeedCmd('A'), outcome: 'ledger.runFinished' },
    { label: 'a heartbeat after success is refused', given: [started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], cmd: { kind: 'heartbeat', runId: 'A', date: '2026-11-02', leaseMs: 1000 } as CompletionCommand, outcome: 'ledger.runFinished' },
  ])('$label', ({ given, cmd, outcome }) => {
    const decision = decideCompletion(stateOf(given), cmd, { nowMs: NOW });
    if (typeof outcome === 'string') {
      expect(decision.ok).toBe(false);
      if (!decision.ok) expect(decision.refusal.code).toBe(outcome);
      return;
    }
    expect(decision.ok).toBe(true);
    if (decision.ok) {
      expect(decision.value.events.map((e) => e.type)).toEqual(outcome);
      expect(decision.value.repeated).toBe(outcome.length === 0);
    }
  });
});

describe('S8 clear', () => {
  const given = stateOf([started('2026-11-02', 'A'), succeeded('2026-11-02', 'A'), started('2026-11-03', 'B'), failed('2026-11-03', 'B'), started('2026-11-04', 'C')]);
  test.each([
    { label: 'clears success, failed and running keys; skips missing', dates: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'], onlyFailed: false, cleared: ['2026-11-02', '2026-11-03', '2026-11-04'], skipped: ['2026-11-01'] },
    { label: '--only-failed clears only failed keys', dates: ['2026-11-02', '2026-11-03', '2026-11-04'], onlyFailed: true, cleared: ['2026-11-03'], skipped: ['2026-11-02', '2026-11-04'] },
  ])('$label', ({ dates, onlyFailed, cleared: expected, skipped }) => {
    const decision = decideClear(given, { dates, onlyFailed });
    expect(decision.cleared.map((c) => c.date)).toEqual(expected);
    expect(decision.skipped.map((s) => s.date)).toEqual(skipped);
    expect(decision.events).toHaveLength(expected.length);
  });

  test('an already cleared key is not cleared twice', () => {
    const once = stateOf([started('2026-11-02', 'A'), cleared('2026-11-02', 'A')]);
    expect(decideClear(once, { dates: ['2026-11-02'], onlyFailed: false }).events).toEqual([]);
  });
});
