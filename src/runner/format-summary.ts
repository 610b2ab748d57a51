import type { RunPlan } from '../../projections/plan-runs.js';
import type { BlockedBy } from '../../projections/upstream-slots.js';
import { waitsForText } from '../../projections/views/cleared-because.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { cut, formatTable } from '../format/format-table.js';
import type { PlannedJob } from './plan-job.js';
import { STORE_NOTE, type RunReport, type RunSummary } from './run-types.js';

/** `0.12s`, `12.3s`, `4m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)}s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * The `--json` summary of a backfill or catchup: `{ pipeline, runs: [{ date, runId, attempt,
 * status, exitCode, durationMs }], succeeded, failed, skipped }`, plus why each
 * slot ran or was skipped and what failed.
 *
 * @example
 * ctx.json(summaryJson(summary))
 */
export function summaryJson(summary: RunSummary) {
  return {
    pipeline: summary.pipeline,
    runType: summary.runType,
    ...(summary.range ? { from: summary.range.from, to: summary.range.to } : {}),
    runs: summary.runs.map((r) => ({
      date: r.date,
      runId: r.runId,
      attempt: r.attempt,
      status: r.status,
      exitCode: r.exitCode,
      durationMs: r.durationMs,
      reason: r.reason,
      signal: r.signal,
      error: r.error,
      code: r.code,
      skipReason: r.skipReason,
      note: r.note,
      ...(r.retry ? { retry: r.retry } : {}),
    })),
    succeeded: summary.succeeded,
    failed: summary.failed,
    unrecorded: summary.unrecorded,
    skipped: summary.skipped,
    interruptedRuns: summary.interruptedRuns,
    interrupted: summary.interrupted,
    stoppedAfterFailure: summary.stoppedAfterFailure,
    retried: summary.retried,
    waitingForPrevious: summary.waitingForPrevious,
    durationMs: summary.durationMs,
    ...(summary.blocked ? { blocked: summary.blocked } : {}),
  };
}

/**
 * The one line about dates a plan left alone because they wait for upstream slots that are not done
 * (or, `waiting`, that the runner waits for), or '' when there are none.
 *
 * @example
 * blockedLine('sales_report', job.blocked, false)
 * // 'left alone 1 date of sales_report that waits for upstream dates not done: 2026-11-03 waits for orders_raw 2026-11-03T05:00:00+07:00 (failed); add --wait-upstream to wait for them'
 */
export function blockedLine(pipeline: string, blocked: ReadonlyArray<{ date: string; blockedBy: BlockedBy }> | undefined, waiting: boolean): string {
  if (!blocked || blocked.length === 0) return '';
  const first = blocked[0] as { date: string; blockedBy: BlockedBy };
  const more = blocked.length > 1 ? `, and ${blocked.length - 1} more` : '';
  const what = `${count(blocked.length, 'date')} of ${pipeline} that ${blocked.length === 1 ? 'waits' : 'wait'} for upstream dates not done: ${first.date} ${waitsForText(first.blockedBy)}${more}`;
  return waiting ? `waiting (--wait-upstream) before each start for ${what}` : `left alone ${what}; add --wait-upstream to wait for them`;
}

/** A slot the runner never started because it stopped (after a failure, or interrupted): collapsed in readable output. */
export function isQuietSkip(r: RunReport): boolean {
  return r.status === 'skipped' && (r.skipReason === 'stopped' || r.skipReason === 'interrupted' || (r.skipReason === 'waitingForPrevious' && (r.note ?? '').startsWith('not started: depends on past, and')));
}

/**
 * One line for a run of slots the runner never started, instead of one per
 * slot: `163 slots not started after the failure of 2026-11-21T10:00:00+00:00
 * (2026-11-21T11:00:00+00:00 .. 2026-11-28T10:00:00+00:00); rerun to continue`.
 */
