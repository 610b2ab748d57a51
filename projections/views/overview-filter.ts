import type { PipelineStatus } from './pipeline-status.js';

/** A pipeline's health in one word, as the overview's status column and filter say it. */
export type Health = 'failed' | 'stalled' | 'behind' | 'running' | 'ok' | 'not-due';

/** Every health, worst first: the filter's choices. */
export const HEALTHS: readonly Health[] = ['failed', 'stalled', 'behind', 'running', 'ok', 'not-due'];

/**
 * A pipeline's health: `failed` when a pending date failed, `stalled` when a
 * run's lease ran out, `behind` when dates are pending, `running` when runs
 * are in flight and nothing is pending, `ok` when it is up to date,
 * `not-due` when no slot is due yet.
 *
 * @example
 * healthOf(status) // 'behind'
 */
export function healthOf(status: PipelineStatus): Health {
  if (status.pending.failed > 0) return 'failed';
  if (status.stalled.length > 0 || status.pending.stalled > 0) return 'stalled';
  if (status.pending.total > 0) return 'behind';
  if (status.inFlight.length > 0) return 'running';
  if (status.lagSeconds === null) return 'not-due';
  return 'ok';
}

/** What the overview is narrowed to: a health, and text the name contains (case-insensitive). */
export type OverviewFilter = { health: Health | null; name: string };

/**
 * The rows the overview's filter keeps, in their order.
 *
 * @example
 * filterOverview(rows, { health: 'failed', name: 'etl' })
 */
export function filterOverview<T extends { status: PipelineStatus }>(rows: readonly T[], filter: OverviewFilter): T[] {
  const name = filter.name.trim().toLowerCase();
  return rows.filter((r) => (filter.health === null || healthOf(r.status) === filter.health) && (name === '' || r.status.pipeline.includes(name)));
}
