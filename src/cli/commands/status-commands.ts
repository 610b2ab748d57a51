import type { Command } from 'commander';
import type { CheckRules } from '../../../projections/views/check-status.js';
import type { PipelineStatus } from '../../../projections/views/pipeline-status.js';
import { parseDuration } from '../../duration.js';
import { ExitCode } from '../../errors.js';
import { readStatus } from '../../ops/read-status.js';
import { runCheck } from '../../ops/run-check.js';
import type { CliContext } from '../cli-context.js';
import { RunExit } from '../create-program.js';
import { tellingLine } from '../../../projections/views/telling-line.js';
import { pausedText } from '../../../projections/pipeline-control.js';
import { poolWaitText } from '../../../projections/views/pool-wait.js';
import { formatTable, tableFit } from '../../format/format-table.js';
import { inZone } from '../../format/zoned-instant.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';
import { formatDuration } from '../../runner/format-summary.js';
import type { SchedulerHealthView } from '../../../projections/views/scheduler-health.js';

type CheckOpts = { maxLag?: string; maxPending?: string; maxBlocked?: string; failed?: boolean; stalled?: boolean; allowOverdueRetries?: boolean; includePaused?: boolean; json?: boolean };

export function registerStatusCommands(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .summary('one row per pipeline: lag, pending dates, runs in flight and stalled, last failure; worst first')
    .description(
      'One row per pipeline, worst first (failed or stalled, then the largest lag). Lag is now minus the end of ' +
        "the complete-through date's data interval: how long downstream has been waiting for data; with nothing " +
        "complete yet, it runs from the pipeline's first slot. PENDING counts the due dates not done by reason.",
    )
    .argument('[pipelines...]', 'only these pipelines (default: all)')
    .option('--json', 'print one JSON document (lag in seconds as lagSeconds)')
    .option('--wide', "don't cut LAG, PENDING and LAST FAILURE to the terminal's width (its most telling line; --json has the whole text)")
    .addHelpText('after', '\nExamples:\n  runledger status\n  runledger --now 2026-11-07T01:00:00+07:00 status etl_orders --json')
    .action(async (pipelines: string[], opts: { json?: boolean; wide?: boolean }) => {
      const view = await ctx.withLedger(false, (ledger) => readStatus(ledger, { pipelines }));
      if (opts.json) return ctx.json(view);
      if (view.pipelines.length === 0 && view.schedulers.length === 0) return ctx.out('no pipelines yet; define one with `runledger define`');
      // formatTable's text shows every cell as terminalText does (a control character as its escape): out's own test
      // of the whole text again would find nothing.
      ctx.outVerbatim(
        formatTable(
          ['PIPELINE', 'SCHEDULE', 'WATERMARK', 'COMPLETE THROUGH', 'LAG', 'PENDING', 'RUNNING', 'STALLED', 'LAST FAILURE'],
          view.pipelines.map((s) => [
            s.paused ? `${s.pipeline} (paused)` : s.pipeline,
            s.schedule,
            s.watermark ?? '-',
            s.completeThrough ?? '-',
            lagCell(s.lag, s.behind),
            pendingText(s),
            String(s.inFlight.length),
            String(s.stalled.length),
            s.lastFailure ? `${s.lastFailure.date} at ${inZone(s.lastFailure.at, s.timezone)}: ${tellingLine(s.lastFailure.error)}` : '-',
          ]),
          tableFit(ctx.deps.columns, opts.wide, [4, 5, 8]),
        ),
      );
      const notes: string[] = [];
      for (const s of view.pipelines) if (s.paused || s.firstBlocked?.blockedBy?.paused) notes.push(...pauseNotes(s));
      if (notes.length > 0) ctx.out(notes.join('\n'));
      if (view.schedulers.length > 0) ctx.out(`\n${schedulersTable(view.schedulers, Date.parse(view.now))}`);
    });

  program
    .command('check')
    .summary('exit 7 when a pipeline is too far behind, has too many pending dates, a failed date or a stalled run')
    .description(
      'For cron and CI monitors. Prints one line per rule a pipeline breaks and exits 7; prints one ok line and ' +
        'exits 0 when every rule holds. Lag is now minus the end of the complete-through date\'s data interval; ' +
        "without --max-lag each pipeline's own freshness (`define --freshness`) is its limit.",
    )
    .argument('[pipelines...]', 'only these pipelines (default: all)')
    .option('--max-lag <duration>', "largest lag allowed, e.g. 1d or 36h (default: each pipeline's --freshness)")
    .option('--max-pending <n>', 'most pending dates allowed (missing, failed, cleared and stalled together)')
    .option('--max-blocked <n>', 'most due dates allowed that wait for upstream dates not done (define --upstream)')
    .option('--no-failed', 'no date may be failed')
    .option('--no-stalled', 'no run may be stalled (running with its lease expired)')
    .option('--allow-overdue-retries', "leave out the rule that holds by default beside the others: no date may wait for a retry past its time plus the pipeline's lease (nobody is running it)")
    .option('--include-paused', "hold paused pipelines' lag, pending and blocked dates to the rules too (by default a pause leaves them alone; failed and stalled still count)")
    .option('--json', 'print one JSON document: { ok, checked, violations }')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger check --max-lag 1d\n  runledger check etl_orders --max-pending 0 --no-failed --no-stalled\n' +
        '  runledger define etl_orders --freshness 1d12h && runledger check || alert "runledger: late data"',
    )
    .action(async (pipelines: string[], opts: CheckOpts) => {
      const rules: CheckRules = {
        ...(opts.maxLag === undefined ? {} : { maxLagSeconds: parseDuration(opts.maxLag, '--max-lag') / 1000 }),
        ...(opts.maxPending === undefined ? {} : { maxPending: parseWholeNumber(opts.maxPending, '--max-pending', 0) }),
        ...(opts.maxBlocked === undefined ? {} : { maxBlocked: parseWholeNumber(opts.maxBlocked, '--max-blocked', 0) }),
        ...(opts.failed === false ? { noFailed: true } : {}),
        ...(opts.stalled === false ? { noStalled: true } : {}),
        ...(opts.allowOverdueRetries ? { allowOverdueRetries: true } : {}),
        ...(opts.includePaused ? { includePaused: true } : {}),
      };
      const report = await ctx.withLedger(false, (ledger) => runCheck(ledger, rules, { pipelines }));
      const { checked, violations } = report;
      if (opts.json) ctx.json(report);
      else if (violations.length === 0) ctx.out(`ok: ${checked.length} pipeline${checked.length === 1 ? '' : 's'} within every rule (${checked.join(', ')})`);
      else ctx.out(violations.map((v) => v.message).join('\n'));
      if (violations.length > 0) throw new RunExit(ExitCode.checkFailed);
    });
}

