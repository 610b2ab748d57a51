import { compareWorstFirst, type PipelineStatus } from '../../projections/views/pipeline-status.js';
import type { Ledger } from '../ledger/ledger.js';

/** `status --json` and `GET /api/status`: every pipeline, worst first. */
export type StatusView = { now: string; pipelines: PipelineStatus[] };

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
  return { now: new Date(nowMs).toISOString(), pipelines: rows.sort(compareWorstFirst) };
}
