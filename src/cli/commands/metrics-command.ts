import type { Command } from 'commander';
import { LedgerError } from '../../errors.js';
import { chainVerifier } from '../../ops/chain-verifier.js';
import { collectMetrics } from '../../ops/collect-metrics.js';
import type { CliContext } from '../cli-context.js';
import { writeFileAtomically } from '../write-file-atomically.js';

export function registerMetricsCommand(program: Command, ctx: CliContext): void {
  program
    .command('metrics')
    .summary('the ledger as Prometheus metrics, on stdout or atomically into a textfile')
    .description(
      'Prints the metrics `serve` answers on GET /metrics (Prometheus text format): per pipeline the watermark and ' +
        'complete-through as Unix timestamps, lag seconds, pending dates by reason, running and stalled runs, runs by ' +
        'outcome and their durations, when the last success and the last failure were recorded, the definition as ' +
        "runledger_pipeline_info labels; the ledger's head position, a full verification of its hash chain and " +
        "runledger_build_info. (serve adds its own process_* and nodejs_* metrics, which a one-shot command has no use for.) " +
        "With --textfile, writes them to a temporary file beside the target and renames it over the target, so " +
        "node_exporter's textfile collector never reads half a file.",
    )
    .option('--textfile <path>', 'write to this file (name it *.prom, in the collector directory) instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger metrics\n  runledger metrics --textfile /var/lib/node_exporter/textfile_collector/runledger.prom\n' +
        "  # crontab: * * * * * runledger --db /srv/ledger.db metrics --textfile /var/lib/node_exporter/textfile_collector/runledger.prom",
    )
    .action(async (opts: { textfile?: string }) => {
      if (opts.textfile !== undefined && opts.textfile.trim() === '') throw new LedgerError('input.emptyPath', '--textfile is empty; pass the .prom file to write');
      const text = await ctx.withLedger(false, async (ledger) => {
        const verify = await chainVerifier(ledger.store, ledger.now.bind(ledger)).check();
        return (await collectMetrics(ledger, { nowMs: ledger.now(), verify })).text;
      });
      if (opts.textfile === undefined) return ctx.outVerbatim(text);
      // A new .prom file is world-readable (0644) for node_exporter; an existing one keeps its mode.
      await writeFileAtomically(opts.textfile, [text], { flag: '--textfile', example: 'runledger.prom', newMode: 0o644 });
    });
}
