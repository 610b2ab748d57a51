import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { TaskDefinition } from '../../events/task-definition.js';
import type { TaskState } from '../../events/task-state-changed.js';
import { decideTaskState, nextTryNumber, refuseUnfinishedTasks, type TaskStateCommand } from '../../projections/decide-task-state.js';
import { evolve, initialState } from '../../projections/pipeline-state.js';
import { evolveTaskRuns, initialTaskRuns } from '../../projections/task-runs.js';
import { recordAll } from '../support/event-factory.js';

const P = 'etl';
const D = '2026-11-02';
const t = (id: string, upstream: string[] = [], over: Partial<TaskDefinition> = {}): TaskDefinition => ({ id, upstream, triggerRule: 'all_success', teardown: false, failRunOnFailure: false, ...over });
const TASKS = [t('extract'), t('load', ['extract'])];
const definition: PipelineDefinition = {
  pipeline: P,
  schedule: '@daily',
  timetable: 'interval',
  timezone: 'UTC',
  start: '2026-11-02T00:00:00+00:00',
  end: null,
  catchup: true,
  maxActiveRuns: 1,
  leaseMs: 3_600_000,
  tasks: TASKS,
};

const defined: LedgerEvent = { type: 'PipelineDefined', schemaVersion: 1, data: definition };
const started = (runId: string, attempt = 1): LedgerEvent => ({
  type: 'RunStarted',
  schemaVersion: 1,
  data: { pipeline: P, date: D, runId, attempt, runType: 'scheduled', logicalDate: `${D}T00:00:00Z`, dataInterval: { start: `${D}T00:00:00Z`, end: '2026-11-03T00:00:00Z' }, runAfter: '2026-11-03T00:00:00Z', leaseExpiresAt: '2026-11-05T13:00:00.000Z', force: false, offSchedule: false, takeoverOf: null },
});
const task = (runId: string, taskId: string, state: TaskState, tryNumber = 1): LedgerEvent => ({ type: 'TaskStateChanged', schemaVersion: 1, data: { pipeline: P, date: D, runId, taskId, state, tryNumber, error: null } });
const failed = (runId: string): LedgerEvent => ({ type: 'RunFailed', schemaVersion: 1, data: { pipeline: P, date: D, runId, error: 'x', code: null } });
const cleared = (runId: string): LedgerEvent => ({ type: 'RunCleared', schemaVersion: 1, data: { pipeline: P, date: D, runId, previousStatus: 'running' } });

function given(events: LedgerEvent[]) {
  const recorded = recordAll(events);
  return { state: recorded.reduce(evolve, initialState(P)), tasks: recorded.reduce(evolveTaskRuns, initialTaskRuns()) };
}
const cmd = (runId: string, taskId: string, state: TaskState, tryNumber: number | null = null): TaskStateCommand => ({ runId, date: D, taskId, state, tryNumber, error: null });

