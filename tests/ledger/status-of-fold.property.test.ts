import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { evolve, initialState } from '../../projections/pipeline-state.js';
import { evolveRunHistory, initialRunHistory } from '../../projections/run-history.js';
import { pipelineStatus } from '../../projections/views/pipeline-status.js';
import { slotsFrom } from '../../src/ledger/slots.js';
import { statusOfFold } from '../../src/ledger/status-of-fold.js';
import { createTimetableHistory } from '../../src/timetable/timetable-history.js';
import { recordAll } from '../support/event-factory.js';

const P = 'p';
const NOW = Date.parse('2026-04-01T09:10:00Z');
/** What happens to a slot: nothing, or a run that succeeds, fails, is cleared, or runs on a lease that expired or not. */
const OUTCOMES = ['none', 'success', 'failed', 'cleared', 'running-live', 'running-stalled'] as const;

test('the status of a fold counted from its rows is the status of the walk over every slot, with gaps, reruns, off-schedule runs and depends-on-past', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('@hourly', '*/20 * * * *', '30 2 * * *', '@daily', '0 0,12 * * MON-FRI'),
      fc.constantFrom('Europe/Berlin', 'UTC', 'America/New_York'),
      fc.boolean(),
      fc.array(fc.constantFrom(...OUTCOMES), { minLength: 0, maxLength: 400 }),
      fc.array(fc.integer({ min: 0, max: 7 * 86_400_000 }), { maxLength: 3 }),
      (schedule, timezone, dependsOnPast, outcomes, offSchedule) => {
        const definition: PipelineDefinition = { pipeline: P, schedule, timetable: 'interval', timezone, start: '2026-03-26T00:00:00Z', end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000, ...(dependsOnPast ? { dependsOnPast } : {}) };
        const timetable = createTimetableHistory(definition);
        const events: Array<LedgerEvent & { recordedAt?: string }> = [{ type: 'PipelineDefined', schemaVersion: 1, data: definition }];
        const start = (date: string, logicalDate: string, end: string, runId: string, lease: number, off = false) =>
          events.push({ type: 'RunStarted', schemaVersion: 1, data: { pipeline: P, date, runId, attempt: 1, runType: 'backfill', logicalDate, dataInterval: { start: logicalDate, end }, runAfter: end, leaseExpiresAt: new Date(lease).toISOString(), force: false, offSchedule: off, takeoverOf: null } });
        let i = 0;
        for (const slot of timetable.slotsBetween(Date.parse(definition.start), NOW + 86_400_000)) {
          const outcome = outcomes[i++] ?? 'none';
          if (outcome === 'none') continue;
          const runId = `r${i}`;
          start(slot.date, slot.logicalDate, slot.runAfter, runId, outcome === 'running-stalled' ? NOW - 1 : NOW + 3_600_000);
          if (outcome === 'success' || outcome === 'cleared') events.push({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: P, date: slot.date, runId, metrics: {}, outputs: [] } });
          if (outcome === 'failed') events.push({ type: 'RunFailed', schemaVersion: 1, data: { pipeline: P, date: slot.date, runId, error: 'boom', code: null } });
          if (outcome === 'cleared') events.push({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: P, date: slot.date, runId, previousStatus: 'success' } });
        }
        offSchedule.forEach((ms, k) => {
          const at = new Date(Date.parse(definition.start) + ms + 7_000).toISOString();
          start(at, at, at, `o${k}`, NOW + 3_600_000, true);
        });
        const recorded = recordAll(events);
        const state = recorded.reduce(evolve, initialState(P));
        const history = recorded.reduce(evolveRunHistory, initialRunHistory());
        expect(statusOfFold({ timetable, state, history, nowMs: NOW })).toEqual(pipelineStatus({ state, history, slots: slotsFrom(timetable), nowMs: NOW }));
      },
    ),
    { numRuns: 150 },
  );
}, 60_000);
