import type { Upstream } from '../events/pipeline-definition.js';
import { compareNames } from './views/compare-names.js';

/** The pipelines and their declared upstreams: what `define --upstream` recorded, by pipeline name. */
export type DependencyGraph = ReadonlyMap<string, readonly Upstream[]>;

/**
 * A cycle the graph would have, as the path that closes it (`['a', 'b', 'a']`), or null. Pipelines are
 * visited by name and upstreams in their declared order, so the same graph always names the same cycle.
 *
 * @example
 * findCycle(new Map([['a', [{ pipeline: 'b', mapping: 'overlap' }]], ['b', [{ pipeline: 'a', mapping: 'overlap' }]]])) // ['a', 'b', 'a']
 */
export function findCycle(graph: DependencyGraph): string[] | null {
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (name: string): string[] | null => {
    const at = onPath.indexOf(name);
    if (at >= 0) return [...onPath.slice(at), name];
    if (done.has(name)) return null;
    onPath.push(name);
    for (const up of graph.get(name) ?? []) {
      const cycle = visit(up.pipeline);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(name);
    return null;
  };
  for (const name of [...graph.keys()].sort()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * The pipelines that name `pipeline` as an upstream, each with the mapping, by name.
 *
 * @example
 * directDownstreams(graph, 'orders_raw') // [{ pipeline: 'sales_report', mapping: 'overlap' }]
 */
export function directDownstreams(graph: DependencyGraph, pipeline: string): Upstream[] {
  const found: Upstream[] = [];
  for (const [name, upstreams] of graph) {
    for (const up of upstreams) if (up.pipeline === pipeline) found.push({ pipeline: name, mapping: up.mapping });
  }
  return found.sort((a, b) => compareNames(a.pipeline, b.pipeline) || compareNames(a.mapping, b.mapping));
}

/**
 * `pipeline` and every pipeline downstream of it, transitively, in an order where each comes after
 * all of its upstreams among them.
 *
 * @example
 * withDownstreams(graph, 'orders_raw') // ['orders_raw', 'sales_report', 'finance_pack']
 */
export function withDownstreams(graph: DependencyGraph, pipeline: string): string[] {
  const reached = new Set<string>([pipeline]);
  for (let frontier = [pipeline]; frontier.length > 0; ) {
    const next: string[] = [];
    for (const name of frontier) {
      for (const down of directDownstreams(graph, name)) {
        if (reached.has(down.pipeline)) continue;
        reached.add(down.pipeline);
        next.push(down.pipeline);
      }
    }
    frontier = next;
  }
  return dependencyOrder(graph).filter((name) => reached.has(name));
}

/**
 * Every pipeline of the graph (and every upstream it names) with each after all its upstreams; ties by
 * name. The graph must have no cycle (`define` refuses one).
 *
 * @example
 * dependencyOrder(graph) // ['orders_raw', 'sales_report']
 */
export function dependencyOrder(graph: DependencyGraph): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const place = (name: string, depth: number): void => {
    if (placed.has(name) || depth > graph.size + 1) return;
    for (const up of graph.get(name) ?? []) place(up.pipeline, depth + 1);
    placed.add(name);
    order.push(name);
  };
  for (const name of [...graph.keys()].sort()) place(name, 0);
  return order;
}
