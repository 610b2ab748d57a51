import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { Slot } from '../../projections/slot.js';
import { given, type GivenEvent } from '../../src/testing/index.js';

const P = 'etl_orders';
const NOW = '2026-11-05T01:00:00+07:00';
const slot = (date: string): Slot => ({
  date,
  logicalDate: `${date}T00:00:00+07:00`,
  dataInterval: { start: `${date}T00:00:00+07:00`, end: `${date}T23:59:59+07:00` },
  runAfter: `${date}T23:59:59+07:00`,
});
const defined: GivenEvent = {
  type: 'PipelineDefined',
  schemaVersion: 1,
  data: { pipeline: P, schedule: '@daily', timetable: 'interval', timezone: 'Asia/Jakarta', start: '2026-11-02T00:00:00+07:00', end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 },
};
const started = (date: string, runId: string, attempt = 1): GivenEvent => ({
  type: 'RunStarted',
  schemaVersion: 1,
  recordedAt: '2026-11-04T18:00:00Z',
  data: { pipeline: P, runId, attempt, runType: 'scheduled', ...slot(date), leaseExpiresAt: '2026-11-04T19:00:00.000Z', force: false, offSchedule: false, takeoverOf: null },
});
const succeeded = (date: string, runId: string): GivenEvent => ({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: P, date, runId, metrics: { rows: 7 }, outputs: [] } });
const cleared = (date: string, runId: string): GivenEvent => ({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: P, date, runId, previousStatus: 'success' } });
const start = (date: string, over: { force?: boolean; runId?: string } = {}) =>
  ({ kind: 'start', pipeline: P, slot: slot(date), onSchedule: true, runType: 'scheduled', force: over.force ?? false, runId: over.runId ?? 'NEW', leaseMs: 3_600_000 }) as const;

describe('given/when/then over the deciders', () => {
  test('when a date is running then a second start is refused (S4)', () => {
    given([defined, started('2026-11-02', 'A')], { now: NOW }).when(start('2026-11-02')).then('ledger.alreadyRunning');
  });

  test('when a date succeeded then starting it needs --force, and the force is recorded (S4)', () => {
    const history = given([defined, started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], { now: NOW });
    history.when(start('2026-11-02')).then('ledger.alreadySucceeded');
    history.when(start('2026-11-02', { force: true })).then((state, events) => {
      expect(events.map((e) => e.type)).toEqual(['RunStarted']);
      expect(state.dates.get('2026-11-02')).toMatchObject({ status: 'running', attempt: 2, forced: true });
      expect(state.watermark?.date).toBe('2026-11-02');
    });
  });

  test('when a cleared run reports success then it is refused (S3)', () => {
    given([defined, started('2026-11-04', 'A'), succeeded('2026-11-04', 'A'), cleared('2026-11-04', 'A')], { now: NOW })
      .when({ kind: 'succeed', runId: 'A', date: '2026-11-04', metrics: {}, outputs: [] })
      .then('ledger.staleRun');
  });

  test('when the same success is reported twice then nothing new is recorded (S3)', () => {
    given([defined, started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')], { now: NOW })
      .when({ kind: 'succeed', runId: 'A', date: '2026-11-02', metrics: { rows: 7 }, outputs: [] })
      .then([]);
  });

  test('when a failure is reported then exactly that event is decided', () => {
    const expected: LedgerEvent[] = [{ type: 'RunFailed', schemaVersion: 1, data: { pipeline: P, date: '2026-11-03', runId: 'B', error: 'source late', code: null } }];
    given([defined, started('2026-11-03', 'B')], { now: NOW }).when({ kind: 'fail', runId: 'B', date: '2026-11-03', error: 'source late', code: null }).then(expected);
  });

  test('when a success is cleared then the date is pending again but the watermark stays (S5, S8)', () => {
    given([defined, started('2026-11-04', 'A'), succeeded('2026-11-04', 'A')], { now: NOW })
      .when({ kind: 'clear', dates: ['2026-11-04', '2026-11-03'], onlyFailed: false })
      .then((state, events) => {
        expect(events).toHaveLength(1);
        expect(state.dates.get('2026-11-04')?.status).toBe('cleared');
        expect(state.watermark?.date).toBe('2026-11-04');
      });
  });

  test('given alone folds the events', () => {
    given([defined, started('2026-11-02', 'A'), succeeded('2026-11-02', 'A')]).then((state) => {
      expect(state.dates.get('2026-11-02')?.status).toBe('success');
      expect(state.position).toBe(3);
    });
  });

  test('a wrong expectation fails with an assertion that says what happened', () => {
    const history = given([defined, started('2026-11-02', 'A')], { now: NOW });
    expect(() => history.when(start('2026-11-02')).then([])).toThrow(/refused: ledger.alreadyRunning/);
    expect(() => history.when(start('2026-11-03')).then('ledger.alreadyRunning')).toThrow(/accepted with RunStarted/);
  });
});
