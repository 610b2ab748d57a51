import type { Command } from 'commander';
import { DEMO_NOW, runDemo } from '../demo/run-demo.js';
import type { CliContext } from '../cli-context.js';

export function registerDemoCommand(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .summary('a one-minute tour: backfill a daily orders ETL that missed three days')
    .description(
      'Lays down three days of raw order CSVs in a temporary directory (or --dir), defines a @daily pipeline, ' +
        'shows the three dates a stopped scheduler left pending, backfills them with the shipped example ETL, ' +
        'shows that a re-run does nothing, that a forced re-run writes identical files, and what a missing ' +
        `partition does. Its clock is fixed at ${DEMO_NOW}; it ignores --db and --now and keeps its ledger in the ` +
        'directory so you can explore it afterwards.',
    )
    .option('--dir <dir>', 'where to put the files and the ledger (created if missing; must be empty)')
    .addHelpText('after', '\nExample:\n  runledger demo --dir ./runledger-demo')
    .action(async (opts: { dir?: string }) => {
      const actor = ctx.deps.env['RUNLEDGER_ACTOR'];
      await runDemo({
        ...(opts.dir === undefined ? {} : { dir: opts.dir }),
        out: ctx.deps.stdout,
        env: ctx.deps.env,
        nodePath: process.execPath,
        ...(actor ? { actor } : {}),
      });
    });
}
