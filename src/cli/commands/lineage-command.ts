import type { Command } from 'commander';
import { readLineage } from '../../ops/read-lineage.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';

export function registerLineageCommand(program: Command, ctx: CliContext): void {
  program
    .command('lineage')
    .summary('the pipeline edges implied by recorded datasets, declared or not')
    .description(
      'For pipelines fed by OpenLineage (define --openlineage, then serve or ingest), every edge the recorded datasets imply: ' +
        'a dataset some run of one pipeline wrote (outputs) and some run of another read (inputs). DECLARED says whether the reader ' +
        'already names the writer with define --upstream.',
    )
    .option('--suggest', 'print the define … --upstream commands that would declare the undeclared edges (each keeps the upstreams already declared)')
    .option('--json', 'print one JSON document: { edges, suggestions }')
    .addHelpText('after', '\nExamples:\n  runledger lineage\n  runledger lineage --suggest | sh')
    .action(async (opts: { suggest?: boolean; json?: boolean }) => {
      const view = await ctx.withLedger(false, (ledger) => readLineage(ledger));
      if (opts.json) return ctx.json(view);
      if (opts.suggest) {
        if (view.suggestions.length === 0) return ctx.note(`runledger: every edge the recorded datasets imply is declared (${view.edges.length} edge${view.edges.length === 1 ? '' : 's'})`);
        return ctx.out(view.suggestions.join('\n'));
      }
      if (view.edges.length === 0) return ctx.out('no edges: no recorded dataset was written by one pipeline and read by another');
      ctx.out(formatTable(['UPSTREAM', 'DOWNSTREAM', 'DECLARED', 'DATASETS'], view.edges.map((e) => [e.upstream, e.downstream, e.declared ? 'yes' : 'no', e.datasets.join(', ')])));
    });
}
