import { graphView, type GraphView } from '../../projections/views/graph-view.js';
import type { Ledger } from '../ledger/ledger.js';
import { readStatus } from './read-status.js';

/**
 * `runledger graph --json` and `GET /api/graph`: every pipeline with its worst status, and an edge per
 * declared upstream with its mapping.
 *
 * @example
 * const { nodes, edges } = await readGraph(ledger);
 */
export async function readGraph(ledger: Ledger, options: { nowMs?: number } = {}): Promise<GraphView> {
  const nowMs = options.nowMs ?? ledger.now();
  const definitions = await ledger.pipelines();
  const { pipelines } = await readStatus(ledger, { nowMs });
  return graphView(definitions, pipelines, nowMs);
}
