import { compareWorstFirst, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import type { Ledger } from '../ledger/ledger.js';
import { overdueRetry } from '../../projections/overdue-retry.js';
import type { SchedulerHealthView } from '../../projections/views/scheduler-health.js';
import { readSchedulers } from './read-schedulers.js';

/** `status --json` and `GET /api/status`: every pipeline, worst first, and the schedulers that recorded their health. */
export type StatusView = { now: string; pipelines: PipelineStatus[]; schedulers: SchedulerHealthView[] };

/**
 * The status of every pipeline (or of the named ones) at the ledger's "now",
 * worst first. Unknown names are `notFound.pipeline`, as everywhere.
 *
 * @example
 * const view = await readStatus(ledger); // { now, pipelines: [{ pipeline: 'etl_orders', lag: '2d 1h', … }] }
 */
export async function readStatus(ledger: Ledger, options: { pipelines?: readonly string[]; nowMs?: number } = {}): Promise<StatusView> {
  const nowMs = options.nowMs ?? ledger.now();
  const names = options.pipelines && options.pipelines.length > 0 ? [...new Set(options.pipelines)] : undefined;
  const rows = await ledger.pipelineStatuses({ ...(names === undefined ? {} : { pipelines: names }), nowMs });
  // Only a pipeline whose counts show a date waiting for a retry has its dates read, to find the overdue ones.
  for (const row of rows) {
    if (row.pending.up_for_retry === 0) continue;
    const { definition, state } = await ledger.pipeline(row.pipeline);
    const overdue = [...state.dates.values()].flatMap((d) => overdueRetry(d, definition.leaseMs, nowMs) ?? []);
    if (overdue.length > 0) row.overdueRetries = overdue;
  }
  return { now: new Date(nowMs).toISOString(), pipelines: rows.sort(compareWorstFirst), schedulers: await readSchedulers(ledger, nowMs) };
}
