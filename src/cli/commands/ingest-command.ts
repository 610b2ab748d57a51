import type { Command } from 'commander';
import { ExitCode, LedgerError } from '../../errors.js';
import { BindingIndex } from '../../ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage, parseEachLineageEvent, type IngestReport, type LineageEntry } from '../../ingest/openlineage/ingest-lineage.js';
import type { CliContext } from '../cli-context.js';
import { RunExit } from '../create-program.js';
import { formatTable } from '../../format/format-table.js';
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
        '- for stdin) and records them in eventTime order, as serve\'s /api/v1/lineage\n' +
        'does: START starts the run of the date whose slot holds the nominal start,\n' +
        'COMPLETE succeeds it, FAIL fails it with the errorMessage facet, a new runId\n' +
        'for the same date is the next attempt; a run\'s start and end are the\n' +
        'producer\'s eventTime. An event already in the ledger is a duplicate.\n' +
        'An event whose own job is bound to no pipeline is a task of its parent\'s\n' +
        'run (an Airflow task), else ignored with the reason (--strict: refused).\n' +
        'Each line that is not JSON or breaks the OpenLineage schema is refused on\n' +
        'its own, named with its line number and reason on stderr, and the others\n' +
        'are recorded; the exit status is then 2 (or the refusal\'s own: 3 a rule,\n' +
        '4 an unbound job with --strict). --all-or-nothing writes nothing unless\n' +
        'every event can be recorded.',
    )
    .argument('<file>', 'a .json or .jsonl file, or - for stdin')
    .option('--dry-run', 'show what each event would record, and write nothing')
    .option('--openlineage-auto', "define unbound Airflow DAGs from the events' dag facet (cron timetable and zone)")
    .option('--strict', 'refuse (exit 4) an event whose job, and its parent\'s, is bound to no pipeline, instead of ignoring it')
    .option('--all-or-nothing', 'write nothing when any line is not JSON, breaks the schema or is refused by a rule')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger ingest openlineage events.jsonl\n  runledger ingest openlineage events.jsonl --dry-run\n  runledger ingest openlineage dbt-ol-events.jsonl --all-or-nothing\n  cat openlineage.json | runledger ingest openlineage - --openlineage-auto',
    )
    .action(async (file: string, opts: { dryRun?: boolean; openlineageAuto?: boolean; strict?: boolean; allOrNothing?: boolean; json?: boolean }) => {
      const { entries, label } = readEvents(file, Boolean(opts.allOrNothing));
      const options = { auto: opts.openlineageAuto ?? false, strict: opts.strict ?? false, listWritten: true };
      // With --openlineage-auto the events may define every pipeline, so a new ledger is created for them.
      const report = await ctx.withLedger(Boolean(opts.openlineageAuto) && !opts.dryRun, async (ledger) => {
        const bindings = new BindingIndex(ledger.store);
        if (opts.dryRun) return ingestLineage(ledger, bindings, entries, { ...options, dryRun: true });
        if (opts.allOrNothing) {
          // The same events against a copy first: only when none is refused are they written for real.
          const trial = await ingestLineage(ledger, bindings, entries, { ...options, dryRun: true });
          if (trial.refused > 0) return { ...trial, dryRun: false, written: [], allOrNothing: true as const };
        }
        return ingestLineage(ledger, bindings, entries, options);
      });
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
      `${report.dryRun ? '; dry run, nothing written' : report.allOrNothing ? '; --all-or-nothing, so nothing was written' : `; ${report.written.length} ledger event${report.written.length === 1 ? '' : 's'} written`}`,
  );
}

/**
 * The events of a file: a JSON document (one event or an array) or JSON
 * Lines, with how to name each one (its line number). Each event is checked
 * against the schema on its own; a line that is not JSON is refused on its
 * own too. With `allOrNothing`, either refuses the whole file at once, like every
 * bad input: nothing is written.
 */
function readEvents(file: string, allOrNothing: boolean): { entries: LineageEntry[]; label: (index: number) => string } {
  const text = readBoundedText(file === '-' ? 0 : file, { what: 'events file', maxBytes: READ_LIMITS.bulk, unreadable: 'input.unreadableFile', notFound: 'notFound.file' });
  const name = file === '-' ? 'stdin' : file;
  const check = (values: unknown[], label: (index: number) => string) => (allOrNothing ? checkLineageEvents(values, label) : parseEachLineageEvent(values));
  try {
    const whole = JSON.parse(text) as unknown;
    const values = Array.isArray(whole) ? whole : [whole];
    if (values.length === 0) throw new LedgerError('input.noEvents', `${name} holds no events`);
    const label = (i: number) => `${name} event ${i + 1}`;
    return { entries: check(values, label), label };
  } catch (error) {
    if (error instanceof LedgerError) throw error;
  }
  const lines: Array<{ line: number; value: unknown } | { line: number; error: string }> = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch (error) {
      const problem = `is not JSON (${(error as Error).message})`;
      if (allOrNothing) throw new LedgerError('input.invalidJson', `${name} line ${i + 1} ${problem}; give one event per line, or one JSON document; nothing was recorded`);
      lines.push({ line: i + 1, error: `${problem}; give one event per line` });
    }
  });
  if (lines.length === 0) throw new LedgerError('input.noEvents', `${name} holds no events`);
  const label = (i: number) => `${name} line ${lines[i]?.line ?? i + 1}`;
  const json = lines.filter((l): l is { line: number; value: unknown } => 'value' in l);
  const checked = check(json.map((l) => l.value), (i) => `${name} line ${json[i]?.line ?? i + 1}`);
  let next = 0;
  const entries = lines.map((l): LineageEntry => ('error' in l ? { kind: 'invalid', code: 'input.invalidJson', message: l.error } : (checked[next++] as LineageEntry)));
  return { entries, label };
}
