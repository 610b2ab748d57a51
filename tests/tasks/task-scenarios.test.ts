import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { TriggerRule } from '../../events/task-definition.js';
import { lintTasks } from '../../projections/lint-tasks.js';
import { isLedgerError } from '../../src/errors.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import type { TaskSpec } from '../../projections/task-graph.js';
import { tempDir } from '../support/run-cli.js';

const NOW = Date.parse('2026-11-05T01:00:00Z');
const open: Ledger[] = [];

async function ledgerWith(tasks: TaskSpec[]): Promise<Ledger> {
  const ledger = await openLedger({ db: join(tempDir('runledger-tasks-'), 'ledger.db'), clock: () => NOW, actor: 'tester' });
  open.push(ledger);
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', tasks });
  return ledger;
}

afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; exitCode: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isLedgerError(error)) return { code: error.code, exitCode: error.exitCode, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

const dateOf = async (ledger: Ledger) => (await ledger.state({ pipeline: 'etl', to: '2026-11-02' })).dates[0];
const eventCount = async (ledger: Ledger) => (await ledger.log()).events.length;

const CHAIN: TaskSpec[] = [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }, { id: 'cleanup', upstream: ['load'], triggerRule: 'all_done' as TriggerRule }];

describe('S12 derived run state, through the ledger', () => {
  test('extract » load » cleanup(all_done): extract failed, load upstream_failed, cleanup success → the run succeeds (and the lint warned)', async () => {
    const ledger = await ledgerWith(CHAIN);
    const { definition } = await ledger.pipeline('etl');
    expect(lintTasks(definition.tasks ?? []).map((w) => w.leaf)).toEqual(['cleanup']);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'extract', state: 'failed', error: 'source missing' });
    expect((await ledger.task({ runId, taskId: 'load', state: 'upstream_failed' })).run).toEqual({ status: 'running', unfinished: ['cleanup'] });
    const last = await ledger.task({ runId, taskId: 'cleanup', state: 'success' });
    expect(last.run).toEqual({ status: 'success', leaves: [{ taskId: 'cleanup', state: 'success' }] });
    expect(await dateOf(ledger)).toMatchObject({ status: 'success', runId });
    expect(await ledger.watermark({ pipeline: 'etl' })).toMatchObject({ watermark: '2026-11-02' });
  });

  test('adding a leaf mark_complete (all_success) after load → the same task states fail the run', async () => {
    const ledger = await ledgerWith([...CHAIN, { id: 'mark_complete', upstream: ['load'] }]);
    expect(lintTasks((await ledger.pipeline('etl')).definition.tasks ?? [])).toEqual([]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'extract', state: 'failed' });
    await ledger.task({ runId, taskId: 'load', state: 'upstream_failed' });
    await ledger.task({ runId, taskId: 'cleanup', state: 'success' });
    const last = await ledger.task({ runId, taskId: 'mark_complete', state: 'upstream_failed' });
    expect(last.run).toEqual({ status: 'failed', failedLeaves: [{ taskId: 'mark_complete', state: 'upstream_failed' }] });
    expect(await dateOf(ledger)).toMatchObject({ status: 'failed', error: "leaf task 'mark_complete' upstream_failed", errorCode: 'leafFailed' });
    expect((await ledger.pending({ pipeline: 'etl', to: '2026-11-02' })).pending).toEqual([expect.objectContaining({ date: '2026-11-02', reason: 'failed' })]);
  });

  test('a failed leaf while an unrelated task still runs: running until it ends, then failed', async () => {
    const ledger = await ledgerWith([{ id: 'orders' }, { id: 'customers' }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'customers', state: 'running' });
    expect((await ledger.task({ runId, taskId: 'orders', state: 'failed' })).run.status).toBe('running');
    expect(await dateOf(ledger)).toMatchObject({ status: 'running' });
    await ledger.task({ runId, taskId: 'customers', state: 'success' });
    expect(await dateOf(ledger)).toMatchObject({ status: 'failed', error: "leaf task 'orders' failed" });
  });

  test('all leaves skipped → success', async () => {
    const ledger = await ledgerWith([{ id: 'branch' }, { id: 'a', upstream: ['branch'] }, { id: 'b', upstream: ['branch'] }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'branch', state: 'success' });
    await ledger.task({ runId, taskId: 'a', state: 'skipped' });
    await ledger.task({ runId, taskId: 'b', state: 'skipped' });
    expect(await dateOf(ledger)).toMatchObject({ status: 'success' });
  });

  test('a removed leaf is ignored', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }, { id: 'load', upstream: ['extract'] }, { id: 'legacy_export', upstream: ['extract'] }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'extract', state: 'success' });
    await ledger.task({ runId, taskId: 'legacy_export', state: 'removed' });
    const last = await ledger.task({ runId, taskId: 'load', state: 'success' });
    expect(last.run).toEqual({ status: 'success', leaves: [{ taskId: 'load', state: 'success' }] });
    expect(await dateOf(ledger)).toMatchObject({ status: 'success' });
  });

  test('a retried task (up_for_retry then success) → success, with its tries kept in the grid', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }, { id: 'load', upstream: ['extract'] }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    expect((await ledger.task({ runId, taskId: 'extract', state: 'running' })).tryNumber).toBe(1);
    expect((await ledger.task({ runId, taskId: 'extract', state: 'up_for_retry', error: 'timeout' })).tryNumber).toBe(1);
    expect((await ledger.task({ runId, taskId: 'extract', state: 'success' })).tryNumber).toBe(2);
    await ledger.task({ runId, taskId: 'load', state: 'success' });
    expect(await dateOf(ledger)).toMatchObject({ status: 'success' });
    const grid = await ledger.runTasks({ pipeline: 'etl', runId });
    expect(grid.tasks.map((t) => [t.taskId, t.state, t.tryNumber, t.leaf])).toEqual([
      ['extract', 'success', 2, false],
      ['load', 'success', 1, true],
    ]);
    expect(grid.run.status).toBe('success');
  });
});

