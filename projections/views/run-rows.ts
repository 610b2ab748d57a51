import type { RunRecord } from '../run-history.js';

/** `shownStatus`: the run's status as every view shows it (a running run whose lease expired is `stalled`). */
export type RunRow = RunRecord & { durationMs: number | null; shownStatus: RunRecord['status'] | 'stalled' };

/**
 * A run's status as the calendar, pending and the runs table all say it: a
 * running run whose lease ran out at `nowMs` is `stalled`, as its date is.
 *
 * @example
 * shownRunStatus({ status: 'running', leaseExpiresAt: '2026-11-05T00:00:00Z' }, Date.parse('2026-11-05T01:00:00Z')) // 'stalled'
 */
export function shownRunStatus(run: Pick<RunRecord, 'status' | 'leaseExpiresAt'>, nowMs: number): RunRecord['status'] | 'stalled' {
  return run.status === 'running' && Date.parse(run.leaseExpiresAt) <= nowMs ? 'stalled' : run.status;
}

/**
 * The runs table of a pipeline page: newest first, at most `limit`, each with
 * its duration (null while it runs) and its status as of `nowMs`.
 *
 * @example
 * runRows(history.runs.values(), 100, now)[0]?.durationMs
 */
export function runRows(runs: Iterable<RunRecord>, limit: number, nowMs: number): { rows: RunRow[]; total: number } {
  const all = [...runs];
  const rows = all
    .slice(-limit)
    .reverse()
    .map((r) => ({ ...r, durationMs: r.finishedAt === null ? null : Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt)), shownStatus: shownRunStatus(r, nowMs) }));
  return { rows, total: all.length };
}

/**
 * A duration as people read it: `850 ms`, `12 s`, `4 min 05 s`, `3 h 20 min`, `2 d 4 h`.
 *
 * @example
 * formatDuration(245_000) // '4 min 05 s'
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
