import type { TaskDefinition } from '../events/types/task-definition.js';
import type { TaskState } from '../events/types/task-state-changed.js';
import { runLeaves } from './task-graph.js';
import type { TaskRun } from './task-runs.js';

export type TaskGridRow = {
  taskId: string;
  state: TaskState | null;
  tryNumber: number | null;
  updatedAt: string | null;
  error: string | null;
  triggerRule: TaskDefinition['triggerRule'] | null;
  teardown: boolean;
  leaf: boolean;
  declared: boolean;
};

/**
 * A run's task grid: every declared task in declaration order with its latest
 * state (null when it has reported none), then any task the run reported that
 * the definition no longer declares.
 *
 * @example
 * taskGrid(definition.tasks ?? [], tasks.runs.get(runId) ?? new Map()).map((r) => `${r.taskId} ${r.state ?? '-'}`)
 */
export function taskGrid(declared: readonly TaskDefinition[], reported: ReadonlyMap<string, TaskRun>): TaskGridRow[] {
  const leaves = new Set(runLeaves(declared));
  const rows: TaskGridRow[] = declared.map((task) => {
    const run = reported.get(task.id);
    return {
      taskId: task.id,
      state: run?.state ?? null,
      tryNumber: run?.tryNumber ?? null,
      updatedAt: run?.updatedAt ?? null,
      error: run?.error ?? null,
      triggerRule: task.triggerRule,
      teardown: task.teardown,
      leaf: leaves.has(task.id),
      declared: true,
    };
  });
  const ids = new Set(declared.map((t) => t.id));
  for (const run of reported.values()) {
    if (ids.has(run.taskId)) continue;
    rows.push({ taskId: run.taskId, state: run.state, tryNumber: run.tryNumber, updatedAt: run.updatedAt, error: run.error, triggerRule: null, teardown: false, leaf: false, declared: false });
  }
  return rows;
}
