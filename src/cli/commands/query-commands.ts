import type { Command } from 'commander';
import { currentSchemaVersion } from '../../../events/event-types.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { clearedBecause, waitsForText } from '../../../projections/views/cleared-because.js';
import { reasonWords } from '../../../projections/pending.js';
import { LedgerError } from '../../errors.js';
import type { CliContext } from '../cli-context.js';
import { retiredText, type PipelineControl } from '../../../projections/pipeline-control.js';
import { tellingLine } from '../../../projections/views/telling-line.js';
import { formatMetrics, formatTable, StreamingTable, tableFit } from '../../format/format-table.js';
import { logEntry } from '../../ops/log-document.js';
import { printStateView } from '../print-state-view.js';
import { writeJsonDocument } from '../write-json-document.js';
import { inZone, pipelineZones } from '../../format/zoned-instant.js';
import { printRunLog } from './print-run-log.js';
import { printTaskGrid } from './task-commands.js';
import type { LogOpts } from '../../ledger/log-input.js';
import { logInput } from '../../ledger/log-input.js';
import { parseAsOf } from '../../ledger/parse-instant.js';
import { readPipelinePoolWait } from '../../ops/read-pool-waits.js';
import { poolWaitText } from '../../../projections/views/pool-wait.js';

type RangeOpts = { from?: string; to?: string; asOf?: string; json?: boolean };

function range(pipeline: string, opts: RangeOpts) {
  const asOf = parseAsOf(opts.asOf);
  return { pipeline, ...(opts.from === undefined ? {} : { from: opts.from }), ...(opts.to === undefined ? {} : { to: opts.to }), ...(asOf ? { asOf } : {}) };
}

/** `state` of a retired pipeline without --include-retired: refused, saying how to see it. */
function refuseRetiredState(pipeline: string, retired: PipelineControl | null): void {
  if (retired === null) return;
  throw new LedgerError('ledger.retired', `${pipeline} is ${retiredText(retired)}; its history stays: add --include-retired to see its dates (runledger unretire ${pipeline} brings it back)`);
}

const AS_OF = ['--as-of <instant|position>', 'answer as the ledger stood at that instant or event position'] as const;

