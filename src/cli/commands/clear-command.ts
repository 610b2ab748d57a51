import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';

export function registerClearCommand(program: Command, ctx: CliContext): void {
  program
    .command('clear')
    .summary('make dates pending again (history is kept; running runs are fenced out)')
    .argument('<pipeline>', 'pipeline name')
    .argument('[dates...]', 'date keys to clear')
    .option('--from <date>', 'clear a range: first date')
    .option('--to <date>', 'clear a range: last date')
    .option('--only-failed', 'clear only the failed dates')
    .option('--reason <text>', 'why, recorded in the events')
    .option('--downstream', 'also clear every date of every downstream pipeline (define --upstream) that waits for a cleared date, transitively, in the same atomic write; each names this clear as its cause')
    .option('--dry-run', 'show what would be cleared and write nothing')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger clear etl_orders 2026-11-04 --reason "bad upstream file"\n  runledger clear etl_orders --from 2026-11-01 --to 2026-11-30 --only-failed --dry-run\n' +
        '  runledger clear orders_raw 2026-11-03T05:00:00+07:00 --downstream --reason "late file" --dry-run',
    )
    .action(async (pipeline: string, dates: string[], opts: { from?: string; to?: string; onlyFailed?: boolean; reason?: string; dryRun?: boolean; downstream?: boolean; json?: boolean }) => {
      const result = await ctx.withLedger(false, (ledger) =>
        ledger.clear({
          pipeline,
          dates,
          onlyFailed: opts.onlyFailed ?? false,
          dryRun: opts.dryRun ?? false,
          ...(opts.downstream ? { downstream: true } : {}),
          ...(opts.from === undefined ? {} : { from: opts.from }),
          ...(opts.to === undefined ? {} : { to: opts.to }),
          ...(opts.reason === undefined ? {} : { reason: opts.reason }),
        }),
      );
      if (opts.json) return ctx.json(result);
      const verb = result.dryRun ? 'would clear' : 'cleared';
      if (result.downstream === undefined) {
        if (result.cleared.length > 0) ctx.out(formatTable(['DATE', 'WAS', 'RUN'], result.cleared.map((c) => [c.date, c.previousStatus, c.runId])));
      } else {
        const rows = [...result.cleared.map((c) => [pipeline, c.date, c.previousStatus, c.runId, '-']), ...result.downstream.map((c) => [c.pipeline, c.date, c.previousStatus, c.runId, `${c.cause.pipeline} ${c.cause.date}`])];
        if (rows.length > 0) ctx.out(formatTable(['PIPELINE', 'DATE', 'WAS', 'RUN', 'BECAUSE OF'], rows));
      }
      const more = result.downstream === undefined ? '' : ` and ${result.downstream.length} downstream date(s)`;
      ctx.out(`${verb} ${result.cleared.length} date(s) of ${pipeline}${more}${result.skipped.length ? `; skipped ${result.skipped.map((s) => `${s.date} (${s.why})`).join(', ')}` : ''}`);
    });
}