describe('S3 fencing of task states', () => {
  test.each([
    { label: 'a task of the running current run is recorded', events: [defined, started('A')], command: cmd('A', 'extract', 'running'), outcome: ['TaskStateChanged'] },
    { label: 'the last task to finish brings the run outcome with it', events: [defined, started('A'), task('A', 'extract', 'success')], command: cmd('A', 'load', 'success'), outcome: ['TaskStateChanged', 'RunSucceeded'] },
    { label: 'a failed leaf as the last task fails the run', events: [defined, started('A'), task('A', 'extract', 'success')], command: cmd('A', 'load', 'failed'), outcome: ['TaskStateChanged', 'RunFailed'] },
    { label: 'a task of a run cleared while running is refused', events: [defined, started('A'), cleared('A')], command: cmd('A', 'extract', 'success'), outcome: 'ledger.staleRun' },
    { label: 'a task of a run superseded by a newer attempt is refused', events: [defined, started('A'), task('A', 'extract', 'failed'), task('A', 'load', 'upstream_failed'), failed('A'), started('B', 2)], command: cmd('A', 'extract', 'success'), outcome: 'ledger.staleRun' },
    { label: 'a new state for a task of a finished run is refused', events: [defined, started('A'), task('A', 'extract', 'failed'), task('A', 'load', 'upstream_failed'), failed('A')], command: cmd('A', 'extract', 'success'), outcome: 'ledger.runFinished' },
    { label: 'the same state again after the run finished is a silent repeat', events: [defined, started('A'), task('A', 'extract', 'failed'), task('A', 'load', 'upstream_failed'), failed('A')], command: cmd('A', 'extract', 'failed'), outcome: [] },
    { label: 'the same state again while running is a silent repeat', events: [defined, started('A'), task('A', 'extract', 'running')], command: cmd('A', 'extract', 'running'), outcome: [] },
    { label: 'the same state with another explicit try is recorded', events: [defined, started('A'), task('A', 'extract', 'running')], command: cmd('A', 'extract', 'running', 2), outcome: ['TaskStateChanged'] },
    { label: 'a run that never started is refused', events: [defined], command: cmd('A', 'extract', 'running'), outcome: 'ledger.unknownRun' },
  ])('$label', ({ events, command, outcome }) => {
    const { state, tasks } = given(events);
    const decision = decideTaskState(state, tasks, command);
    if (typeof outcome === 'string') {
      expect(decision.ok).toBe(false);
      if (!decision.ok) expect(decision.refusal.code).toBe(outcome);
      return;
    }
    expect(decision.ok).toBe(true);
    if (decision.ok) expect(decision.value.events.map((e) => e.type)).toEqual(outcome);
  });

  test('a derived failure names the failed leaves and carries the leafFailed code', () => {
    const { state, tasks } = given([defined, started('A'), task('A', 'extract', 'failed')]);
    const decision = decideTaskState(state, tasks, cmd('A', 'load', 'upstream_failed'));
    expect(decision.ok && decision.value.events[1]).toMatchObject({ type: 'RunFailed', data: { error: "leaf task 'load' upstream_failed", code: 'leafFailed' } });
  });

  test("the fold ignores a task state of a run that is not open, whatever log it comes from", () => {
    const { tasks } = given([defined, started('A'), cleared('A'), task('A', 'extract', 'success'), started('B', 2), task('B', 'extract', 'running')]);
    expect(tasks.runs.get('A')).toBeUndefined();
    expect(tasks.runs.get('B')?.get('extract')?.state).toBe('running');
  });

  test('a task state advances the stream version of its date, so the next append expects the right version', () => {
    const { state } = given([defined, started('A'), task('A', 'extract', 'running'), task('A', 'extract', 'success')]);
    expect(state.dates.get(D)).toMatchObject({ status: 'running', version: 3 });
  });

  test('explicit succeed or fail waits for unfinished tasks; heartbeats do not', () => {
    const { tasks } = given([defined, started('A'), task('A', 'extract', 'success')]);
    expect(refuseUnfinishedTasks(definition, tasks, { runId: 'A', kind: 'succeed' })?.code).toBe('ledger.tasksUnfinished');
    expect(refuseUnfinishedTasks(definition, tasks, { runId: 'A', kind: 'fail' })?.message).toMatch(/1 task unfinished \(load\); its failure is not recorded/);
    expect(refuseUnfinishedTasks(definition, tasks, { runId: 'A', kind: 'heartbeat' })).toBeNull();
    const { tasks: _declared, ...withoutTasks } = definition;
    const { tasks: none } = given([{ type: 'PipelineDefined', schemaVersion: 1, data: withoutTasks }, started('A')]);
    expect(refuseUnfinishedTasks(withoutTasks, none, { runId: 'A', kind: 'succeed' })).toBeNull();
  });
});

describe('try numbers', () => {
  test.each<{ label: string; previous: { state: TaskState; tryNumber: number } | undefined; next: TaskState; tryNumber: number }>([
    { label: 'the first report is try 1', previous: undefined, next: 'queued', tryNumber: 1 },
    { label: 'running after queued stays in the try', previous: { state: 'queued', tryNumber: 1 }, next: 'running', tryNumber: 1 },
    { label: 'up_for_retry ends the try', previous: { state: 'running', tryNumber: 1 }, next: 'up_for_retry', tryNumber: 1 },
    { label: 'running after up_for_retry is the next try', previous: { state: 'up_for_retry', tryNumber: 1 }, next: 'running', tryNumber: 2 },
    { label: 'success straight after up_for_retry is the next try', previous: { state: 'up_for_retry', tryNumber: 2 }, next: 'success', tryNumber: 3 },
    { label: 'a repeated up_for_retry stays in the try', previous: { state: 'up_for_retry', tryNumber: 1 }, next: 'up_for_retry', tryNumber: 1 },
    { label: 'running again after failed is a re-run', previous: { state: 'failed', tryNumber: 1 }, next: 'running', tryNumber: 2 },
    { label: 'marking a failed task success by hand stays in the try', previous: { state: 'failed', tryNumber: 1 }, next: 'success', tryNumber: 1 },
  ])('$label', ({ previous, next, tryNumber }) => {
    expect(nextTryNumber(previous, next)).toBe(tryNumber);
  });
});
