import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { parseAsOf } from '../cli-context.js';
import { formatMetrics, formatTable } from '../format-table.js';

type RangeOpts = { from?: string; to?: string; asOf?: string; json?: boolean };

function range(pipeline: string, opts: RangeOpts) {
  const asOf = parseAsOf(opts.asOf);
  return { pipeline, ...(opts.from === undefined ? {} : { from: opts.from }), ...(opts.to === undefined ? {} : { to: opts.to }), ...(asOf ? { asOf } : {}) };
}

const AS_OF = ['--as-of <instant|position>', 'answer as the ledger stood at that instant or event position'] as const;

export function registerQueryCommands(program: Command, ctx: CliContext): void {
  program
    .command('state')
    .summary('every date of a pipeline with its status, watermark and complete-through')
    .argument('<pipeline>', 'pipeline name')
    .option('--from <date>', 'first date (default: the pipeline start)')
    .option('--to <date>', 'last date (default: the last slot due now)')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .action(async (pipeline: string, opts: RangeOpts) => {
      const view = await ctx.withLedger(false, (ledger) => ledger.state(range(pipeline, opts)));
      if (opts.json) return ctx.json(view);
      ctx.out(
        formatTable(
          ['DATE', 'STATUS', 'ATTEMPT', 'TYPE', 'RUN', 'FINISHED', 'DETAIL'],
          view.dates.map((d) => [
            d.date,
            d.stalled ? 'stalled' : d.status,
            d.attempt === null ? '-' : String(d.attempt),
            d.runType ?? '-',
            d.runId ?? '-',
            d.finishedAt ?? '-',
            [d.offSchedule ? 'off-schedule' : '', d.error ?? '', formatMetrics(d.metrics)].filter(Boolean).join(' '),
          ]),
        ),
      );
      ctx.out(`watermark: ${view.watermark ?? 'none'}   complete through: ${view.completeThrough ?? 'none'}`);
    });

  program
    .command('watermark')
    .summary('the highest date that ever succeeded, and the date complete through')
    .description('watermark: the greatest date that has ever had a success; it never goes down (S5).\ncompleteThrough: every date from the start up to it is currently a success; it drops after a clear (S6).')
    .argument('<pipeline>', 'pipeline name')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .action(async (pipeline: string, opts: { asOf?: string; json?: boolean }) => {
      const asOf = parseAsOf(opts.asOf);
      const view = await ctx.withLedger(false, (ledger) => ledger.watermark({ pipeline, ...(asOf ? { asOf } : {}) }));
      if (opts.json) return ctx.json(view);
      ctx.out(`watermark: ${view.watermark ?? 'none'}\ncomplete through: ${view.completeThrough ?? 'none'}`);
    });

  program
    .command('pending')
    .summary('dates due and not done (missing, failed, cleared, stalled), and those in flight')
    .argument('<pipeline>', 'pipeline name')
    .option('--from <date>', 'first date (default: the pipeline start)')
    .option('--to <date>', 'last date (default: the last slot due now)')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .action(async (pipeline: string, opts: RangeOpts) => {
      const view = await ctx.withLedger(false, (ledger) => ledger.pending(range(pipeline, opts)));
      if (opts.json) return ctx.json(view);
      if (view.pending.length === 0) ctx.out(`nothing pending for ${pipeline}${view.from ? ` from ${view.from} to ${view.to}` : ''}`);
      else ctx.out(formatTable(['DATE', 'REASON', 'RUN AFTER', 'DATA INTERVAL'], view.pending.map((p) => [p.date, p.reason, p.runAfter, `${p.dataInterval.start} .. ${p.dataInterval.end}`])));
      if (view.inFlight.length > 0) ctx.out(`in flight: ${view.inFlight.map((r) => `${r.date} (run ${r.runId})`).join(', ')}`);
    });

  program
    .command('runs')
    .summary('every run (attempt) of a pipeline')
    .argument('<pipeline>', 'pipeline name')
    .option('--date <date>', 'only the runs of this date')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .action(async (pipeline: string, opts: { date?: string; asOf?: string; json?: boolean }) => {
      const asOf = parseAsOf(opts.asOf);
      const view = await ctx.withLedger(false, (ledger) => ledger.runs({ pipeline, ...(opts.date === undefined ? {} : { date: opts.date }), ...(asOf ? { asOf } : {}) }));
      if (opts.json) return ctx.json(view);
      ctx.out(
        formatTable(
          ['RUN', 'DATE', 'ATTEMPT', 'TYPE', 'STATUS', 'STARTED', 'FINISHED', 'ACTOR'],
          view.runs.map((r) => [r.runId, r.date, String(r.attempt), r.runType + (r.forced ? '+force' : ''), r.status, r.startedAt, r.finishedAt ?? '-', r.actor]),
        ),
      );
    });

  program
    .command('log')
    .summary('the events of the ledger (or of one pipeline), oldest first')
    .argument('[pipeline]', 'only this pipeline')
    .option('--limit <n>', 'only the last n events')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .action(async (pipeline: string | undefined, opts: { limit?: string; asOf?: string; json?: boolean }) => {
      const asOf = parseAsOf(opts.asOf);
      const limit = opts.limit === undefined ? undefined : Number(opts.limit);
      const { events } = await ctx.withLedger(false, (ledger) =>
        ledger.log({ ...(pipeline === undefined ? {} : { pipeline }), ...(asOf ? { asOf } : {}), ...(limit === undefined ? {} : { limit }) }),
      );
      if (opts.json) {
        return ctx.json({ events: events.map((e) => ({ position: e.position, type: e.type, eventId: e.eventId, recordedAt: e.recordedAt, stream: e.stream, data: e.data, metadata: e.metadata, hash: e.hash })) });
      }
      ctx.out(
        formatTable(
          ['POS', 'WHEN', 'WHO', 'WHAT', 'WHY'],
          events.map((e) => [String(e.position), e.recordedAt, e.metadata.actor, describe(e.type, e.data as Record<string, unknown>), e.metadata.reason ?? '']),
        ),
      );
    });
}

function describe(type: string, data: Record<string, unknown>): string {
  const where = [data['pipeline'], data['date']].filter(Boolean).join(' ');
  const run = data['runId'] ? ` run ${String(data['runId'])}` : '';
  return `${type} ${where}${run}`;
}
