import { sortWorstFirst, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import { readPoolWaits } from './read-pool-waits.js';
import type { Ledger } from '../ledger/ledger.js';
import { pooledOfStatusRows } from '../ledger/pipeline-statuses-view.js';
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
  await addOverdueRetries(ledger, rows, nowMs);
  await addPoolWaits(ledger, rows, nowMs);
  // Every pipeline's rows come by name (`pipelineStatuses`): the sort need not check it.
  return { now: new Date(nowMs).toISOString(), pipelines: sortWorstFirst(rows, names === undefined), schedulers: await readSchedulers(ledger, nowMs) };
}

/**
 * Retries nobody started by their time plus the pipeline's lease (the runner that waited for them is gone), on each
 * row as `overdueRetries`. Only a pipeline whose counts show a date waiting for a retry has its dates read.
 */
export async function addOverdueRetries(ledger: Ledger, rows: PipelineStatus[], nowMs: number): Promise<void> {
  for (const row of rows) {
    if (row.pending.up_for_retry === 0) continue;
    const { definition, state } = await ledger.pipeline(row.pipeline);
    const overdue = [...state.dates.values()].flatMap((d) => overdueRetry(d, definition.leaseMs, nowMs) ?? []);
    if (overdue.length > 0) row.overdueRetries = overdue;
  }
}

/**
 * A pipeline in a full pool (`define --pool`) with dates that could start now says so: its dates wait for a
 * place. Only a ledger with pools has its definitions and live runs read for it.
 */
export async function addPoolWaits(ledger: Ledger, rows: PipelineStatus[], nowMs: number): Promise<void> {
  // Rows whose pipelines are known to be in no pool need no definition read (status over 1,000 pipelines parsed each
  // again); when none is in a pool, no row is even looked at.
  const pooled = pooledOfStatusRows(rows);
  if (pooled !== undefined && pooled.size === 0) return;
  const waiting = rows.filter((row) => startable(row) > 0);
  if (waiting.length === 0) return;
  if (pooled !== undefined && waiting.every((row) => !pooled.has(row.pipeline))) return;
  const definitions = await ledger.pipelines();
  const poolOf = new Map(definitions.flatMap((d) => (d.pool === undefined ? [] : [[d.pipeline, d.pool] as const])));
  if (poolOf.size === 0) return;
  const pools = new Set(waiting.flatMap((row) => poolOf.get(row.pipeline) ?? []));
  const waits = await readPoolWaits(ledger, definitions, pools, nowMs);
  for (const row of waiting) {
    const wait = waits.get(poolOf.get(row.pipeline) ?? '');
    if (wait) row.poolWait = wait;
  }
}

/** Pending dates a runner could start now: not waiting for upstream, the date before, or a retry's time. */
function startable(row: PipelineStatus): number {
  return row.pending.total - row.pending.upstream - row.pending.waitingForPrevious - row.pending.up_for_retry;
}
