import { Option, type Command } from 'commander';
import { parseDuration } from '../../duration.js';
import { buildDefinition } from '../../ledger/build-definition.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../format-table.js';
import { parseWholeNumber } from '../parse-options.js';
import { readTasksFile } from '../read-tasks-file.js';
import { warnAboutMaskingLeaves } from './task-commands.js';

export function registerDefineCommands(program: Command, ctx: CliContext): void {
  program
    .command('define')
    .summary('define a pipeline, or change its definition')
    .description(
      'Define a pipeline and its timetable. Running it again with other options records a PipelineRedefined\n' +
        'event with the diff; the same options again change nothing.',
    )
    .argument('<pipeline>', 'pipeline name: lowercase letters, digits, _ . -')
    .requiredOption('--schedule <spec>', "@hourly, @daily, @weekly, @monthly, @yearly, a five-field cron ('0 2 * * *') or 'every 6h'")
    .requiredOption('--start <date>', 'first slot bound: YYYY-MM-DD (local midnight in --tz) or an RFC 3339 instant')
    .option('--end <date>', 'last slot bound, inclusive (as in Airflow)')
    .option('--tz <zone>', 'IANA time zone the schedule is evaluated in', 'UTC')
    .addOption(new Option('--timetable <kind>', 'interval: slots cover [tick, next tick); trigger: zero-width slots').choices(['interval', 'trigger']).default('interval'))
    .option('--no-catchup', 'catchup runs only the latest due slot (older gaps still show in pending)')
    .option('--max-active-runs <n>', 'runs of this pipeline the runner may have in flight at once', '1')
    .option('--lease <duration>', 'how long a started run may go without a heartbeat before it counts as stalled', '1h')
    .option('--tasks <file.json>', 'task-level state (S12): {"tasks": [{"id": "extract"}, {"id": "load", "upstream": ["extract"], "triggerRule": "all_success"}]}')
    .option('--reason <text>', 'why, recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  runledger define etl_orders --schedule @daily --start 2026-11-02 --tz Asia/Jakarta')
    .action(async (pipeline: string, opts: { schedule: string; start: string; end?: string; tz: string; timetable: 'interval' | 'trigger'; catchup: boolean; maxActiveRuns: string; lease: string; tasks?: string; reason?: string; json?: boolean }) => {
      const input = {
        pipeline,
        schedule: opts.schedule,
        start: opts.start,
        end: opts.end ?? null,
        timezone: opts.tz,
        timetable: opts.timetable,
        catchup: opts.catchup,
        maxActiveRuns: parseWholeNumber(opts.maxActiveRuns, '--max-active-runs', 1),
        leaseMs: parseDuration(opts.lease, '--lease'),
        ...(opts.tasks === undefined ? {} : { tasks: readTasksFile(opts.tasks) }),
        ...(opts.reason === undefined ? {} : { reason: opts.reason }),
      };
      // Validate before opening: a bad definition must not even create the ledger file.
      buildDefinition(input);
      const result = await ctx.withLedger(true, (ledger) => ledger.define(input));
      if (opts.json) return ctx.json(result.definition.tasks ? { ...result, warnings: warnAboutMaskingLeaves(ctx, result.definition) } : result);
      const d = result.definition;
      // The lint warns after the summary, and on every define, so a pipeline that still masks failures keeps saying so.
      if (result.outcome === 'unchanged') {
        ctx.out(`${pipeline} is already defined like this; nothing recorded`);
        return void warnAboutMaskingLeaves(ctx, d);
      }
      ctx.out(`${result.outcome} ${pipeline}: ${d.schedule} (${d.timetable}) in ${d.timezone} from ${d.start}${d.end ? ` to ${d.end}` : ''}, catchup ${d.catchup ? 'on' : 'off'}`);
      if (d.tasks && result.outcome === 'defined') ctx.out(`  tasks: ${d.tasks.map((t) => (t.upstream.length > 0 ? `${t.id} (after ${t.upstream.join(', ')})` : t.id)).join(', ')}`);
      for (const change of result.changes) ctx.out(`  ${change.field}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`);
      warnAboutMaskingLeaves(ctx, d);
    });

  program
    .command('pipelines')
    .summary('list the pipelines of the ledger')
    .option('--lint', 'warn (on stderr) about leaf tasks whose trigger rule can hide an upstream failure (S12)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { lint?: boolean; json?: boolean }) => {
      const pipelines = await ctx.withLedger(false, (ledger) => ledger.pipelines());
      const warnings = opts.lint ? pipelines.flatMap((p) => warnAboutMaskingLeaves(ctx, p).map((w) => ({ pipeline: p.pipeline, ...w }))) : [];
      if (opts.lint && warnings.length === 0) ctx.note('runledger: lint: no leaf task can hide an upstream failure');
      if (opts.json) return ctx.json(opts.lint ? { pipelines, warnings } : { pipelines });
      if (pipelines.length === 0) return ctx.out('no pipelines yet; define one with `runledger define`');
      ctx.out(
        formatTable(
          ['PIPELINE', 'SCHEDULE', 'TIMETABLE', 'ZONE', 'START', 'END', 'CATCHUP'],
          pipelines.map((p) => [p.pipeline, p.schedule, p.timetable, p.timezone, p.start, p.end ?? '-', p.catchup ? 'on' : 'off']),
        ),
      );
    });
}
