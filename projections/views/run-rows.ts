import type { RunRecord } from '../run-history.js';

export type RunRow = RunRecord & { durationMs: number | null };

/**
 * The runs table of a pipeline page: newest first, at most `limit`, each with
 * its duration (null while it runs).
 *
 * @example
 * runRows(history.runs.values(), 100)[0]?.durationMs
 */
export function runRows(runs: Iterable<RunRecord>, limit: number): { rows: RunRow[]; total: number } {
  const all = [...runs];
  const rows = all
    .slice(-limit)
    .reverse()
    .map((r) => ({ ...r, durationMs: r.finishedAt === null ? null : Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt)) }));
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
