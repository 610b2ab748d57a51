import type Database from 'better-sqlite3';
import { decodeStoredRow } from '../decode-stored-row.js';
import { finishAll, noRows, rowFolder, type FoldedRows } from '../read-model-fold.js';
import { pipelineRow, type DateRow, type PipelineRow, type RunRow } from '../read-model-rows.js';

export const DATE_COLUMNS = [
  'pipeline', 'date', 'status', 'run_id', 'attempt', 'attempts', 'run_type', 'logical_ms', 'logical_date', 'interval_start', 'interval_end', 'run_after',
  'started_at', 'finished_at', 'lease_expires_at', 'error_excerpt', 'error_code', 'error_position', 'result_position', 'off_schedule', 'forced',
  'cleared_at', 'start_position', 'version', 'extra',
] as const satisfies ReadonlyArray<keyof DateRow>;
export const RUN_COLUMNS = [
  'run_id', 'pipeline', 'seq', 'date', 'attempt', 'run_type', 'status', 'logical_date', 'interval_start', 'interval_end', 'started_at', 'finished_at',
  'lease_expires_at', 'actor', 'forced', 'off_schedule', 'error_excerpt', 'error_position', 'result_position', 'extra',
] as const satisfies ReadonlyArray<keyof RunRow>;
export const PIPELINE_COLUMNS = [
  'pipeline', 'definition', 'schedule', 'timezone', 'defined_at', 'version', 'watermark_date', 'watermark_logical', 'complete_through', 'counts',
  'last_success', 'last_failure', 'slot_counts', 'misaligned', 'through_slots', 'run_tally', 'position',
] as const satisfies ReadonlyArray<keyof PipelineRow>;

/** One pipeline's events up to a position, 1,000 at a time (the two hashes left unread: the fold never reads a chain link, verify does). */
export const PIPELINE_EVENTS_SQL = 'SELECT position, payload FROM events WHERE pipeline = ? AND position >= ? AND position <= ? ORDER BY position LIMIT 1000';

/**
 * Every row of one pipeline from a full fold of its events up to `head` (`select`: PIPELINE_EVENTS_SQL in raw
 * mode), its events read a batch at a time so only the pipeline's state is held; `folded` is told each batch's size.
 *
 * @example
 * const rows = foldPipeline(db.prepare(PIPELINE_EVENTS_SQL).raw(true), 'etl_orders', head);
 */
export function foldPipeline(select: Database.Statement, pipeline: string, head: number, folded?: (events: number) => void): FoldedRows {
  const folder = rowFolder(pipeline, noRows());
  let from = 1;
  for (;;) {
    const rows = select.all(pipeline, from, head) as Array<[position: number, payload: string]>;
    if (rows.length === 0) break;
    folder.add(rows.map((r) => decodeStoredRow({ position: r[0], payload: r[1], prevHash: '', hash: '' })));
    from = (rows.at(-1) as [number, string])[0] + 1;
    folded?.(rows.length);
  }
  return finishAll(folder);
}

/** A pipeline's rows as flat arrays of values in the tables' column order: what a rebuild worker posts, cheap to copy between threads. */
export type PipelineValues = { events: number; dates: unknown[]; dateCount: number; runs: unknown[]; runCount: number; summary: unknown[] };

/**
 * A pipeline's folded rows as `PipelineValues`.
 *
 * @example
 * port.postMessage(pipelineValues(foldPipeline(select, 'etl_orders', head), events));
 */
export function pipelineValues(folded: FoldedRows, events: number): PipelineValues {
  const dates: unknown[] = [];
  for (const row of folded.dates) for (const column of DATE_COLUMNS) dates.push(row[column]);
  const runs: unknown[] = [];
  for (const row of folded.runs) for (const column of RUN_COLUMNS) runs.push(row[column]);
  const summary = pipelineRow(folded.summary);
  return { events, dates, dateCount: folded.dates.length, runs, runCount: folded.runs.length, summary: PIPELINE_COLUMNS.map((c) => summary[c]) };
}
