import { LedgerError } from '../errors.js';
import type { Metrics, RunContext, RunTask } from './run-types.js';

/** A TypeScript pipeline step: returns its metrics (or nothing); throws to fail the run. */
export type RunFunction = (run: RunContext, signal: AbortSignal) => Promise<Metrics | void> | Metrics | void;

/**
 * Adapts a function to a runner task: its return value becomes the success
 * metrics and a throw becomes a failure (the runner records it with the
 * error's message and its `code`, if it has one).
 *
 * @example
 * const task = functionTask(async (run) => ({ rows: await load(run.date) }));
 */
export function functionTask(fn: RunFunction): RunTask {
  return async (run, signal) => {
    const value = await fn(run, signal);
    if (value === undefined || value === null) return { status: 'success', metrics: {} };
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new LedgerError('input.invalidMetrics', `the run function for ${run.pipeline} ${run.date} returned ${Array.isArray(value) ? 'an array' : typeof value}; return a metrics object like { rows: 42 } or nothing`);
    }
    return { status: 'success', metrics: value };
  };
}
