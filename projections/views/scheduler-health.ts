/** Why a scheduler wakes next: a slot falls due, a retry's time comes, a live run's lease runs out. */
export type WakeWhy = 'due' | 'retry' | 'lease';

/**
 * What a `runledger scheduler` process records about itself (its row of `runledger_schedulers`), as it works
 * and on a heartbeat: every instant by the ledger's clock.
 */
export type SchedulerHealth = {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  /** When the scheduler last wrote its row: at each pass, sleep, start and end of a run, and at least every `beatSeconds`. */
  updatedAt: string;
  beatSeconds: number;
  /** `draining`: stopped by a signal, waiting for its runs in flight; `stopped`: exited. */
  state: 'running' | 'draining' | 'stopped';
  once: boolean;
  parallel: number;
  /** The pipelines it was started for, or null for every pipeline with a command. */
  pipelines: string[] | null;
  passes: number;
  lastPassAt: string | null;
  nextWake: { at: string; pipeline: string; date: string; why: WakeWhy } | null;
  inFlight: Array<{ pipeline: string; date: string; runId: string; attempt: number; startedAt: string }>;
};

/** A scheduler as `status`, the web view and `/metrics` show it: its row, how long it has been silent, and whether that is too long. */
export type SchedulerHealthView = SchedulerHealth & {
  silentSeconds: number;
  /** Still `running` or `draining` by its row, but silent for more than three heartbeats: killed, hung or cut off from the ledger. */
  stale: boolean;
};

/** A row is stale after this many heartbeats without a write. */
export const STALE_AFTER_BEATS = 3;

/**
 * The schedulers' rows at `nowMs`, live ones first (by host and pid), then the stale, then the stopped.
 *
 * @example
 * schedulerHealthView(rows, Date.parse('2026-11-05T01:00:00Z'))[0]?.stale // false
 */
export function schedulerHealthView(rows: readonly SchedulerHealth[], nowMs: number): SchedulerHealthView[] {
  const rank = (v: SchedulerHealthView) => (v.state === 'stopped' ? 2 : v.stale ? 1 : 0);
  return rows
    .map((row) => {
      const silentSeconds = Math.max(0, Math.round((nowMs - Date.parse(row.updatedAt)) / 1000));
      return { ...row, silentSeconds, stale: row.state !== 'stopped' && silentSeconds > STALE_AFTER_BEATS * row.beatSeconds };
    })
    .sort((a, b) => rank(a) - rank(b) || (a.host < b.host ? -1 : a.host > b.host ? 1 : a.pid - b.pid));
}
