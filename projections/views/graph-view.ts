import type { PipelineDefinition, Upstream } from '../../events/pipeline-definition.js';
import { dependencyOrder } from '../dependency-graph.js';
import type { PipelineStatus } from './pipeline-status.js';

/**
 * A pipeline's worst status over its due dates, worst first: `failed` (a failed date or a stalled run),
 * `blocked` (a date waits for upstream), `pending` (missing, cleared, interrupted), `running`, `success`
 * (every due date done), `none` (nothing due yet).
 */
export type NodeStatus = 'failed' | 'blocked' | 'pending' | 'running' | 'success' | 'none';

export type GraphNode = {
  pipeline: string;
  schedule: string;
  timezone: string;
  status: NodeStatus;
  pending: number;
  blocked: number;
  completeThrough: string | null;
  /** Column (0 = no upstream) and row of the drawing: each pipeline one column right of its deepest upstream. */
  layer: number;
  row: number;
};

/** An edge from an upstream to the pipeline that waits for it, with the mapping. */
export type GraphEdge = { from: string; to: string; mapping: Upstream['mapping'] };

/** `runledger graph --json` and `GET /api/graph`. */
export type GraphView = { now: string; nodes: GraphNode[]; edges: GraphEdge[] };

/**
 * The dependency graph of the ledger's pipelines as a view: nodes with their worst status and a layered
 * position, edges with their mapping. Pure: the caller passes the definitions and their statuses.
 *
 * @example
 * graphView(definitions, statuses, nowMs).edges // [{ from: 'orders_raw', to: 'sales_report', mapping: 'overlap' }]
 */
export function graphView(definitions: readonly PipelineDefinition[], statuses: readonly PipelineStatus[], nowMs: number): GraphView {
  const graph = new Map(definitions.map((d) => [d.pipeline, d.upstreams ?? []]));
  const byName = new Map(definitions.map((d) => [d.pipeline, d]));
  const statusOf = new Map(statuses.map((s) => [s.pipeline, s]));
  const layer = new Map<string, number>();
  for (const name of dependencyOrder(graph)) {
    const ups = (graph.get(name) ?? []).map((u) => layer.get(u.pipeline) ?? 0);
    layer.set(name, ups.length === 0 ? 0 : Math.max(...ups) + 1);
  }
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = [];
  for (const name of dependencyOrder(graph)) {
    const definition = byName.get(name);
    if (!definition) continue;
    const status = statusOf.get(name);
    const l = layer.get(name) ?? 0;
    const row = rows.get(l) ?? 0;
    rows.set(l, row + 1);
    nodes.push({
      pipeline: name,
      schedule: definition.schedule,
      timezone: definition.timezone,
      status: status ? nodeStatus(status) : 'none',
      pending: status?.pending.total ?? 0,
      blocked: status?.blocked ?? 0,
      completeThrough: status?.completeThrough ?? null,
      layer: l,
      row,
    });
  }
  const edges = definitions.flatMap((d) => (d.upstreams ?? []).map((u) => ({ from: u.pipeline, to: d.pipeline, mapping: u.mapping })));
  return { now: new Date(nowMs).toISOString(), nodes, edges };
}

/**
 * The worst status of a pipeline's due dates.
 *
 * @example
 * nodeStatus(status) // 'blocked'
 */
export function nodeStatus(status: PipelineStatus): NodeStatus {
  if (status.pending.failed > 0 || status.stalled.length > 0) return 'failed';
  if (status.blocked > 0) return 'blocked';
  if (status.pending.total > 0) return 'pending';
  if (status.inFlight.length > 0) return 'running';
  return status.lagSeconds === null && status.completeThrough === null ? 'none' : 'success';
}