export function quietSkipLine(skipped: RunReport[], failedDate: string | null): string {
  const first = skipped[0]?.date ?? '';
  const last = skipped.at(-1)?.date ?? first;
  const span = skipped.length === 1 ? first : `${first} .. ${last}`;
  const n = `${skipped.length} ${skipped.length === 1 ? 'slot' : 'slots'} not started`;
  if (skipped[0]?.skipReason === 'interrupted') return `${n} (${span}): the runner was stopped; run the same command again to resume`;
  if (skipped[0]?.skipReason === 'waitingForPrevious') return `${n} (${span}): ${(skipped[0].note ?? '').slice('not started: '.length)}`;
  // A store error stopped the runner, not a failed run: say so, and not to carry on past failures.
  const note = skipped[0]?.note ?? '';
  if (note.startsWith(STORE_NOTE)) return `${n} (${span}): ${note.slice('not started: '.length)}; fix the store, then rerun the same command`;
  return `${n} after the failure of ${failedDate ?? 'an earlier run'} (${span}); rerun to continue, or add --continue-on-failure`;
}

/** Splits runs into table rows and collapsed runs of two or more never-started slots, in order. */
function collapseQuietSkips(runs: RunReport[]): Array<RunReport | RunReport[]> {
  const out: Array<RunReport | RunReport[]> = [];
  for (const r of runs) {
    const last = out.at(-1);
    if (!isQuietSkip(r)) out.push(r);
    else if (Array.isArray(last) && last[0]?.skipReason === r.skipReason && last[0].note === r.note) last.push(r);
    else out.push([r]);
  }
  // A lone never-started slot reads best as its own row.
  return out.map((part) => (Array.isArray(part) && part.length === 1 && part[0] ? part[0] : part));
}

/** The table printed at the end of a backfill or catchup (never-started slots collapsed into one line per run of them), and a totals line. */
export function formatSummary(summary: RunSummary): string {
  const parts = collapseQuietSkips(summary.runs);
  const rows = parts.filter((p): p is RunReport => !Array.isArray(p));
  const failedDate = summary.runs.find((r) => r.status === 'failed')?.date ?? null;
  const quiet = parts.filter((p): p is RunReport[] => Array.isArray(p)).map((group) => `${quietSkipLine(group, failedDate)}\n`).join('');
  const table = formatTable(
    ['DATE', 'REASON', 'STATUS', 'ATTEMPT', 'EXIT', 'DURATION', 'RUN', 'DETAIL'],
    rows.map((r) => [
      r.date,
      r.reason ?? '-',
      r.status,
      r.retry ? `${r.retry.attempt}/${r.retry.of}` : r.attempt === null ? '-' : String(r.attempt),
      r.exitCode !== null ? String(r.exitCode) : r.signal ?? '-',
      r.status === 'skipped' ? '-' : formatDuration(r.durationMs),
      r.runId ?? '-',
      oneLine(r.status === 'skipped' ? (r.note ?? '') : (r.error ?? '')),
    ]),
  );
  const lost = summary.unrecorded > 0 ? `, ${summary.unrecorded} unrecorded` : '';
  const stopped = summary.interruptedRuns > 0 ? `, ${summary.interruptedRuns} interrupted` : '';
  const over = summary.range ? `${summary.runType} ${summary.pipeline} from ${summary.range.from} to ${summary.range.to}: ` : '';
  const retried = summary.retried > 0 ? `, ${summary.retried} ${summary.retried === 1 ? 'retry' : 'retries'}` : '';
  const totals = `${over}${summary.succeeded} succeeded, ${summary.failed} failed${lost}${stopped}, ${summary.skipped} skipped${retried} in ${formatDuration(summary.durationMs)}`;
  return `${rows.length > 0 ? table : ''}${quiet}${totals}\n`;
}

/** The `--dry-run --json` document: `{ pipeline, slots: [{ date, reason, logicalDate, runAfter, dataInterval }] }` and what was left out. */
export function dryRunJson(job: PlannedJob) {
  const { plan } = job;
  return {
    pipeline: job.pipeline,
    runType: job.runType,
    reprocess: job.reprocess,
    from: job.from,
    to: job.to,
    slots: plan.slots.map((s) => ({ date: s.date, reason: s.reason, logicalDate: s.logicalDate, runAfter: s.runAfter, dataInterval: s.dataInterval })),
    inFlight: plan.inFlight,
    excluded: plan.excluded,
    notDueFrom: plan.notDueFrom?.date ?? null,
    ...(job.catchup ? { catchup: job.catchup } : {}),
    ...(job.blocked ? { blocked: job.blocked } : {}),
  };
}

