import { cellStatus, type CellStatus } from '../../projections/views/calendar.js';
import { runRows } from '../../projections/views/run-rows.js';
import { isLedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { AsOf } from '../ledger/ledger-types.js';
import { openVerifiedRunLog, recordedRunLog } from '../ops/read-run-log.js';
import { pageTime } from './load-pages.js';
import type { DatePage } from './page-models.js';

/** The most of a run's output log a date page shows: its end. */
const LOG_TAIL_BYTES = 32 * 1024;

/**
 * A date page, where every calendar cell leads: the date's state, every
 * attempt, and of its latest run the task grid, its events and the end of
 * its output log (checked against the sha256 its outcome recorded).
 *
 * @example
 * const page = await loadDatePage(ledger, 'etl_orders', '2026-11-03', undefined);
 */
export async function loadDatePage(ledger: Ledger, pipeline: string, date: string, asOf: AsOf | undefined): Promise<DatePage> {
  const time = await pageTime(ledger, asOf);
  const at = time.asOf ? { asOf: time.asOf } : {};
  const { definition } = await ledger.pipeline(pipeline, time.asOf ?? undefined);
  const state = await ledger.state({ pipeline, from: date, to: date, ...at });
  const row = state.dates.find((d) => d.date === date) ?? state.dates[0] ?? null;
  const key = row?.date ?? date;
  const { runs } = await ledger.runs({ pipeline, date: key, ...at });
  const rows = runRows(runs, 1000, time.nowMs).rows;
  const latest = rows[0];
  const grid = latest ? await ledger.runTasks({ pipeline, runId: latest.runId, ...at }) : null;
  const events = latest ? (await ledger.log({ runId: latest.runId, ...at })).events : [];
  const status: CellStatus = row ? cellStatus(row) : 'missing';
  return {
    kind: 'date',
    time,
    definition,
    date: key,
    status,
    row,
    runs: rows,
    grid,
    events,
    log: latest && latest.finishedAt !== null ? await logTail(ledger, pipeline, latest.runId, time.asOf ?? undefined) : null,
    watermark: state.watermark,
    completeThrough: state.completeThrough,
  };
}

async function logTail(ledger: Ledger, pipeline: string, runId: string, asOf: AsOf | undefined): Promise<DatePage['log']> {
  try {
    const log = await recordedRunLog(ledger, { pipeline, runId, ...(asOf ? { asOf } : {}) });
    let text = '';
    for await (const chunk of await openVerifiedRunLog(log, runId)) {
      text += String(chunk);
      if (text.length > 2 * LOG_TAIL_BYTES) text = text.slice(-LOG_TAIL_BYTES);
    }
    const cut = text.length > LOG_TAIL_BYTES;
    return { path: log.path, text: cut ? text.slice(-LOG_TAIL_BYTES) : text, cut, problem: null };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { path: null, text: '', cut: false, problem: error.message };
  }
}
