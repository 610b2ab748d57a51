import { addRun, initialDatasetUse, lineageEdges, suggestUpstreams, type LineageEdge } from '../../projections/lineage-edges.js';
import type { Ledger } from '../ledger/ledger.js';

/** `runledger lineage --json`: the edges recorded datasets imply, and the commands that would declare the missing ones. */
export type LineageView = { edges: LineageEdge[]; suggestions: string[] };

/**
 * Reads every successful run's datasets (streamed, so memory follows the datasets, not the log) and
 * answers which pipelines feed which, marking the edges `define --upstream` already declares.
 *
 * @example
 * const { edges, suggestions } = await readLineage(ledger);
 */
export async function readLineage(ledger: Ledger): Promise<LineageView> {
  const use = initialDatasetUse();
  for await (const batch of ledger.logBatches({ types: ['RunSucceeded'] })) {
    for (const event of batch) if (event.type === 'RunSucceeded') addRun(use, event.data.pipeline, event.data);
  }
  const definitions = await ledger.pipelines();
  const edges = lineageEdges(use, definitions);
  return { edges, suggestions: suggestUpstreams(edges, definitions) };
}
