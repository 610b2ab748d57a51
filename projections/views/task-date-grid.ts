import type { TaskState } from '../../events/task-state-changed.js';
import type { TaskRuns } from '../task-runs.js';

/** One task's row of the grid: its state on each date (null when not reported). */
export type TaskDateRow = { taskId: string; cells: Array<{ date: string; runId: string | null; state: TaskState | null; tryNumber: number | null }> };

export type TaskDateGrid = { dates: string[]; rows: TaskDateRow[] };

/**
 * Airflow's grid view for runledger: a row per declared task, a column per
 * date (the latest run of that date), each cell the task's latest state in
 * that run. Tasks no longer declared but reported in a shown run come last.
 *
 * @example
 * taskDateGrid(['extract', 'load'], recentDates, tasks)
 */
export function taskDateGrid(declared: readonly string[], dates: ReadonlyArray<{ date: string; runId: string | null }>, tasks: TaskRuns): TaskDateGrid {
  const ids = [...declared];
  for (const { runId } of dates) {
    for (const taskId of runId ? (tasks.runs.get(runId)?.keys() ?? []) : []) if (!ids.includes(taskId)) ids.push(taskId);
  }
  return {
    dates: dates.map((d) => d.date),
    rows: ids.map((taskId) => ({
      taskId,
      cells: dates.map(({ date, runId }) => {
        const task = runId ? tasks.runs.get(runId)?.get(taskId) : undefined;
        return { date, runId, state: task?.state ?? null, tryNumber: task?.tryNumber ?? null };
      }),
    })),
  };
}
