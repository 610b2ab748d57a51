import { clearedBecause, waitsForText } from '../../projections/views/cleared-because.js';
import type { StateView } from '../ledger/ledger-types.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { cut } from '../format/format-table.js';
import { inZone } from '../format/zoned-instant.js';

type DateRow = StateView['dates'][number];

/**
 * The DETAIL cell of `state`: a short summary, not the whole metrics object. A failure shows its error; a success
 * its numeric and boolean metrics (paths, nulls, nested values and the like stay in `--json` and
 * `runs --run <id>`). Cut with "…" to `width` characters, so a row fits the terminal.
 *
 * @example
 * stateDetail({ ...row, metrics: { rows: 7, output: '/tmp/gold.csv', rejectsOutput: null } }, 40) // 'rows=7'
 */
export function stateDetail(d: DateRow, width: number, zone = 'UTC'): string {
  // A multi-line error (a stack, a command's stderr tail) shows its most telling line; `runs --run` and --json have it whole.
  const parts = [d.offSchedule ? 'off-schedule' : '', markOrRetry(d, zone), d.error ? tellingLine(d.error) : '', d.error ? '' : shortMetrics(d.metrics)].filter(Boolean);
  // Why a date waits comes first, each reason apart, so a cut cell still says the most useful part.
  const why = [d.clearCause ? clearedBecause(d.clearCause) : '', d.blockedBy ? waitsForText(d.blockedBy) : '', parts.join(' ')].filter(Boolean);
  return cut(why.join('; '), width);
}

/** `marked skipped by alice: holiday`, or `attempt 2 of 4, next at …` while a retry waits (`attempt 3 of 4` once it runs). */
function markOrRetry(d: DateRow, zone: string): string {
  if (d.mark && (d.status === 'success' || d.status === 'skipped')) return `marked ${d.mark.status} by ${d.mark.actor}${d.mark.reason ? `: ${d.mark.reason}` : ''}`;
  if (!d.retry || d.status === 'cleared') return '';
  return `attempt ${d.retry.attempt} of ${d.retry.of}${d.status === 'up_for_retry' && d.retry.nextAt ? `, next at ${inZone(d.retry.nextAt, zone)}` : ''}${d.error ? ':' : ''}`;
}

function shortMetrics(metrics: Record<string, unknown> | null): string {
  if (!metrics) return '';
  return Object.entries(metrics)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