/** The readable dry run: what would run and why, and what is left alone. */
export function formatDryRun(job: PlannedJob): string {
  const { plan } = job;
  const head = plan.slots.length === 0 ? `${nothingToDo(job)}\n` : `${job.runType} ${job.pipeline} would run ${count(plan.slots.length, 'date')}${job.from !== null ? ` from ${job.from} to ${job.to}` : ''}:\n`;
  const table =
    plan.slots.length === 0
      ? ''
      : formatTable(['DATE', 'REASON', 'RUN AFTER', 'DATA INTERVAL'], plan.slots.map((s) => [s.date, s.reason, s.runAfter, `${s.dataInterval.start} .. ${s.dataInterval.end}`]));
  const older = olderPendingNote(job);
  return head + table + leftAlone(plan) + (older === '' ? '' : `${older}\n`);
}

/**
 * The pending dates a plain catchup leaves alone (before its window, or failed ones its mode skips), and the
 * command that runs them; '' when there are none.
 *
 * @example
 * olderPendingNote(job) // 'still pending before this catchup: 2026-11-25; `runledger catchup etl_orders --all-pending` runs them too'
 */
export function olderPendingNote(job: PlannedJob): string {
  const older = job.catchup?.olderPending ?? [];
  if (older.length === 0) return '';
  return `still pending and left alone by this catchup: ${list(older)}; \`runledger catchup ${job.pipeline} --all-pending\` runs ${older.length === 1 ? 'it' : 'them'} too`;
}

/** Why a plan is empty, with the option that would change it. */
export function nothingToDo(job: PlannedJob): string {
  const pastEnd = job.catchup?.pastEnd;
  if (pastEnd) {
    return `nothing to catchup for ${job.pipeline}: its catchup is off, so only the latest complete interval before now would run (${pastEnd.latest}), and that lies past the pipeline's end (${pastEnd.end}); use backfill for dates up to the end`;
  }
  const where =
    job.from !== null ? ` from ${job.from} to ${job.to}` : job.catchup?.allPending ? ' since its start' : job.catchup?.after ? ` after the latest scheduled or catchup run (${job.catchup.after})` : '';
  const { plan } = job;
  const succeeded = plan.excluded.filter((e) => e.status === 'success').length;
  const failed = plan.excluded.filter((e) => e.status === 'failed').length;
  const hints = [
    failed > 0 ? `--reprocess failed reruns the ${count(failed, 'failed date')}` : '',
    succeeded > 0 ? `--reprocess completed reruns the ${count(succeeded, 'successful date')}` : '',
  ].filter(Boolean);
  return `nothing to ${job.runType} for ${job.pipeline}${where}${hints.length > 0 ? `; ${hints.join(', ')}` : ''}`;
}

/** Lines about in-flight, left-alone and not-due slots, or '' when there are none. */
export function leftAlone(plan: RunPlan): string {
  const out: string[] = [];
  if (plan.inFlight.length > 0) out.push(`in flight (left alone): ${plan.inFlight.map((r) => `${r.date} (run ${r.runId})`).join(', ')}`);
  const byStatus = (status: 'success' | 'failed') => plan.excluded.filter((e) => e.status === status).map((e) => e.date);
  const done = byStatus('success');
  const failed = byStatus('failed');
  if (done.length > 0) out.push(`already succeeded (left alone): ${list(done)}`);
  if (failed.length > 0) out.push(`failed (left alone without --reprocess failed): ${list(failed)}`);
  if (plan.notDueFrom) out.push(`not due yet from ${plan.notDueFrom.date} (due ${plan.notDueFrom.runAfter})`);
  return out.map((line) => `${line}\n`).join('');
}

function list(dates: string[]): string {
  return dates.length <= 6 ? dates.join(', ') : `${dates.slice(0, 3).join(', ')}, … ${dates.at(-1)} (${dates.length})`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** A DETAIL cell: the most telling line of a multi-line error, cut to 120 characters (the whole text is in --json). */
function oneLine(text: string): string {
  return cut(tellingLine(text), 120);
}
