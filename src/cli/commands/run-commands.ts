import { Option, type Command } from 'commander';
import { parseDuration } from '../../duration.js';
import { LedgerError } from '../../errors.js';
import type { StartInput } from '../../ledger/ledger-types.js';
import type { CliContext } from '../cli-context.js';
import { pausedNote } from '../../../projections/decide-control.js';
import { parseMetrics } from '../parse-options.js';
import { inZone, pipelineZones } from '../../format/zoned-instant.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerRunCommands(program: Command, ctx: CliContext): void {
  program
    .command('start')
    .summary('start a run of one date (prints its run id)')
    .description(
      'Start a run of one date key. Prints the run id on stdout (details on stderr), so scripts can do:\n\n' +
        '  RUN=$(runledger start etl_orders 2026-11-02) && … && runledger succeed "$RUN"\n\n' +
        'Refused (exit 3) when the date is running, already succeeded (use --force), not due yet, or in the future.',
    )
    .argument('<pipeline>', 'pipeline name')
    .argument('<date>', 'date key (2026-11-02) or an instant that is exactly a slot')
    .addOption(new Option('--type <type>', 'run type').choices(['scheduled', 'manual', 'backfill', 'catchup']).default('scheduled'))
    .option('--force', 'reprocess a date that already succeeded (recorded in the event)')
    .option('--lease <duration>', "how long the run may go without a heartbeat (default: the pipeline's lease)")
    .option('--interval-start <instant>', 'explicit data interval start (manual runs)')
    .option('--interval-end <instant>', 'explicit data interval end (manual runs)')
    .option('--reason <text>', 'why, recorded in the event')
    .option('--at <instant>', 'when the run really started, if not now (RFC 3339 with a zone): for a run recorded after the fact; its duration counts from it')
    .option('--json', 'print the run as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  RUN=$(runledger start etl_orders 2026-11-02) && runledger succeed "$RUN"\n\n' +
        '  runledger start etl_orders 2026-11-02 --force --reason "upstream resent the file"\n' +
        '  runledger start etl_orders 2026-11-03T12:00:00+07:00 --type manual',
    )
    .action(async (pipeline: string, date: string, opts: { type: StartInput['runType']; force?: boolean; lease?: string; intervalStart?: string; intervalEnd?: string; reason?: string; at?: string; json?: boolean }) => {
      const input: StartInput = { pipeline, date, force: opts.force ?? false, ...(opts.type ? { runType: opts.type } : {}) };
      if (opts.lease !== undefined) input.lease = parseDuration(opts.lease, '--lease');
      if (opts.reason !== undefined) input.reason = opts.reason;
      if (opts.at !== undefined) input.at = opts.at;
      if ((opts.intervalStart === undefined) !== (opts.intervalEnd === undefined)) {
        throw new LedgerError('input.incompleteInterval', 'give both --interval-start and --interval-end, or neither');
      }
      if (opts.intervalStart !== undefined && opts.intervalEnd !== undefined) input.dataInterval = { start: opts.intervalStart, end: opts.intervalEnd };
      const run = await ctx.withLedger(false, (ledger) => ledger.start(input));
      if (run.paused) ctx.note(pausedNote(pipeline, run.paused));
      if (opts.json) return ctx.json(run);
      ctx.out(run.runId);
      const extra = [run.forced ? 'forced reprocess' : '', run.offSchedule ? 'off-schedule' : '', run.takeoverOf ? `took over ${run.takeoverOf}` : ''].filter(Boolean).join(', ');
      ctx.note(`started ${pipeline} ${run.date} attempt ${run.attempt} (${run.runType}${extra ? `, ${extra}` : ''}); data interval ${run.dataInterval.start} .. ${run.dataInterval.end}`);
      // A date key names a wall time of the pipeline's zone; a date-time without an offset is read there too: say so.
      if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(date)) ctx.note(`runledger: ${date} has no zone offset, so it was read in ${pipeline}'s time zone: ${run.logicalDate}`);
    });

  program
    .command('succeed')
    .summary('record the success of a run')
    .argument('<runId>', 'the id `start` printed')
    .option('--metrics <json|@file>', 'a JSON object of metrics (rows, rejected, revenue, …), inline or @path')
    .option('--output <path>', 'an output the run wrote (repeatable)', collect, [] as string[])
    .option('--at <instant>', 'when the run really ended, if not now (RFC 3339 with a zone); its duration ends there')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  runledger succeed "$RUN" --metrics \'{"rows": 42, "rejected": 2}\' --output gold/orders-2026-11-02.csv\n  runledger succeed "$RUN" --metrics @metrics.json')
    .action(async (runId: string, opts: { metrics?: string; output: string[]; at?: string; json?: boolean }) => {
      const metrics = parseMetrics(opts.metrics);
      const result = await ctx.withLedger(false, (ledger) => ledger.succeed({ runId, metrics, outputs: opts.output, ...(opts.at === undefined ? {} : { at: opts.at }) }));
      if (opts.json) return ctx.json(result);
      ctx.out(result.repeated ? `${result.pipeline} ${result.date}: success of run ${runId} was already recorded` : `${result.pipeline} ${result.date}: success recorded`);
    });

  program
    .command('fail')
    .summary('record the failure of a run')
    .argument('<runId>', 'the id `start` printed')
    .requiredOption('--error <message>', 'what went wrong')
    .option('--code <code>', 'an error code of your own')
    .option('--at <instant>', 'when the run really failed, if not now (RFC 3339 with a zone); its duration ends there')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  runledger fail "$RUN" --error "raw file missing" --code noInput')
    .action(async (runId: string, opts: { error: string; code?: string; at?: string; json?: boolean }) => {
      const result = await ctx.withLedger(false, (ledger) => ledger.fail({ runId, error: opts.error, code: opts.code ?? null, ...(opts.at === undefined ? {} : { at: opts.at }) }));
      if (opts.json) return ctx.json(result);
      ctx.out(result.repeated ? `${result.pipeline} ${result.date}: failure of run ${runId} was already recorded` : `${result.pipeline} ${result.date}: failure recorded`);
    });

  program
    .command('heartbeat')
    .summary("extend a running run's lease")
    .argument('<runId>', 'the id `start` printed')
    .option('--lease <duration>', "new lease from now (default: the pipeline's lease)")
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  runledger heartbeat "$RUN" --lease 30m')
    .action(async (runId: string, opts: { lease?: string; json?: boolean }) => {
      const leaseMs = opts.lease === undefined ? undefined : parseDuration(opts.lease, '--lease');
      const [result, zones] = await ctx.withLedger(false, async (ledger) => {
        const done = await ledger.heartbeat({ runId, ...(leaseMs === undefined ? {} : { lease: leaseMs }) });
        return [done, await pipelineZones(ledger, [done.pipeline])] as const;
      });
      if (opts.json) return ctx.json(result);
      ctx.out(`${result.pipeline} ${result.date}: lease extended to ${result.leaseExpiresAt ? inZone(result.leaseExpiresAt, zones.get(result.pipeline) ?? 'UTC') : result.leaseExpiresAt}`);
    });
}
