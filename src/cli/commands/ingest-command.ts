import type { Command } from 'commander';
import { ExitCode, LedgerError } from '../../errors.js';
import { BindingIndex } from '../../ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage, type IngestReport } from '../../ingest/openlineage/ingest-lineage.js';
import type { CliContext } from '../cli-context.js';
import { RunExit } from '../create-program.js';
import { formatTable } from '../format-table.js';
import { READ_LIMITS, readBoundedText } from '../read-bounded-file.js';

const EXIT_OF_STATUS: Readonly<Record<number, number>> = { 400: ExitCode.badInput, 404: ExitCode.notFound, 409: ExitCode.refused };

/**
 * `ingest openlineage <file|->`: OpenLineage events from a file (JSON: one
 * event or an array; or JSON Lines, as dbt-ol's file transport and a captured
 * stream write them) turned into ledger runs exactly as `serve`'s
 * /api/v1/lineage does.
 *
 * @example
 * runCli(['ingest', 'openlineage', 'events.jsonl', '--dry-run'], deps, [registerIngestCommand]);
 */
export function registerIngestCommand(program: Command, ctx: CliContext): void {
  const ingest = program
    .command('ingest')
    .summary('turn events of another system into ledger runs (OpenLineage)')
    .addHelpText('after', '\nExample:\n  runledger ingest openlineage events.jsonl --dry-run');
  ingest
    .command('openlineage')
    .summary('record OpenLineage run events (Airflow, dbt-ol, Spark) from a JSON or JSON Lines file')
    .description(
      'Reads OpenLineage RunEvents (one JSON event, a JSON array, or JSON Lines;\n' +
        '- for stdin) and checks each against the OpenLineage schema: one invalid\n' +
        'event refuses the file and nothing is written. Then records them in\n' +
        'eventTime order, as serve\'s /api/v1/lineage does: START starts the run of\n' +
        'the date whose slot holds the nominal start, COMPLETE succeeds it, FAIL\n' +
        'fails it with the errorMessage facet, a new runId for the same date is the\n' +
        'next attempt, a re-sent event changes nothing. Each event of a job bound to\n' +
        'no pipeline (define --openlineage), or refused by a rule, is named on stderr.',
    )
    .argument('<file>', 'a .json or .jsonl file, or - for stdin')
    .option('--dry-run', 'show what each event would record, and write nothing')
    .option('--openlineage-auto', "define unbound Airflow DAGs from the events' dag facet (cron timetable and zone)")
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger ingest openlineage events.jsonl\n  runledger ingest openlineage events.jsonl --dry-run\n  cat openlineage.json | runledger ingest openlineage - --openlineage-auto',
    )
    .action(async (file: string, opts: { dryRun?: boolean; openlineageAuto?: boolean; json?: boolean }) => {
      const { values, label } = readEvents(file);
      const events = checkLineageEvents(values, label);
      // With --openlineage-auto the events may define every pipeline, so a new ledger is created for them.
      const report = await ctx.withLedger(Boolean(opts.openlineageAuto) && !opts.dryRun, async (ledger) =>
        ingestLineage(ledger, new BindingIndex(ledger.store), events, { auto: opts.openlineageAuto ?? false, dryRun: opts.dryRun ?? false, listWritten: true }),
      );
      if (opts.json) ctx.json(report);
      else printReport(ctx, report, label);
      const refused = report.results.find((r) => r.outcome === 'refused');
      if (refused) throw new RunExit(EXIT_OF_STATUS[refused.status] ?? ExitCode.refused);
    });
}

function printReport(ctx: CliContext, report: IngestReport, label: (index: number) => string): void {
  if (report.dryRun) {
    if (report.written.length > 0) {
      ctx.out(formatTable(['TYPE', 'PIPELINE', 'DATE', 'RUN', ''], report.written.map((w) => [w.type, w.pipeline, w.date ?? '-', w.runId ?? '-', w.summary])));
    }
    for (const r of report.results) ctx.out(`${label(r.index)}: ${r.eventType ?? '-'} ${r.job ?? ''} → ${r.outcome}: ${r.message}`);
  }
  for (const r of report.results) {
    if (r.outcome === 'refused') ctx.note(`runledger: ${label(r.index)} (${r.eventType ?? 'event'}${r.runId ? ` of run ${r.runId}` : ''}) refused: ${r.message}`);
  }
  const verb = report.dryRun ? 'would record' : 'recorded';
  ctx.out(
    `${report.received} event${report.received === 1 ? '' : 's'}: ${report.recorded} ${verb}, ${report.duplicates} already recorded, ${report.ignored} ignored, ${report.refused} refused` +
      `${report.dryRun ? '; dry run, nothing written' : `; ${report.written.length} ledger event${report.written.length === 1 ? '' : 's'} written`}`,
  );
}

/** The events of a file: a JSON document (one event or an array) or JSON Lines, with how to name each one. */
function readEvents(file: string): { values: unknown[]; label: (index: number) => string } {
  const text = readBoundedText(file === '-' ? 0 : file, { what: 'events file', maxBytes: READ_LIMITS.bulk, unreadable: 'input.unreadableFile', notFound: 'notFound.file' });
  const name = file === '-' ? 'stdin' : file;
  try {
    const whole = JSON.parse(text) as unknown;
    const values = Array.isArray(whole) ? whole : [whole];
    if (values.length === 0) throw new LedgerError('input.noEvents', `${name} holds no events`);
    return { values, label: (i) => `${name} event ${i + 1}` };
  } catch (error) {
    if (error instanceof LedgerError) throw error;
  }
  const lines: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch (error) {
      throw new LedgerError('input.invalidJson', `${name} line ${i + 1} is not JSON (${(error as Error).message}); give one event per line, or one JSON document; nothing was recorded`);
    }
  });
  if (lines.length === 0) throw new LedgerError('input.noEvents', `${name} holds no events`);
  return { values: lines.map((l) => l.value), label: (i) => `${name} line ${lines[i]?.line ?? i + 1}` };
}
