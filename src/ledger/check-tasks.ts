import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { TaskDefinition } from '../../events/task-definition.js';
import type { TaskState } from '../../events/task-state-changed.js';
import { isTaskState, TASK_STATES } from '../../events/task-states.js';
import { checkTaskGraph } from '../../projections/task-graph.js';
import { LedgerError } from '../errors.js';

/**
 * Validates a declared task list and fills in its defaults; throws
 * `input.invalidTasks` (exit 2) naming every problem on one line.
 *
 * @example
 * checkTasks([{ id: 'extract' }, { id: 'load', upstream: ['extract'] }]) // [{ id: 'extract', upstream: [], triggerRule: 'all_success', … }, …]
 */
export function checkTasks(input: unknown): TaskDefinition[] {
  const result = checkTaskGraph(input);
  if (result.ok) return result.tasks;
  const problems = result.issues.map((i) => `${i.path}: ${i.message}`);
  throw new LedgerError('input.invalidTasks', `the task list is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.join('; ')}`);
}

/** Throws `notFound.task` (exit 4) unless the pipeline declares the task. */
export function requireTask(definition: PipelineDefinition, taskId: string): TaskDefinition {
  const tasks = definition.tasks ?? [];
  const task = tasks.find((t) => t.id === taskId);
  if (task) return task;
  if (tasks.length === 0) {
    throw new LedgerError('notFound.task', `pipeline ${definition.pipeline} declares no tasks, so it has no task '${taskId}'; redefine it with \`runledger define … --tasks <file.json>\` (library: tasks in ledger.define) to record task states`);
  }
  throw new LedgerError('notFound.task', `pipeline ${definition.pipeline} has no task '${taskId}'; its tasks are ${tasks.map((t) => t.id).join(', ')}`);
}

/** Throws `input.invalidTaskState` (exit 2) unless the text is one of Airflow's reportable task states. */
export function checkTaskState(text: string): TaskState {
  if (isTaskState(text)) return text;
  const near = TASK_STATES.find((s) => s === text.toLowerCase().replace(/-/g, '_'));
  throw new LedgerError('input.invalidTaskState', `'${text}' is not a task state${near ? `; did you mean ${near}?` : `; use one of ${TASK_STATES.join(', ')}`}`);
}

/** Throws `input.invalidTryNumber` (exit 2) unless the try number is a whole number of 1 or more. */
export function checkTryNumber(tryNumber: number): number {
  if (!Number.isSafeInteger(tryNumber) || tryNumber < 1) throw new LedgerError('input.invalidTryNumber', `the try number must be a whole number of 1 or more, not ${tryNumber}`);
  return tryNumber;
}
