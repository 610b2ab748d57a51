import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { leaseExpired } from '../../projections/date-state.js';
import { poolWait, type PoolRunRecord, type PoolWait } from '../../projections/views/pool-wait.js';
import type { Ledger } from '../ledger/ledger.js';

/**
 * The full pools among `pools`, each with its size and the runs that hold its places, from the ledger alone:
 * the definitions say which pipelines share a pool, their dates which runs are live, and each live run's
 * start the pool size its runner kept. A date of such a pool that is due and not running waits for a place
 * (a runner given `--pool` starts it once one is free); no live process is asked.
 *
 * @example
 * const waits = await readPoolWaits(ledger, await ledger.pipelines(), new Set(['warehouse'])); // Map { 'warehouse' => { size: 2, running: [...] } }
 */
export async function readPoolWaits(ledger: Ledger, definitions: readonly PipelineDefinition[], pools: ReadonlySet<string>, nowMs = ledger.now()): Promise<Map<string, PoolWait>> {
  const waits = new Map<string, PoolWait>();
  for (const pool of pools) {
    const live: PoolRunRecord[] = [];
    for (const definition of definitions) {
      if (definition.pool !== pool) continue;
      const { state } = await ledger.pipeline(definition.pipeline);
      for (const d of state.dates.values()) {
        if (d.status !== 'running' || leaseExpired(d, nowMs)) continue;
        live.push({ pipeline: definition.pipeline, date: d.date, runId: d.runId, position: d.startPosition, size: await recordedSize(ledger, definition.pipeline, d.runId) });
      }
    }
    const wait = poolWait(pool, live);
    if (wait) waits.set(pool, wait);
  }
  return waits;
}

/** The pool size a run's start recorded, or null. */
async function recordedSize(ledger: Ledger, pipeline: string, runId: string): Promise<number | null> {
  for await (const batch of ledger.store.read({ pipeline, runId, types: ['RunStarted'] })) {
    for (const event of batch) if (event.type === 'RunStarted' && event.data.runId === runId) return event.data.pool?.size ?? null;
  }
  return null;
}

/**
 * The wait of the pipeline's pool when it is full now, or null (no pool, or a free place).
 *
 * @example
 * await readPipelinePoolWait(ledger, 'etl_orders') // { pool: 'warehouse', size: 2, running: [...] } or null
 */
export async function readPipelinePoolWait(ledger: Ledger, pipeline: string): Promise<PoolWait | null> {
  const { definition } = await ledger.pipeline(pipeline);
  if (definition.pool === undefined) return null;
  const waits = await readPoolWaits(ledger, await ledger.pipelines(), new Set([definition.pool]));
  return waits.get(definition.pool) ?? null;
}
