import { setTimeout as sleep } from 'node:timers/promises';
import { leaseExpired, type DateState } from '../../projections/date-state.js';
import type { Ledger } from '../ledger/ledger.js';

/** How often a runner looks again for a free place under the pipeline's max_active_runs. */
const PLACE_POLL_MS = 250;

/** The pipeline's live runs (running, lease not run out), oldest start first: the order every runner agrees on. */
function liveRuns(dates: Iterable<DateState>, nowMs: number): DateState[] {
  return [...dates].filter((d) => d.status === 'running' && !leaseExpired(d, nowMs)).sort((a, b) => a.startPosition - b.startPosition);
}

/**
 * Waits until the pipeline has a free place under its `maxActiveRuns`,
 * counting the live leases of every runner on the ledger (and manual runs),
 * as Airflow's DAG-level `max_active_runs` does. Without `runId`: until fewer
 * than `limit` runs are live (checked before a claim). With `runId` (a run
 * this runner just claimed): until it is among the `limit` oldest live runs,
 * which settles two runners that claimed at the same moment: the later claim
 * waits, its lease kept alive by the runner's heartbeat, instead of running
 * beside them. Resolves false when `signal` aborts first.
 *
 * @example
 * if (!(await waitForPlace(ledger, 'etl_orders', 2, { signal }))) return; // interrupted while waiting
 */
export async function waitForPlace(
  ledger: Ledger,
  pipeline: string,
  limit: number,
  options: { runId?: string; signal?: AbortSignal; pollMs?: number; onWait?: (live: DateState[]) => void },
): Promise<boolean> {
  let told = false;
  for (;;) {
    if (options.signal?.aborted) return false;
    const { state } = await ledger.pipeline(pipeline);
    const live = liveRuns(state.dates.values(), ledger.now());
    if (options.runId === undefined) {
      if (live.length < limit) return true;
    } else {
      const rank = live.findIndex((d) => d.runId === options.runId);
      // Not live any more (cleared, taken over): the run's own fencing deals with it.
      if (rank < 0 || rank < limit) return true;
    }
    if (!told) {
      told = true;
      options.onWait?.(live);
    }
    try {
      await sleep(options.pollMs ?? PLACE_POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
    } catch {
      return false;
    }
  }
}
