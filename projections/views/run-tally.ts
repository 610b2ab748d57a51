import type { RunRecord } from '../run-history.js';
import { runOutcome, type RunOutcome } from './run-outcome.js';

/** Bounds of the run duration histogram, in seconds: a second up to a day. */
export const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 43_200, 86_400] as const;

/**
 * The finished runs of one outcome: how many, and of those with a duration (every outcome but
 * `cleared`) how many, their durations summed in ms, and how many took at most each bound of
 * `DURATION_BUCKETS` (cumulative, as Prometheus counts them). Integers only, so adding and taking away
 * a run leaves exactly what a count from scratch gives.
 */
export type OutcomeTally = { runs: number; timed: number; ms: number; le: number[] };

/** A pipeline's finished runs by outcome: what the metrics' run counter and duration histogram show. */
export type RunTally = Partial<Record<RunOutcome, OutcomeTally>>;

/**
 * Adds a run to `tally` (`sign` 1) or takes it away (`sign` -1), by how it ended; a run still running
 * counts nowhere. Mutates `tally`.
 *
 * @example
 * tallyRun(tally, before, -1);
 * tallyRun(tally, after, 1);
 */
export function tallyRun(tally: RunTally, run: RunRecord, sign: 1 | -1): void {
  const outcome = runOutcome(run);
  if (outcome === null) return;
  const entry = (tally[outcome] ??= { runs: 0, timed: 0, ms: 0, le: DURATION_BUCKETS.map(() => 0) });
  entry.runs += sign;
  if (run.finishedAt !== null && outcome !== 'cleared') {
    const ms = Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt));
    entry.timed += sign;
    entry.ms += sign * ms;
    // A plain loop from the first bound the duration fits (a closure per run showed in a rebuild's time).
    const le = entry.le;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) if (ms <= (DURATION_BUCKETS[i] as number) * 1000) le[i] = (le[i] as number) + sign;
  }
  if (entry.runs === 0 && entry.timed === 0) delete tally[outcome];
}

/**
 * A copy of `tally` the caller may change (`tallyRun`) without touching the original: a fold copies the tally
 * it starts from on every append, and `structuredClone` of these few integers cost more than the fold around it.
 *
 * @example
 * const runTally = copyTally(before.runTally);
 */
export function copyTally(tally: RunTally): RunTally {
  const copy: RunTally = {};
  for (const outcome of Object.keys(tally) as RunOutcome[]) {
    const entry = tally[outcome] as OutcomeTally;
    copy[outcome] = { runs: entry.runs, timed: entry.timed, ms: entry.ms, le: entry.le.slice() };
  }
  return copy;
}

/**
 * A tally with its outcomes in name order: one shape (and one JSON text) for equal tallies, however
 * they were reached.
 *
 * @example
 * JSON.stringify(sortedTally(tally)) // '{"failed":{…},"success":{…}}'
 */
export function sortedTally(tally: RunTally): RunTally {
  return Object.fromEntries(Object.entries(tally).sort(([a], [b]) => (a < b ? -1 : 1))) as RunTally;
}
