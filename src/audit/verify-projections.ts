import type { EventStore } from '../store/event-store.js';
import { finishAll, noRows, rowFolder } from '../store/read-model-fold.js';
import { pipelineRow, type DateRow, type PipelineRow, type RunRow } from '../store/read-model-rows.js';

/** The first row of the read models that is not what the fold of the events gives. */
export type ProjectionDifference = {
  pipeline: string;
  /** `pipeline`: its summary row; `date`: a date key's row; `run`: a run's row. */
  table: 'pipeline' | 'date' | 'run';
  /** The date key or run id of the row (null for the summary row). */
  key: string | null;
  field: string;
  stored: unknown;
  folded: unknown;
};

export type ProjectionCheck = { ok: boolean; pipelines: number; rows: number; difference: ProjectionDifference | null };

/**
 * `verify --projections`: folds each pipeline's events afresh (streamed in batches, one pipeline's state
 * in memory at a time) and compares every row of the read models with the rows the fold gives, field by
 * field; a row the fold does not give, or one the tables lack, is a difference too. Stops at the first.
 *
 * @example
 * const { ok, difference } = await verifyProjections(store); // difference: { pipeline: 'etl_orders', table: 'date', key: '2026-11-03', field: 'status', … }
 */
export async function verifyProjections(store: EventStore): Promise<ProjectionCheck> {
  const models = store.readModels;
  if (models === undefined) return { ok: true, pipelines: 0, rows: 0, difference: null };
  if (!(await models.ensure())) throw new Error('the read models could not be brought up to the events');
  const names = new Set<string>(await models.pipelines());
  for (const name of (await store.checkpoints?.pipelines()) ?? (await pipelinesOf(store))) names.add(name);
  let rows = 0;
  let pipelines = 0;
  for (const pipeline of [...names].sort()) {
    const folder = rowFolder(pipeline, noRows());
    let events = 0;
    for await (const batch of store.read({ pipeline })) {
      folder.add(batch);
      events += batch.length;
    }
    const folded = finishAll(folder);
    const stored = await models.storedRows(pipeline);
    pipelines += 1;
    const summary = events === 0 ? null : pipelineRow(folded.summary);
    const difference =
      compareRows(pipeline, 'pipeline', new Map(stored.summary ? [['', stored.summary]] : []), new Map(summary ? [['', summary]] : []), () => null) ??
      compareRows(pipeline, 'date', byKey(stored.dates, (r) => r.date), byKey(folded.dates, (r) => r.date), (k) => k) ??
      compareRows(pipeline, 'run', byKey(stored.runs, (r) => r.run_id), byKey(folded.runs, (r) => r.run_id), (k) => k);
    rows += 1 + stored.dates.length + stored.runs.length;
    if (difference !== null) return { ok: false, pipelines, rows, difference };
  }
  return { ok: true, pipelines, rows, difference: null };
}

async function pipelinesOf(store: EventStore): Promise<string[]> {
  const names = new Set<string>();
  for await (const batch of store.read()) for (const event of batch) names.add(event.data.pipeline);
  return [...names];
}

function byKey<R>(rows: readonly R[], key: (row: R) => string): Map<string, R> {
  return new Map(rows.map((row) => [key(row), row]));
}

type AnyRow = PipelineRow | DateRow | RunRow;

/** The first field that differs between the stored rows and the folded ones, in key order. */
function compareRows(pipeline: string, table: ProjectionDifference['table'], stored: Map<string, AnyRow>, folded: Map<string, AnyRow>, keyOf: (key: string) => string | null): ProjectionDifference | null {
  const keys = [...new Set([...stored.keys(), ...folded.keys()])].sort();
  for (const key of keys) {
    const a = stored.get(key) as Record<string, unknown> | undefined;
    const b = folded.get(key) as Record<string, unknown> | undefined;
    if (a === undefined || b === undefined) {
      return { pipeline, table, key: keyOf(key), field: '(row)', stored: a === undefined ? 'absent' : 'present', folded: b === undefined ? 'absent' : 'present' };
    }
    for (const field of Object.keys(b)) {
      // SQLite hands integers back as numbers, PostgreSQL bigints as text: compare them as values.
      if (!sameValue(a[field], b[field])) return { pipeline, table, key: keyOf(key), field, stored: a[field] ?? null, folded: b[field] ?? null };
    }
  }
  return null;
}

function sameValue(a: unknown, b: unknown): boolean {
  if ((a ?? null) === (b ?? null)) return true;
  if (typeof b === 'number' && (typeof a === 'string' || typeof a === 'bigint')) return Number(a) === b;
  return false;
}