describe('S3 and S12 refusals, through the ledger', () => {
  test('an explicit succeed or fail is refused while tasks are unfinished (exit 3), and nothing is written', async () => {
    const ledger = await ledgerWith(CHAIN);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'extract', state: 'success' });
    const before = await eventCount(ledger);
    expect(await refusal(ledger.succeed({ runId }))).toMatchObject({ code: 'ledger.tasksUnfinished', exitCode: 3 });
    expect(await refusal(ledger.fail({ runId, error: 'x' }))).toMatchObject({ code: 'ledger.tasksUnfinished', message: expect.stringMatching(/2 tasks unfinished \(load, cleanup\)/) });
    expect(await eventCount(ledger)).toBe(before);
    await ledger.heartbeat({ runId });
  });

  test('after the derived outcome, the same succeed is a repeat and a different task state is refused', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.task({ runId, taskId: 'extract', state: 'success' });
    const count = await eventCount(ledger);
    expect(await ledger.succeed({ runId })).toMatchObject({ repeated: true });
    expect(await ledger.task({ runId, taskId: 'extract', state: 'success' })).toMatchObject({ repeated: true });
    expect(await refusal(ledger.task({ runId, taskId: 'extract', state: 'failed' }))).toMatchObject({ code: 'ledger.runFinished', exitCode: 3 });
    expect(await eventCount(ledger)).toBe(count);
  });

  test('a task of a cleared run is refused as stale', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.clear({ pipeline: 'etl', dates: ['2026-11-02'] });
    expect(await refusal(ledger.task({ runId, taskId: 'extract', state: 'success' }))).toMatchObject({ code: 'ledger.staleRun', message: expect.stringMatching(/was cleared/) });
  });

  test('bad input: an unknown task (exit 4), an unknown state or try number (exit 2), a pipeline without tasks (exit 4)', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }, { id: 'load', upstream: ['extract'] }]);
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    expect(await refusal(ledger.task({ runId, taskId: 'lod', state: 'success' }))).toMatchObject({ code: 'notFound.task', exitCode: 4, message: "pipeline etl has no task 'lod'; its tasks are extract, load" });
    expect(await refusal(ledger.task({ runId, taskId: 'load', state: 'done' }))).toMatchObject({ code: 'input.invalidTaskState', exitCode: 2 });
    expect(await refusal(ledger.task({ runId, taskId: 'load', state: 'UP-FOR-RETRY' }))).toMatchObject({ message: expect.stringMatching(/did you mean up_for_retry\?/) });
    expect(await refusal(ledger.task({ runId, taskId: 'load', state: 'running', tryNumber: 0 }))).toMatchObject({ code: 'input.invalidTryNumber', exitCode: 2 });
    expect(await refusal(ledger.task({ runId: 'NOPE', taskId: 'load', state: 'running' }))).toMatchObject({ code: 'notFound.run', exitCode: 4 });

    await ledger.define({ pipeline: 'plain', schedule: '@daily', start: '2026-11-02' });
    const plain = await ledger.start({ pipeline: 'plain', date: '2026-11-02' });
    expect(await refusal(ledger.task({ runId: plain.runId, taskId: 'extract', state: 'success' }))).toMatchObject({ code: 'notFound.task', message: expect.stringMatching(/declares no tasks/) });
    expect(await ledger.succeed({ runId: plain.runId })).toMatchObject({ status: 'success' });
  });

  test('an invalid task list is refused at define (exit 2) and nothing is written', async () => {
    const ledger = await ledgerWith([{ id: 'extract' }]);
    const count = await eventCount(ledger);
    const refused = await refusal(ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', tasks: [{ id: 'a', upstream: ['b'] }, { id: 'b', upstream: ['a'] }] }));
    expect(refused).toMatchObject({ code: 'input.invalidTasks', exitCode: 2, message: expect.stringMatching(/cycle: a -> b -> a/) });
    expect(await eventCount(ledger)).toBe(count);
  });

  test('redefining: the same tasks, or none given, change nothing; dropping them (tasks: null) is a recorded change', async () => {
    const ledger = await ledgerWith(CHAIN);
    expect((await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', tasks: CHAIN })).outcome).toBe('unchanged');
    expect((await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02' })).outcome).toBe('unchanged');
    const dropped = await ledger.define({ pipeline: 'etl', tasks: null });
    expect(dropped.outcome).toBe('redefined');
    expect(dropped.changes).toEqual([{ field: 'tasks', from: expect.any(Array), to: null }]);
  });
});
