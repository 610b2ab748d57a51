import type { TaskDefinition } from '../../events/task-definition.js';
import { LedgerError } from '../errors.js';
import { checkTasks } from '../ledger/check-tasks.js';
import { READ_LIMITS, readBoundedText } from './read-bounded-file.js';

/**
 * `define --tasks <file.json>`: reads `{ "tasks": [ … ] }` and checks it
 * (unique ids, known upstreams, no cycle). Every problem is a one-line `input.*` error (exit 2), so nothing is
 * written.
 *
 * @example
 * readTasksFile('tasks.json') // [{ id: 'extract', upstream: [], triggerRule: 'all_success', teardown: false, failRunOnFailure: false }, …]
 */
export function readTasksFile(path: string): TaskDefinition[] {
  const text = readBoundedText(path, { what: '--tasks file', maxBytes: READ_LIMITS.document, unreadable: 'input.unreadableTasks' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LedgerError('input.invalidTasks', `--tasks file ${path} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('tasks' in value)) {
    throw new LedgerError('input.invalidTasks', `--tasks file ${path} must hold an object like {"tasks": [{"id": "extract"}, {"id": "load", "upstream": ["extract"]}]}`);
  }
  return checkTasks((value as { tasks: unknown }).tasks);
}
