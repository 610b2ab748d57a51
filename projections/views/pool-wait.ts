/** A live run of a pool's pipelines, with the pool size its start recorded (null: started outside a sized pool). */
export type PoolRunRecord = { pipeline: string; date: string; runId: string; position: number; size: number | null };

/**
 * A pool with no free place: its size as the runners keep it (`--pool NAME=N`, recorded with each start) and
 * the live runs that take its places. What `pending`, `status` and the web view show beside a date that
 * waits for a place.
 */
export type PoolWait = { pool: string; size: number; running: Array<{ pipeline: string; date: string; runId: string }> };

/**
 * The pool's wait, or null when it has a free place. The size is the one the newest start that recorded one
 * gave (a restarted scheduler with a new `--pool` size counts from its first start); a pool none of whose
 * live runs recorded a size is not full as far as the ledger can tell.
 *
 * @example
 * poolWait('warehouse', [{ pipeline: 'a', date: '2026-11-01', runId: 'r1', position: 7, size: 1 }]) // { pool: 'warehouse', size: 1, running: [{ pipeline: 'a', … }] }
 */
export function poolWait(pool: string, live: readonly PoolRunRecord[]): PoolWait | null {
  const sized = live.filter((r) => r.size !== null).sort((a, b) => b.position - a.position)[0];
  if (sized === undefined || sized.size === null || live.length < sized.size) return null;
  const running = [...live].sort((a, b) => a.position - b.position).map(({ pipeline, date, runId }) => ({ pipeline, date, runId }));
  return { pool, size: sized.size, running };
}

/**
 * `pool warehouse: 2 of 2 places taken (a 2026-11-01, b 2026-11-01)`.
 *
 * @example
 * poolWaitText({ pool: 'warehouse', size: 1, running: [{ pipeline: 'a', date: '2026-11-01', runId: 'r1' }] }) // 'pool warehouse: 1 of 1 places taken (a 2026-11-01)'
 */
export function poolWaitText(wait: PoolWait): string {
  return `pool ${wait.pool}: ${wait.running.length} of ${wait.size} ${wait.size === 1 ? 'place' : 'places'} taken (${wait.running.map((r) => `${r.pipeline} ${r.date}`).join(', ')})`;
}
