import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { LedgerError } from '../../errors.js';
import { reportChunks } from '../../render/render-report.js';
import { type CliContext } from '../cli-context.js';
import { writeFileAtomically } from '../write-file-atomically.js';
import { parseAsOf } from '../../ledger/parse-instant.js';

/**
 * `report [pipelines…] --html <file>`: the pages of `serve` in one
 * self-contained HTML file, for CI artefacts and e-mails.
 *
 * @example
 * runCli(['report', 'etl_orders', '--html', 'out.html'], deps, [registerReportCommand]);
 */
export function registerReportCommand(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .summary('write the overview, pipeline pages, audit timeline and verify result as one self-contained HTML file')
    .description(
      'Renders the same pages as `serve` into one HTML file that needs no network: styles inlined, no script, ' +
        'no external assets. Calendars keep the last ten years of days (or 31 days of hours); tables their most ' +
        'recent rows.',
    )
    .argument('[pipelines...]', 'only these pipelines (default: all)')
    .option('--html <file>', 'the file to write (replaced atomically)')
    .option('--as-of <instant|position>', 'report the ledger as it stood at that instant or event position')
    .addHelpText('after', '\nExamples:\n  runledger report --html out.html\n  runledger report etl_orders --html etl_orders.html --as-of 2026-11-05T00:00:00Z')
    .action(async (pipelines: string[], opts: { html?: string; asOf?: string }) => {
      if (opts.html === undefined || opts.html.trim() === '') throw new LedgerError('input.reportNeedsHtml', 'report writes HTML: give the file with --html <file>, e.g. runledger report --html out.html');
      const file = opts.html;
      if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new LedgerError('input.unwritableFile', `cannot write ${file}: it is a directory; pass a file path, e.g. --html out.html`);
      const asOf = parseAsOf(opts.asOf);
      // Each section goes to the file as it is rendered: the report is never whole in memory.
      let bytes = 0;
      await ctx.withLedger(false, async (ledger) => {
        const chunks = reportChunks(ledger, { pipelines, ...(asOf ? { asOf } : {}), ...(opts.asOf ? { asOfText: opts.asOf } : {}) });
        await writeFileAtomically(file, counted(chunks, (n) => (bytes += n)), { flag: '--html', example: 'out.html' });
      });
      ctx.note(`wrote ${file} (${Math.ceil(bytes / 1024)} KiB, ${pipelines.length > 0 ? pipelines.join(', ') : 'every pipeline'})`);
    });
}

async function* counted(chunks: AsyncIterable<string>, add: (bytes: number) => void): AsyncGenerator<string> {
  for await (const chunk of chunks) {
    add(Buffer.byteLength(chunk));
    yield chunk;
  }
}