export function registerQueryCommands(program: Command, ctx: CliContext): void {
  program
    .command('state')
    .summary('every date of a pipeline with its status, watermark and complete-through')
    .argument('<pipeline>', 'pipeline name')
    .option('--from <date>', 'first date (default: the pipeline start)')
    .option('--to <date>', 'last date (default: the last slot due now)')
    .option(...AS_OF)
    .option('--calendar', 'draw the calendar even when stdout is not a terminal')
    .option('--table', 'print the table even on a terminal')
    .option('--wide', "with the table: don't cut DETAIL to the terminal's width (an error shows its most telling line; --json has the whole text)")
    .option('--json', 'print one JSON document')
    .option('--include-retired', 'show a retired pipeline too (its history stays; without this, state refuses it and says so)')
    .addHelpText(
      'after',
      '\nOn a terminal, state draws a calendar: a month per row (a local day per row for hourly pipelines), one\n' +
        'glyph per date (■ success, – skipped, ✗ failed, ↻ up for retry, ▶ running, ! stalled, ‖ interrupted, ○ cleared, □ missing,\n' +
        '· not yet due), coloured ' +
        'unless NO_COLOR is set; older months fold away (choose them with --from/--to).\n' +
        '\nExamples:\n  runledger state etl_orders\n  runledger state etl_orders --calendar --from 2026-01-01\n  runledger state etl_orders --from 2026-11-01 --to 2026-11-30 --json\n  runledger state etl_orders --as-of 2026-11-04T09:00:00+07:00',
    )
    .action(async (pipeline: string, opts: RangeOpts & { calendar?: boolean; table?: boolean; wide?: boolean; includeRetired?: boolean }) => {
      if (!opts.includeRetired) await ctx.withLedger(false, async (ledger) => refuseRetiredState(pipeline, (await ledger.controls([pipeline])).get(pipeline)?.retired ?? null));
      const calendar = !opts.json && (opts.calendar || (ctx.deps.stdoutIsTTY === true && !opts.table));
      // The calendar's renderer and page views load only for it.
      if (calendar) return (await import('../print-state-calendar.js')).printStateCalendar(ctx, range(pipeline, opts));
      const [view, zones] = await ctx.withLedger(false, async (ledger) => [await ledger.state(range(pipeline, opts)), await pipelineZones(ledger, [pipeline])] as const);
      if (opts.json) return writeJsonDocument(ctx, view, 'dates');
      printStateView(ctx, view, zones.get(pipeline), opts.wide ?? false);
    });

  program
    .command('watermark')
    .summary('the highest date that ever succeeded, and the date complete through')
    .description('watermark: the greatest date that has ever had a success; it never goes down.\ncompleteThrough: every date from the start up to it is currently a success; it drops after a clear.')
    .argument('<pipeline>', 'pipeline name')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExamples:\n  runledger watermark etl_orders\n  runledger watermark etl_orders --as-of 12 --json')
    .action(async (pipeline: string, opts: { asOf?: string; json?: boolean }) => {
      const asOf = parseAsOf(opts.asOf);
      const view = await ctx.withLedger(false, (ledger) => ledger.watermark({ pipeline, ...(asOf ? { asOf } : {}) }));
      if (opts.json) return ctx.json(view);
      ctx.out(`watermark: ${view.watermark ?? 'none'}\ncomplete through: ${view.completeThrough ?? 'none'}`);
    });

  program
    .command('pending')
    .summary('dates due and not done (missing, failed, up for retry, cleared, stalled, waiting for previous, waiting for upstream), and those in flight')
    .argument('<pipeline>', 'pipeline name')
    .option('--from <date>', 'first date (default: the pipeline start)')
    .option('--to <date>', 'last date (default: the last slot due now)')
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .option('--wide', "don't cut the DETAIL and ERROR columns to the terminal's width (each error's most telling line; --json has the whole text)")
    .addHelpText('after', '\nExamples:\n  runledger pending etl_orders\n  runledger pending etl_orders --from 2026-11-01 --to 2026-11-30 --json')
    .action(async (pipeline: string, opts: RangeOpts & { wide?: boolean }) => {
      const [view, poolWait, zones] = await ctx.withLedger(false, async (ledger) => {
        const pending = await ledger.pending(range(pipeline, opts));
        // A full pool is a fact of now: told beside the dates that could start, never as of another time.
        const startable = pending.pending.some((p) => p.reason !== 'upstream' && p.reason !== 'waitingForPrevious' && p.reason !== 'up_for_retry');
        return [pending, startable && opts.asOf === undefined ? await readPipelinePoolWait(ledger, pipeline) : null, await pipelineZones(ledger, [pipeline])] as const;
      });
      if (opts.json) return ctx.json(poolWait ? { ...view, poolWait } : view);
      const zone = zones.get(pipeline) ?? 'UTC';
      if (view.pending.length === 0) ctx.out(`nothing pending for ${pipeline}${view.from ? ` from ${view.from} to ${view.to}` : ''}`);
      else {
        const errors = view.pending.some((p) => p.error !== undefined);
        // A retry says which attempt it waits for and when; a depends-on-past date which slot it waits for;
        // a blocked date the upstream slot it waits for; a cascaded clear its cause. Other lists look as before.
        const details = view.pending.some((p) => p.retry !== undefined || p.previous !== undefined || p.blockedBy !== undefined || p.cause !== undefined);
        const detail = (p: (typeof view.pending)[number]) =>
          [
            p.retry ? `attempt ${p.retry.attempt} of ${p.retry.of}${p.retry.nextAt ? `, next at ${inZone(p.retry.nextAt, zone)}` : ''}` : p.previous ? `after ${p.previous}` : '',
            p.blockedBy ? waitsForText(p.blockedBy) : '',
            p.cause ? clearedBecause(p.cause) : '',
          ]
            .filter(Boolean)
            .join('; ');
        // DETAIL follows REASON (run control's place for it); ERROR stays last.
        const headers = ['DATE', 'REASON', ...(details ? ['DETAIL'] : []), 'RUN AFTER', 'DATA INTERVAL', ...(errors ? ['ERROR'] : [])];
        const rows = view.pending.map((p) => [p.date, reasonWords(p.reason), ...(details ? [detail(p)] : []), p.runAfter, `${p.dataInterval.start} .. ${p.dataInterval.end}`, ...(errors ? [tellingLine(p.error ?? '')] : [])]);
        // The DETAIL and ERROR columns are the ones cut to the terminal's width.
        const flexible = [...(details ? [2] : []), ...(errors ? [details ? 5 : 4] : [])];
        ctx.out(formatTable(headers, rows, tableFit(ctx.deps.columns, opts.wide, flexible)));
      }
      if (view.inFlight.length > 0) ctx.out(`in flight: ${view.inFlight.map((r) => `${r.date} (run ${r.runId})`).join(', ')}`);
      if (poolWait) ctx.out(`waiting for a place in ${poolWaitText(poolWait)}`);
    });

  program
    .command('runs')
    .summary('every run (attempt) of a pipeline')
    .argument('<pipeline>', 'pipeline name')
    .option('--date <date>', 'only the runs of this date')
    .option('--run <runId>', 'the task grid of this run: each task, its state, tries and last update')
    .option('--logs', "with --run: print the run's log file (the command's stdout and stderr, as backfill and catchup kept it), once it matches the sha256 its outcome recorded")
    .option(...AS_OF)
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      '\nA log file that is missing is refused with exit 4, one whose content no longer matches the recorded sha256\n' +
        '(changed, truncated, rotated) with exit 5; nothing of it is printed then.\n' +
        '\nExamples:\n  runledger runs etl_orders --date 2026-11-03\n  runledger runs etl_orders --run "$RUN"\n  runledger runs etl_orders --run "$RUN" --logs',
    )
    .action(async (pipeline: string, opts: { date?: string; run?: string; logs?: boolean; asOf?: string; json?: boolean }) => {
      const asOf = parseAsOf(opts.asOf);
      if (opts.logs) {
        if (opts.run === undefined) throw new LedgerError('input.missingOption', '--logs prints the log file of one run; name it with --run <runId> (list runs with `runledger runs <pipeline>`)');
        if (opts.json) throw new LedgerError('input.conflictingOptions', '--logs prints the log file as it is; pass --logs or --json, not both');
        return printRunLog(ctx, pipeline, opts.run, asOf);
      }
      if (opts.run !== undefined) return printTaskGrid(ctx, pipeline, opts.run, asOf, opts.json ?? false);
      const [view, zones] = await ctx.withLedger(false, async (ledger) => [await ledger.runs({ pipeline, ...(opts.date === undefined ? {} : { date: opts.date }), ...(asOf ? { asOf } : {}) }), await pipelineZones(ledger, [pipeline])] as const);
      if (opts.json) return ctx.json(view);
      const zone = zones.get(pipeline) ?? 'UTC';
      ctx.out(
        formatTable(
          ['RUN', 'DATE', 'ATTEMPT', 'TYPE', 'STATUS', 'STARTED', 'FINISHED', 'ACTOR'],
          view.runs.map((r) => [r.runId, r.date, String(r.attempt), r.runType + (r.forced ? '+force' : ''), r.retry ? `${r.status} (retry ${r.retry.attempt}/${r.retry.of})` : r.status, inZone(r.startedAt, zone), r.finishedAt ? inZone(r.finishedAt, zone) : '-', r.actor]),
        ),
      );
    });

  program
    .command('log')
    .summary('the events of the ledger (or of one pipeline) as a timeline: when, who, what, why')
    .argument('[pipeline]', 'only this pipeline')
    .option('--date <date>', 'only the events of this date key')
    .option('--run <runId>', 'only the events of this run')
    .option('--type <types>', `only these event types, comma-separated (${Object.keys(currentSchemaVersion).join(', ')})`)
    .option('--actor <name>', 'only the events recorded by this actor')
    .option('--since <instant>', 'only events recorded at or after this instant')
    .option('--until <instant>', 'only events recorded at or before this instant')
    .option('--limit <n>', 'only the last n matching events')
    .option(...AS_OF)
    .option('--json', 'print one JSON document {"events": [...]}, written as the events are read')
    .option('--jsonl', 'print JSON Lines: one event object per line (for jq -c, streaming consumers)')
    .option('--wide', "don't cut WHAT and WHY to the terminal's width (an error shows its most telling line; --json has every field whole)")
    .addHelpText(
      'after',
      '\nExamples:\n  runledger log etl_orders --date 2026-11-04\n  runledger log --type RunCleared,PipelineRedefined --since 2026-11-01T00:00:00Z\n' +
        '  runledger log etl_orders --actor alice@etl-host --limit 20 --json\n  runledger log --jsonl | jq -c \'select(.type == "RunFailed")\'',
    )
    .action(async (pipeline: string | undefined, opts: LogOpts) => {
      // The program's own --actor (who acts) takes `log --actor` before the subcommand sees it; a query records
      // nothing, so on `log` the flag can only mean the filter.
      const actor = opts.actor ?? program.opts<{ actor?: string }>().actor;
      const input = logInput(pipeline, { ...opts, ...(actor === undefined ? {} : { actor }) });
      if (opts.json && opts.jsonl) throw new LedgerError('input.conflictingOptions', 'pass --json or --jsonl, not both');
      await ctx.withLedger(false, async (ledger) => {
        const batches = ledger.logBatches(input)[Symbol.asyncIterator]();
        // The first batch before any output: a refused filter (an unknown run) must leave stdout empty.
        let next = await batches.next();
        if (opts.jsonl) {
          for (; !next.done; next = await batches.next()) {
            ctx.deps.stdout(next.value.map((e) => `${JSON.stringify(logEntry(e))}\n`).join(''));
            // Each batch written before the next is read, so written text cannot pile up (see export).
            await ctx.flush();
          }
          return;
        }
        if (opts.json) {
          // One JSON document, written as the events stream by: the same text `JSON.stringify(…, null, 2)` gives.
          if (next.done) return ctx.json({ events: [] });
          ctx.deps.stdout('{\n  "events": [\n');
          for (let first = true; !next.done; next = await batches.next(), first = false) {
            const entries = next.value.map((e) => JSON.stringify(logEntry(e), null, 2).replace(/^/gm, '    '));
            ctx.deps.stdout(`${first ? '' : ',\n'}${entries.join(',\n')}`);
            await ctx.flush();
          }
          ctx.deps.stdout('\n  ]\n}\n');
          return;
        }
        if (next.done) return ctx.out('no events match');
        // Off a terminal the timeline is kept whole (scripts grep it for run ids and log paths); on one it fits the width.
        const table = new StreamingTable(['POS', 'WHEN', 'WHO', 'WHAT', 'WHY'], (text) => ctx.deps.stdout(text), { ...tableFit(ctx.deps.columns, opts.wide, [3, 4]), maxCell: Number.POSITIVE_INFINITY });
        // Each instant in its pipeline's zone: the zones of the pipelines a batch names, looked up once each.
        const zones = new Map<string, string>();
        for (; !next.done; next = await batches.next()) {
          const unseen = next.value.map((e) => e.data.pipeline).filter((p) => !zones.has(p));
          if (unseen.length > 0) for (const [p, zone] of await pipelineZones(ledger, unseen)) zones.set(p, zone);
          for (const e of next.value) {
            const zone = zones.get(e.data.pipeline) ?? 'UTC';
            table.add([String(e.position), inZone(e.recordedAt, zone), e.metadata.actor, describe(e, zone), e.metadata.reason ?? '']);
          }
          await ctx.flush();
        }
        table.end();
      });
    });
}

