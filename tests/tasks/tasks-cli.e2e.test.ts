import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-05T01:00:00+07:00';

/** Issue 6's acceptance: the first two scenarios with the real binary. */
describe('a leaf with all_done hides a failure, and an all_success leaf catches it (CLI end to end)', () => {
  const dir = tempDir('runledger-tasks-e2e-');
  const env = { RUNLEDGER_DB: join(dir, 'ledger.db'), RUNLEDGER_NOW: NOW };
  const run = (...args: string[]) => cli(args, env);
  const tasksFile = (name: string, tasks: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ tasks }));
    return path;
  };
  const chain = [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }, { id: 'cleanup', upstream: ['load'], triggerRule: 'all_done', teardown: false }];
  const start = (date: string) => {
    const r = run('start', 'etl_orders', date);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  const task = (runId: string, taskId: string, state: string) => {
    const r = run('task', runId, taskId, state);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  const state = () => {
    const r = run('state', 'etl_orders', '--json');
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { watermark: string | null; dates: Array<{ date: string; status: string; runId: string; error: string | null; errorCode: string | null }> };
  };

  let defineOutput = { code: -1, stdout: '', stderr: '' };
  beforeAll(() => {
    defineOutput = run('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta', '--tasks', tasksFile('chain.json', chain));
  });

  test('1. define warns on stderr about the cleanup leaf, with the fix, and still exits 0', () => {
    expect(defineOutput.code).toBe(0);
    expect(defineOutput.stdout).toMatch(/^defined etl_orders/);
    expect(defineOutput.stderr).toBe(
      "runledger: warning: etl_orders: leaf 'cleanup' (all_done) can end in success after 'extract' or 'load' failed, so the run would be recorded as a success; " +
        "add a leaf with trigger rule all_success downstream of 'load', or mark 'cleanup' a teardown so it no longer decides the run\n",
    );
    const lint = run('pipelines', '--lint');
    expect(lint.code).toBe(0);
    expect(lint.stderr).toMatch(/leaf 'cleanup' \(all_done\)/);
  });

  test('2. extract failed, load upstream_failed, cleanup success: state --json shows the run succeeded', () => {
    const runId = start('2026-11-02');
    const early = run('succeed', runId);
    expect(early.code).toBe(3);
    expect(early.stderr).toMatch(/3 tasks unfinished \(extract, load, cleanup\); its success is not recorded/);
    expect(task(runId, 'extract', 'failed')).toMatch(/run still running, 2 tasks unfinished/);
    task(runId, 'load', 'upstream_failed');
    expect(task(runId, 'cleanup', 'success')).toMatch(/run succeeded/);
    const view = state();
    expect(view.dates.find((d) => d.date === '2026-11-02')).toMatchObject({ status: 'success', runId, error: null });
    expect(view.watermark).toBe('2026-11-02');

    const grid = run('runs', 'etl_orders', '--run', runId);
    expect(grid.code).toBe(0);
    expect(grid.stdout).toMatch(/^extract\s+failed\s+1\s/m);
    expect(grid.stdout).toMatch(/^load\s+upstream_failed\s+1\s/m);
    expect(grid.stdout).toMatch(/^cleanup\s+success\s+1\s.*all_done\s+leaf$/m);
  });

  test('3. with a mark_complete leaf (all_success) after load, define is quiet and the same states fail the run', () => {
    const guarded = run('define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta', '--tasks', tasksFile('guarded.json', [...chain, { id: 'mark_complete', upstream: ['load'] }]));
    expect(guarded.code).toBe(0);
    expect(guarded.stderr).toBe('');
    expect(guarded.stdout).toMatch(/^redefined etl_orders/);

    const runId = start('2026-11-03');
    task(runId, 'extract', 'failed');
    task(runId, 'load', 'upstream_failed');
    task(runId, 'cleanup', 'success');
    expect(task(runId, 'mark_complete', 'upstream_failed')).toMatch(/run failed: leaf task 'mark_complete' upstream_failed/);
    expect(state().dates.find((d) => d.date === '2026-11-03')).toMatchObject({ status: 'failed', runId, error: "leaf task 'mark_complete' upstream_failed", errorCode: 'leafFailed' });

    const grid = JSON.parse(run('runs', 'etl_orders', '--run', runId, '--json').stdout) as { outcome: unknown; tasks: Array<{ taskId: string; leaf: boolean }> };
    expect(grid.outcome).toEqual({ status: 'failed', failedLeaves: [{ taskId: 'mark_complete', state: 'upstream_failed' }] });
    expect(grid.tasks.filter((t) => t.leaf).map((t) => t.taskId)).toEqual(['cleanup', 'mark_complete']);
  });

  test('4. refusals are one line with the right exit code, and write nothing', () => {
    const runId = state().dates.find((d) => d.date === '2026-11-03')?.runId ?? '';
    const count = eventCount(env.RUNLEDGER_DB);
    const cases: Array<[string[], number, RegExp]> = [
      [['task', runId, 'extract', 'success'], 3, /already failed; its task extract success is not recorded/],
      [['task', runId, 'nope', 'success'], 4, /has no task 'nope'; its tasks are extract, load, cleanup, mark_complete/],
      [['task', runId, 'load', 'finished'], 2, /'finished' is not a task state/],
      [['task', runId, 'load', 'running', '--try', '0'], 2, /--try must be a whole number of 1 or more/],
    ];
    for (const [args, code, message] of cases) {
      const r = run(...args);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const bad = run('define', 'etl_bad', '--schedule', '@daily', '--start', '2026-11-02', '--tasks', tasksFile('bad.json', [{ id: 'a', upstream: ['ghost'] }, { id: 'a' }]));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^runledger: the task list is invalid \(2 problems\): tasks\[1\]: task id 'a' is declared twice .*'ghost', which is not a task/);
    expect(eventCount(env.RUNLEDGER_DB)).toBe(count);
  });
});
