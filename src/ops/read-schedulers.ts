import { schedulerHealthView, type SchedulerHealth, type SchedulerHealthView } from '../../projections/views/scheduler-health.js';
import type { Ledger } from '../ledger/ledger.js';

/**
 * The schedulers that recorded their health in this ledger (`runledger scheduler`), as seen at `nowMs`: what
 * `status`, the web view and `/metrics` show. A row that does not read as one (written by another version) is
 * left out.
 *
 * @example
 * const schedulers = await readSchedulers(ledger, ledger.now()); // [{ host: 'etl-1', pid: 4242, stale: false, … }]
 */
export async function readSchedulers(ledger: Ledger, nowMs: number): Promise<SchedulerHealthView[]> {
  const rows = (await ledger.store.schedulers?.list()) ?? [];
  const health: SchedulerHealth[] = [];
  for (const row of rows) {
    try {
      const body = JSON.parse(row.body) as SchedulerHealth;
      if (typeof body.host === 'string' && typeof body.pid === 'number' && typeof body.updatedAt === 'string' && Array.isArray(body.inFlight)) health.push({ ...body, id: row.id });
    } catch {
      // Not a row this version can read.
    }
  }
  return schedulerHealthView(health, nowMs);
}
