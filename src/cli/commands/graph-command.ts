import type { Command } from 'commander';
import { readGraph } from '../../ops/read-graph.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';

export function registerGraphCommand(program: Command, ctx: CliContext): void {
  program
    .command('graph')
    .summary('the pipelines and the upstreams their dates wait for, each with its worst status')
    .description(
      'One row per pipeline in dependency order (each after its upstreams), with the worst status of its due dates ' +
        '(failed, blocked, pending, running, success, none) and the upstreams it waits for (define --upstream). ' +
        '`serve` draws the same graph at /graph and answers it as JSON at /api/graph.',
    )
    .option('--json', 'print one JSON document: { now, nodes, edges }')
    .addHelpText('after', '\nExamples:\n  runledger graph\n  runledger graph --json')
    .action(async (opts: { json?: boolean }) => {
      const view = await ctx.withLedger(false, (ledger) => readGraph(ledger));
      if (opts.json) return ctx.json(view);
      if (view.nodes.length === 0) return ctx.out('no pipelines yet; define one with `runledger define`');
      const upstreams = (name: string) =>
        view.edges
          .filter((e) => e.to === name)
          .map((e) => (e.mapping === 'overlap' ? e.from : `${e.from}:${e.mapping}`))
          .join(', ') || '-';
      ctx.out(formatTable(['PIPELINE', 'STATUS', 'PENDING', 'BLOCKED', 'COMPLETE THROUGH', 'UPSTREAMS'], view.nodes.map((n) => [n.pipeline, n.status, String(n.pending), String(n.blocked), n.completeThrough ?? '-', upstreams(n.pipeline)])));
    });
}