/** ` log=<path>` for an outcome that recorded its run's log file (its sha256 is in `--json`), else ''. */
function logOf(data: { log?: { path: string } | undefined }): string {
  return data.log ? ` log=${data.log.path}` : '';
}

/** The WHAT column of the timeline: a short sentence per event. */
function describe(e: RecordedEvent, zone: string): string {
  switch (e.type) {
    case 'PipelineDefined':
      return `defined ${e.data.pipeline} (${e.data.schedule} from ${e.data.start} in ${e.data.timezone})`;
    case 'PipelineRedefined':
      return `redefined ${e.data.pipeline}: ${e.data.changes.map((c) => `${c.field} ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`).join(', ')}`;
    case 'RunStarted': {
      const d = e.data;
      const notes = [d.runType, d.force ? 'forced' : '', d.offSchedule ? 'off-schedule' : '', d.takeoverOf ? `took over ${d.takeoverOf}` : ''].filter(Boolean).join(', ');
      return `started ${d.pipeline} ${d.date} attempt ${d.attempt} (${notes}) run ${d.runId}`;
    }
    case 'RunSucceeded':
      return `succeeded ${e.data.pipeline} ${e.data.date} run ${e.data.runId}${e.data.metrics && Object.keys(e.data.metrics).length > 0 ? ` ${formatMetrics(e.data.metrics)}` : ''}${logOf(e.data)}`;
    case 'RunFailed':
      return `failed ${e.data.pipeline} ${e.data.date} run ${e.data.runId}: ${tellingLine(e.data.error)}${e.data.code ? ` (${e.data.code})` : ''}${logOf(e.data)}`;
    case 'RunCleared':
      return `cleared ${e.data.pipeline} ${e.data.date} (was ${e.data.previousStatus}) run ${e.data.runId}${e.data.cause ? `, because ${e.data.cause.pipeline} ${e.data.cause.date} was cleared (event ${e.data.cause.eventId})` : ''}`;
    case 'RunHeartbeat':
      return `heartbeat ${e.data.pipeline} ${e.data.date} run ${e.data.runId}, lease until ${inZone(e.data.leaseExpiresAt, zone)}`;
    case 'RunInterrupted':
      return `interrupted ${e.data.pipeline} ${e.data.date} run ${e.data.runId} by ${e.data.by}${e.data.message ? `: ${e.data.message}` : ''} (pending: the same command resumes it)${logOf(e.data)}`;
    case 'RunAbandoned':
      return `abandoned ${e.data.pipeline} ${e.data.date} run ${e.data.runId} (${e.data.reason}${e.data.supersededBy ? `, superseded by ${e.data.supersededBy}` : ''})`;
    case 'RunMarked':
      return `marked ${e.data.pipeline} ${e.data.date} ${e.data.status} (was ${e.data.previousStatus}; no command ran) mark ${e.data.runId}`;
    case 'PipelinePaused':
      return `paused ${e.data.pipeline}: fleet runs leave it alone until unpaused`;
    case 'PipelineUnpaused':
      return `unpaused ${e.data.pipeline}`;
    case 'PipelineRetired':
      return `retired ${e.data.pipeline}: out of status, check, metrics and fleet runs; history kept`;
    case 'PipelineUnretired':
      return `brought ${e.data.pipeline} back (unretired)`;
    case 'RetryScheduled':
      return `retry of ${e.data.pipeline} ${e.data.date} after run ${e.data.runId}: attempt ${e.data.attempt} of ${e.data.maxAttempts} at ${inZone(e.data.nextAt, zone)}`;
    default: {
      // Event types added later (task states, …) read well enough from their common fields until they get a sentence.
      const data = (e as { data: Record<string, unknown> }).data;
      const task = typeof data['taskId'] === 'string' ? ` task ${data['taskId']} ${String(data['state'] ?? '')}` : '';
      const where = [data['pipeline'], data['date']].filter((x) => typeof x === 'string').join(' ');
      return `${(e as { type: string }).type} ${where}${task}${typeof data['runId'] === 'string' ? ` run ${data['runId']}` : ''}`;
    }
  }
}