/**
 * The LAG cell: the lag, and how many dates behind. The last cell made is answered again for the same lag and count:
 * the rows of 1,000 pipelines of one timetable, as far behind, each made the same text anew.
 */
function lagCell(lag: string, behind: number): string {
  if (lag === lastLag.lag && behind === lastLag.behind) return lastLag.cell;
  const cell = behind > 0 ? `${lag} (${behind} date${behind === 1 ? '' : 's'} behind)` : lag;
  lastLag = { lag, behind, cell };
  return cell;
}

let lastLag = { lag: '', behind: Number.NaN, cell: '' };

/** The lines under the table for a paused pipeline, and for one whose first blocked date waits for a paused upstream. */
function pauseNotes(s: PipelineStatus): string[] {
  const notes: string[] = [];
  if (s.paused) notes.push(`${s.pipeline}: ${pausedText(s.paused)}`);
  const by = s.firstBlocked?.blockedBy;
  if (by?.paused) notes.push(`${s.pipeline}: ${s.blocked} date${s.blocked === 1 ? '' : 's'} wait${s.blocked === 1 ? 's' : ''} for ${by.pipeline}, ${pausedText(by.paused)}`);
  return notes;
}

/**
 * The PENDING cell: the total, then the reasons in this order (missing, failed, cleared, stalled, upstream, then the
 * retries), then the pool. Each reason written out rather than looked up by name: a row each of 1,000 pipelines.
 */
function pendingText(s: PipelineStatus): string {
  const p = s.pending;
  if (p.total === 0) return '0';
  let parts = '';
  if (p.missing > 0) parts += `, ${p.missing} missing`;
  if (p.failed > 0) parts += `, ${p.failed} failed`;
  if (p.cleared > 0) parts += `, ${p.cleared} cleared`;
  if (p.stalled > 0) parts += `, ${p.stalled} stalled`;
  if (p.upstream > 0) parts += `, ${p.upstream} upstream`;
  const overdue = s.overdueRetries?.length ?? 0;
  const waiting = p.up_for_retry - overdue;
  if (waiting > 0) parts += `, ${waiting} up for retry`;
  if (overdue > 0) parts += `, ${overdue} retry overdue`;
  const pool = s.poolWait ? `; waiting for a place in ${poolWaitText(s.poolWait)}` : '';
  return `${p.total} (${parts.slice(2)})${pool}`;
}

/** The schedulers' health under the pipelines: state, last pass, next wake and runs in flight of each. */
function schedulersTable(schedulers: readonly SchedulerHealthView[], nowMs: number): string {
  const ago = (iso: string | null) => (iso === null ? '-' : `${formatDuration(Math.max(0, nowMs - Date.parse(iso)))} ago`);
  return formatTable(
    ['SCHEDULER', 'STATE', 'LAST PASS', 'NEXT WAKE', 'IN FLIGHT'],
    schedulers.map((s) => [
      `${s.host} pid ${s.pid}`,
      s.stale ? `stale: silent for ${formatDuration(s.silentSeconds * 1000)}` : s.state === 'stopped' ? `stopped ${ago(s.updatedAt)}` : s.state,
      ago(s.lastPassAt),
      s.nextWake === null || s.state === 'stopped' ? '-' : `${s.nextWake.at} (${s.nextWake.why} ${s.nextWake.pipeline} ${s.nextWake.date})`,
      s.state === 'stopped' ? '-' : `${s.inFlight.length} of ${s.parallel}`,
    ]),
  );
}
