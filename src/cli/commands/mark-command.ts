import type { Command } from 'commander';
import { LedgerError } from '../../errors.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';

type MarkOpts = { success?: boolean; skipped?: boolean; from?: string; to?: string; reason?: string; dryRun?: boolean; json?: boolean };

export function registerMarkCommand(program: Command, ctx: CliContext): void {
  program
    .command('mark')
    .summary('set dates to success or skipped without running anything (audited with actor and reason)')
    .description(
      'Set dates to success (Airflow\'s "mark success": done, and the ledger records that no command ran) or to ' +
        'skipped (nothing to process, e.g. a holiday without data) without running anything. Each date gets a ' +
        'RunMarked event with the actor and the reason. A skipped date counts as done for complete-through and ' +
        'pending but never moves the watermark; a marked success does. A date that is running refuses the whole ' +
        'mark (exit 3, nothing written): wait for it or clear it first. `clear` undoes a mark like any run.',
    )
    .argument('<pipeline>', 'pipeline name')
    .argument('[dates...]', 'date keys to mark')
    .option('--success', 'mark the dates as succeeded (no command ran)')
    .option('--skipped', 'mark the dates as skipped (nothing to do)')
    .option('--from <date>', 'mark a range: first date')
    .option('--to <date>', 'mark a range: last date')
    .option('--reason <text>', 'why (required), recorded in the events')
    .option('--dry-run', 'show what would be marked and write nothing')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger mark etl_orders 2026-12-25 --skipped --reason "holiday: the shop was closed"\n' +
        '  runledger mark etl_orders --from 2026-11-01 --to 2026-11-03 --success --reason "loaded by hand from the backup"',
    )
    .action(async (pipeline: string, dates: string[], opts: MarkOpts) => {
      if (opts.success === opts.skipped) {
        throw new LedgerError('input.invalidMark', 'say what to mark the dates as: --success (done, no command ran) or --skipped (nothing to do), one of them');
      }
      if (opts.reason === undefined || opts.reason.trim() === '') {
        throw new LedgerError('input.missingReason', 'a mark needs a reason, recorded with it: add --reason "…", e.g. --reason "holiday: the source publishes nothing"');
      }
      const result = await ctx.withLedger(false, (ledger) =>
        ledger.mark({
          pipeline,
          dates,
          reason: opts.reason as string,
          dryRun: opts.dryRun ?? false,
          ...(opts.success ? { success: true } : { skipped: true }),
          ...(opts.from === undefined ? {} : { from: opts.from }),
          ...(opts.to === undefined ? {} : { to: opts.to }),
        }),
      );
      if (opts.json) return ctx.json(result);
      const verb = result.dryRun ? 'would mark' : 'marked';
      if (result.marked.length > 0) ctx.out(formatTable(['DATE', 'WAS', 'MARK'], result.marked.map((m) => [m.date, m.previousStatus, m.runId])));
      const left = result.unchanged.length ? `; left ${result.unchanged.map((u) => `${u.date} (${u.why})`).join(', ')}` : '';
      ctx.out(`${verb} ${result.marked.length} date(s) of ${pipeline} ${result.status}${left}`);
    });
}
