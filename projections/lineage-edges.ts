import type { PipelineDefinition } from '../events/pipeline-definition.js';
import type { RunSucceeded } from '../events/run-succeeded.js';
import { compareNames } from './views/compare-names.js';

/** A dataset's key: `namespace/name`, the form outputs have been recorded in. */
type DatasetKey = string;

/**
 * The datasets one successful run read and wrote, as `namespace/name` keys. The one reader of both:
 * outputs are recorded as `namespace/name` texts (or, from newer ingests, as `{ namespace, name }`
 * objects), inputs as objects; each becomes the same key, so a dataset written by one pipeline and
 * read by another matches whichever way it was recorded.
 *
 * @example
 * runDatasets({ outputs: ['s3://lake/orders'], inputs: [{ namespace: 's3://lake', name: 'customers' }] })
 * // { inputs: ['s3://lake/customers'], outputs: ['s3://lake/orders'] }
 */
export function runDatasets(data: Pick<RunSucceeded['data'], 'outputs' | 'inputs'> | { outputs?: unknown; inputs?: unknown }): { inputs: DatasetKey[]; outputs: DatasetKey[] } {
  return { inputs: keysOf(data.inputs), outputs: keysOf(data.outputs) };
}

function keysOf(list: unknown): DatasetKey[] {
  if (!Array.isArray(list)) return [];
  const keys: DatasetKey[] = [];
  for (const item of list) {
    if (typeof item === 'string' && item !== '') keys.push(item);
    else if (typeof item === 'object' && item !== null) {
      const { namespace, name } = item as { namespace?: unknown; name?: unknown };
      if (typeof namespace === 'string' && typeof name === 'string') keys.push(`${namespace}/${name}`);
    }
  }
  return keys;
}

/** Which pipelines wrote and read each dataset, gathered run by run. */
export type DatasetUse = { writers: Map<DatasetKey, Set<string>>; readers: Map<DatasetKey, Set<string>> };

export function initialDatasetUse(): DatasetUse {
  return { writers: new Map(), readers: new Map() };
}

/**
 * Adds one successful run's datasets to `use`.
 *
 * @example
 * addRun(use, event.data.pipeline, event.data)
 */
export function addRun(use: DatasetUse, pipeline: string, data: Parameters<typeof runDatasets>[0]): void {
  const { inputs, outputs } = runDatasets(data);
  for (const key of outputs) add(use.writers, key, pipeline);
  for (const key of inputs) add(use.readers, key, pipeline);
}

function add(map: Map<DatasetKey, Set<string>>, key: DatasetKey, pipeline: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(pipeline);
  map.set(key, set);
}

/** An edge the recorded datasets imply: `upstream` wrote a dataset `downstream` read. */
export type LineageEdge = { upstream: string; downstream: string; datasets: DatasetKey[]; declared: boolean };

/**
 * The edges implied by recorded datasets (a dataset some run of `a` wrote and some run of `b` read,
 * `a` ≠ `b`), each marked declared when `b` names `a` as an upstream (any mapping); sorted by
 * downstream, then upstream.
 *
 * @example
 * lineageEdges(use, definitions) // [{ upstream: 'orders_raw', downstream: 'sales_report', datasets: ['s3://lake/orders'], declared: false }]
 */
export function lineageEdges(use: DatasetUse, definitions: readonly PipelineDefinition[]): LineageEdge[] {
  const declared = new Set(definitions.flatMap((d) => (d.upstreams ?? []).map((u) => `${u.pipeline}\u0000${d.pipeline}`)));
  const edges = new Map<string, LineageEdge>();
  for (const [key, readers] of use.readers) {
    for (const writer of use.writers.get(key) ?? []) {
      for (const reader of readers) {
        if (reader === writer) continue;
        const id = `${writer}\u0000${reader}`;
        const edge = edges.get(id) ?? { upstream: writer, downstream: reader, datasets: [], declared: declared.has(id) };
        edge.datasets.push(key);
        edges.set(id, edge);
      }
    }
  }
  return [...edges.values()]
    .map((e) => ({ ...e, datasets: [...new Set(e.datasets)].sort() }))
    .sort((a, b) => compareNames(a.downstream, b.downstream) || compareNames(a.upstream, b.upstream));
}

/**
 * The `define … --upstream` commands that would declare the undeclared edges: one per downstream
 * pipeline, naming its current upstreams too (the option replaces the list).
 *
 * @example
 * suggestUpstreams(edges, definitions) // ['runledger define sales_report --upstream orders_raw']
 */
export function suggestUpstreams(edges: readonly LineageEdge[], definitions: readonly PipelineDefinition[]): string[] {
  const byName = new Map(definitions.map((d) => [d.pipeline, d]));
  const missing = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.declared || !byName.has(edge.upstream) || !byName.has(edge.downstream)) continue;
    missing.set(edge.downstream, [...(missing.get(edge.downstream) ?? []), edge.upstream]);
  }
  return [...missing].map(([downstream, ups]) => {
    const current = (byName.get(downstream)?.upstreams ?? []).map((u) => (u.mapping === 'overlap' ? u.pipeline : `${u.pipeline}:${u.mapping}`));
    const all = [...current, ...ups.filter((u) => !current.includes(u))];
    return `runledger define ${downstream} ${all.map((u) => `--upstream ${u}`).join(' ')}`;
  });
}
