import { Command, Option } from 'commander';
import { pausedText, retiredText } from '../../../projections/pipeline-control.js';
import { timetableHistoryText } from '../../../projections/views/timetable-history-text.js';
import { canonicalJson } from '../../../events/canonical-json.js';
import { formatBytes, MAX_RECORDED_TEXT_BYTES } from '../../../events/limits.js';
import { parseDuration } from '../../duration.js';
import { isLedgerError, LedgerError } from '../../errors.js';
import { formatLag } from '../../../projections/views/format-lag.js';
import type { PipelineCommand, Upstream } from '../../../events/pipeline-definition.js';
import { buildDefinition, checkPoolName, checkPriority, completeDefinitionInput, parseOpenLineageJob, parseUpstream, type DefineChanges } from '../../ledger/build-definition.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';
import { parseByteSize } from '../parse-options.js';
import { readTasksFile } from '../read-tasks-file.js';
import { warnAboutMaskingLeaves } from './task-commands.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';

export function registerDefineCommands(program: Command, ctx: CliContext): void {
  program
    .command('define')
    .summary('define a pipeline, or change its definition')
    .description(
      'Define a pipeline and its timetable. On a pipeline that exists, only the options you give change; ' +
        'the rest keep their values (start and end keep their instants). A change is recorded as a ' +
        'PipelineRedefined event with the diff; options that change nothing record nothing. A change of ' +
        '--schedule, --tz, --start or --timetable on a pipeline with recorded dates takes effect from an instant ' +
        '(--effective now, or a date or instant): dates before it keep the timetable they were made under, with ' +
        'their states, and dates from it on follow the new one. Without --effective such a change applies to the ' +
        'whole history, and is refused when it would re-key or drop a recorded date. Other options (retries, ' +
        'timeout, SLA, upstreams, command, …) never need --effective.',
    )
    .argument('<pipeline>', 'pipeline name: lowercase letters, digits, _ . -')
    .option('--schedule <spec>', "@hourly, @daily, @weekly, @monthly, @quarterly, @yearly, a five-field cron ('0 2 * * *', '0 3 L * *', '0 0 * * 5L', '0 0 * * 1#1') or 'every 6h' (needed the first time)")
    .option('--start <date>', 'first slot bound: YYYY-MM-DD (local midnight in --tz) or an RFC 3339 instant (needed the first time)')
    .option('--end <date>', 'last slot bound, inclusive (as in Airflow); none by default')
    .option('--tz <zone>', 'IANA time zone the schedule is evaluated in (default: UTC)')
    .option('--effective <instant|now>', 'with a change of --schedule, --tz, --start or --timetable: from when it holds (now, a date at midnight in --tz, or an RFC 3339 instant); dates before it keep the old timetable')
    .addOption(new Option('--timetable <kind>', 'interval: slots cover [tick, next tick); trigger: zero-width slots (default: interval)').choices(['interval', 'trigger']))
    .option('--catchup', 'catchup runs every pending due slot (the default)')
    .option('--no-catchup', 'catchup runs only the latest due slot (older gaps still show in pending)')
    .option('--max-active-runs <n>', 'live runs of this pipeline at once across every runner on the ledger; backfill and catchup wait for a free place (default: 1)')
    .option('--lease <duration>', 'how long a started run may go without a heartbeat before it counts as stalled (default: 1h)')
    .option('--freshness <duration>', 'how far behind the data may fall before `check` reports it, e.g. 1d or 36h (lag: now minus the end of the complete-through date)')
    .option('--no-freshness', 'drop the freshness of a pipeline defined with --freshness')
    .option('--tasks <file.json>', 'task-level state, each task with its upstream tasks and trigger rule: {"tasks": [{"id": "extract"}, {"id": "load", "upstream": ["extract"], "triggerRule": "all_success"}]}')
    .option('--no-tasks', 'drop the task list of a pipeline defined with --tasks')
    .option('--openlineage <namespace/job>', "fill the pipeline from this OpenLineage job's run events (`serve`'s /api/v1/lineage, `ingest openlineage`), e.g. default/<dag_id>")
    .option('--no-openlineage', 'unbind the OpenLineage job')
    .option('--max-metrics-bytes <size>', "the most a run's metrics may take as canonical JSON, e.g. 1MB; a larger success is refused (a backfill's run fails with the reason) (default: 64KB; at most 16MB)")
    .option('--max-error-bytes <size>', "the most a failure's error text may take, e.g. 8KB; a longer one is refused, and the runner and OpenLineage cut theirs to fit (default: 64KB; at most 16MB)")
    .option('--upstream <pipeline[:previous]>', "wait for another pipeline's dates: each date waits for every slot of <pipeline> whose data interval overlaps its own (by instant, whatever the zones), or with :previous for the slot before those; repeat for several; on a redefinition the list given replaces the old one", collectUpstream)
    .option('--no-upstreams', 'drop every upstream of a pipeline defined with --upstream')
    .option('--command', "store the command after -- as the pipeline's own (argv, no shell): `catchup --all` runs it, and `catchup`/`backfill` use it when no command follows --")
    .option('--no-command', 'drop the stored command')
    .option('--shell', 'with --command: run the stored words through sh -c (for pipes and redirections)')
    .option('--retries <n>', 'try a failed attempt of backfill/catchup again up to n times before the date fails (default: 0)')
    .option('--retry-delay <duration>', 'the pause before each retry, e.g. 5m (default: 5m)')
    .option('--retry-exponential', 'double the pause after each retry, up to --max-retry-delay')
    .option('--no-retry-exponential', 'keep the pause between retries the same')
    .option('--max-retry-delay <duration>', 'the longest pause between retries (default: 24h)')
    .option('--timeout <duration>', 'stop an attempt that runs longer (SIGTERM, then SIGKILL after a grace period) and fail it with "timed out after <duration>"')
    .option('--no-timeout', 'drop the timeout')
    .option('--depends-on-past', 'run a date only after the slot before it succeeded or was skipped')
    .option('--no-depends-on-past', 'run dates whatever the slot before them did (the default)')
    .option('--sla <duration>', 'a date not done by its run-after plus this is late (`notify --on late`), e.g. 2h')
    .option('--no-sla', 'drop the SLA')
    .option('--pool <name>', 'take a place in this pool: scheduler, catchup --all and backfill given --pool <name>=N start at most N runs of its pipelines at once, counted from the ledger (changes no slot)')
    .option('--no-pool', 'leave the pool')
    .option('--priority <n>', 'when places are short (a pool, --parallel), higher starts first, then the oldest date; a whole number, may be negative (default: 1, as Airflow\'s priority_weight)')
    .argument('[command...]', 'after --command --: the command and its arguments; {date} {start} {end} {runId} are filled in per run')
    .option('--reason <text>', 'why, recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger define etl_orders --schedule @daily --start 2026-11-02 --tz Asia/Jakarta\n' +
        '  runledger define sales_report --schedule @daily --start 2026-11-02 --upstream orders_raw --command -- python report.py --day {date}\n' +
        '  runledger define etl_orders --retries 3 --retry-delay 5m --retry-exponential --timeout 2h\n' +
        '  runledger define etl_orders --depends-on-past --sla 2h\n' +
        "  runledger define etl_orders --tz Europe/Berlin --schedule '0 6 * * *' --effective now\n" +
        '  runledger define etl_orders --pool warehouse --priority 10\n' +
        '  runledger define etl_orders --no-catchup --reason "only the latest day matters now"\n' +
        '  runledger define etl_orders --freshness 1d12h\n' +
        '  runledger define etl_orders --max-metrics-bytes 1MB --max-error-bytes 8KB\n' +
        "  runledger define airflow_orders --schedule '0 0 * * *' --start 2026-11-02 --openlineage default/airflow_orders",
    )
    .action(async (pipeline: string, argv: string[], opts: { upstream?: string[]; upstreams?: boolean; command?: boolean; shell?: boolean; schedule?: string; start?: string; end?: string; tz?: string; timetable?: 'interval' | 'trigger'; catchup?: boolean; maxActiveRuns?: string; lease?: string; freshness?: string | false; tasks?: string | false; openlineage?: string | false; maxMetricsBytes?: string; maxErrorBytes?: string; reason?: string; json?: boolean; effective?: string } & RunControlOpts, command: Command) => {
      const given = (name: string) => command.getOptionValueSource(name) === 'cli';
      const input: DefineChanges & { reason?: string } = { pipeline };
      if (opts.schedule !== undefined) input.schedule = opts.schedule;
      if (opts.start !== undefined) input.start = opts.start;
      if (opts.end !== undefined) input.end = opts.end;
      if (opts.tz !== undefined) input.timezone = opts.tz;
      if (opts.timetable !== undefined) input.timetable = opts.timetable;
      if (given('catchup') && opts.catchup !== undefined) input.catchup = opts.catchup;
      if (opts.maxActiveRuns !== undefined) input.maxActiveRuns = parseWholeNumber(opts.maxActiveRuns, '--max-active-runs', 1);
      if (opts.lease !== undefined) input.leaseMs = parseDuration(opts.lease, '--lease');
      if (typeof opts.freshness === 'string') input.freshnessMs = parseDuration(opts.freshness, '--freshness');
      if (opts.freshness === false) input.freshnessMs = null;
      if (typeof opts.tasks === 'string') input.tasks = readTasksFile(opts.tasks);
      if (opts.tasks === false) input.tasks = null;
      if (typeof opts.openlineage === 'string') input.openlineage = parseOpenLineageJob(opts.openlineage);
      if (opts.openlineage === false) input.openlineage = null;
      if (opts.maxMetricsBytes !== undefined) input.maxMetricsBytes = parseByteSize(opts.maxMetricsBytes, '--max-metrics-bytes');
      if (opts.maxErrorBytes !== undefined) input.maxErrorBytes = parseByteSize(opts.maxErrorBytes, '--max-error-bytes');
      if (opts.upstream !== undefined) input.upstreams = opts.upstream.map(parseUpstream);
      if (opts.upstreams === false) {
        if (opts.upstream !== undefined) throw new LedgerError('input.conflictingOptions', 'pass --upstream or --no-upstreams, not both');
        input.upstreams = null;
      }
      Object.assign(input, commandChange(opts, argv, given('command')));
      Object.assign(input, runControlInput(opts, given));
      if (opts.reason !== undefined) input.reason = opts.reason;
      if (opts.effective !== undefined) input.effective = opts.effective;
      // A complete definition is validated before opening, so bad input never even creates the ledger
      // file; a partial one changes an existing pipeline, so the ledger must already be there.
      const complete = input.schedule !== undefined && input.start !== undefined;
      if (complete) buildDefinition(completeDefinitionInput(null, input));
      // The library's names: durations as `lease`, `retryDelay`, … (milliseconds are one of their forms).
      const { leaseMs, freshnessMs, retryDelayMs, maxRetryDelayMs, timeoutMs, slaMs, ...rest } = input;
      const durations = { lease: leaseMs, freshness: freshnessMs, retryDelay: retryDelayMs, maxRetryDelay: maxRetryDelayMs, timeout: timeoutMs, sla: slaMs };
      const options = { ...rest, ...Object.fromEntries(Object.entries(durations).filter(([, ms]) => ms !== undefined)) };
      const result = await ctx.withLedger(complete, (ledger) => ledger.define(options)).catch((error: unknown) => {
        // No ledger yet means no pipeline yet: completing the input throws input.missingOption, which says what a first definition needs.
        if (!complete && isLedgerError(error) && error.code === 'notFound.ledger') completeDefinitionInput(null, input);
        throw error;
      });
      if (opts.json) return ctx.json(result.definition.tasks ? { ...result, warnings: warnAboutMaskingLeaves(ctx, result.definition) } : result);
      const d = result.definition;
      // The lint warns after the summary, and on every define, so a pipeline that still masks failures keeps saying so.
      if (result.outcome === 'unchanged') {
        ctx.out(`${pipeline} is already defined like this; nothing recorded`);
        return void warnAboutMaskingLeaves(ctx, d);
      }
      ctx.out(`${result.outcome} ${pipeline}: ${d.schedule} (${d.timetable}) in ${d.timezone} from ${d.start}${d.end ? ` to ${d.end}` : ''}, catchup ${d.catchup ? 'on' : 'off'}${d.freshnessMs === undefined ? '' : `, freshness ${formatLag(d.freshnessMs)}`}${sizeCaps(d)}${runControl(d)}`);
      if (d.openlineage && result.outcome === 'defined') ctx.out(`  filled from OpenLineage job ${d.openlineage.namespace}/${d.openlineage.job}`);
      if (d.upstreams && result.outcome === 'defined') ctx.out(`  upstreams: ${describeUpstreams(d.upstreams)}`);
      if (d.command && result.outcome === 'defined') ctx.out(`  command: ${describeCommand(d.command)}`);
      if (d.tasks && result.outcome === 'defined') ctx.out(`  tasks: ${d.tasks.map((t) => (t.upstream.length > 0 ? `${t.id} (after ${t.upstream.join(', ')})` : t.id)).join(', ')}`);
      for (const change of result.changes) if (change.field !== 'earlierTimetables') ctx.out(`  ${change.field}: ${describeChange(change)}`);
      if (result.effective) {
        const { at, lastOld, firstNew } = result.effective;
        ctx.out(`  from ${at}: ${lastOld === null ? 'no date falls under the old timetable' : `${lastOld} is the last date under the old timetable`}, ${firstNew === null ? 'and none under the new one' : `${firstNew} the first under the new one`}`);
      }
      const history = timetableHistoryText(d);
      if (history !== null && result.outcome === 'redefined') ctx.out(`  timetables: ${history}`);
      warnAboutMaskingLeaves(ctx, d);
    });

  program
    .command('pipelines')
    .summary('list the pipelines of the ledger')
    .option('--lint', 'warn (on stderr) about leaf tasks whose trigger rule can hide an upstream failure')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  runledger pipelines\n  runledger pipelines --lint --json')
    .action(async (opts: { lint?: boolean; json?: boolean }) => {
      const [pipelines, controls] = await ctx.withLedger(false, async (ledger) => [await ledger.pipelines(), await ledger.controls()] as const);
      const warnings = opts.lint ? pipelines.flatMap((p) => warnAboutMaskingLeaves(ctx, p).map((w) => ({ pipeline: p.pipeline, ...w }))) : [];
      if (opts.lint && warnings.length === 0) ctx.note('runledger: lint: no leaf task can hide an upstream failure');
      if (opts.json) return ctx.json(opts.lint ? { pipelines, warnings } : { pipelines });
      if (pipelines.length === 0) return ctx.out('no pipelines yet; define one with `runledger define`');
      // The OpenLineage column only when some pipeline is bound, so ledgers without bindings look as before.
      const bound = pipelines.some((p) => p.openlineage);
      // The history column only when some pipeline changed timetable from an instant.
      const changed = pipelines.some((p) => timetableHistoryText(p) !== null);
      // The run-control column only when some pipeline is paused or retired.
      const controlled = controls.size > 0;
      const controlOf = (name: string) => {
        const c = controls.get(name);
        return c?.retired ? retiredText(c.retired) : c?.paused ? pausedText(c.paused) : 'active';
      };
      ctx.out(
        formatTable(
          ['PIPELINE', 'SCHEDULE', 'TIMETABLE', 'ZONE', 'START', 'END', 'CATCHUP', ...(bound ? ['OPENLINEAGE JOB'] : []), ...(changed ? ['TIMETABLES OVER TIME'] : []), ...(controlled ? ['RUN CONTROL'] : [])],
          pipelines.map((p) => [
            p.pipeline,
            p.schedule,
            p.timetable,
            p.timezone,
            p.start,
            p.end ?? '-',
            p.catchup ? 'on' : 'off',
            ...(bound ? [p.openlineage ? `${p.openlineage.namespace}/${p.openlineage.job}` : '-'] : []),
            ...(changed ? [timetableHistoryText(p) ?? '-'] : []),
            ...(controlled ? [controlOf(p.pipeline)] : []),
          ]),
        ),
      );
    });
}

type TaskLike = { id: string };

/** One line per changed field; a task list is summarised by task id rather than printed whole. */
function describeChange(change: { field: string; from: unknown; to: unknown }): string {
  if (['freshnessMs', 'leaseMs', 'retryDelayMs', 'maxRetryDelayMs', 'timeoutMs', 'slaMs'].includes(change.field)) {
    const words = (ms: unknown) => (typeof ms === 'number' ? formatLag(ms) : 'none');
    return `${words(change.from)} -> ${words(change.to)}`;
  }
  if (change.field === 'upstreams') return `${describeUpstreams(change.from)} -> ${describeUpstreams(change.to)}`;
  if (change.field === 'command') return `${describeCommand(change.from)} -> ${describeCommand(change.to)}`;
  if (change.field === 'openlineage') return `${jobOrNone(change.from)} -> ${jobOrNone(change.to)}`;
  if (change.field === 'maxMetricsBytes' || change.field === 'maxErrorBytes') {
    const size = (bytes: unknown) => formatBytes(typeof bytes === 'number' ? bytes : MAX_RECORDED_TEXT_BYTES);
    return `${size(change.from)} -> ${size(change.to)}`;
  }
  if (change.field !== 'tasks') return `${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`;
  const before = new Map(((change.from ?? []) as TaskLike[]).map((t) => [t.id, canonicalJson(t)]));
  const after = new Map(((change.to ?? []) as TaskLike[]).map((t) => [t.id, canonicalJson(t)]));
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const changed = [...after.keys()].filter((id) => before.has(id) && before.get(id) !== after.get(id));
  const parts = [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : '', changed.length ? `changed ${changed.join(', ')}` : ''];
  return parts.filter(Boolean).join('; ') || 'reordered';
}

type RunControlOpts = {
  retries?: string;
  retryDelay?: string;
  retryExponential?: boolean;
  maxRetryDelay?: string;
  timeout?: string | false;
  dependsOnPast?: boolean;
  sla?: string | false;
  pool?: string | false;
  priority?: string;
};

/** The run-control options given on the command line, as `define` takes them (a `--no-…` drops the setting). */
function runControlInput(opts: RunControlOpts, given: (name: string) => boolean): Partial<DefineChanges> {
  const input: Partial<DefineChanges> = {};
  if (opts.retries !== undefined) input.retries = parseWholeNumber(opts.retries, '--retries', 0);
  if (opts.retryDelay !== undefined) input.retryDelayMs = parseDelay(opts.retryDelay, '--retry-delay');
  if (given('retryExponential') && opts.retryExponential !== undefined) input.retryExponential = opts.retryExponential ? true : null;
  if (opts.maxRetryDelay !== undefined) input.maxRetryDelayMs = parseDuration(opts.maxRetryDelay, '--max-retry-delay');
  if (typeof opts.timeout === 'string') input.timeoutMs = parseDuration(opts.timeout, '--timeout');
  if (opts.timeout === false) input.timeoutMs = null;
  if (given('dependsOnPast') && opts.dependsOnPast !== undefined) input.dependsOnPast = opts.dependsOnPast ? true : null;
  if (typeof opts.sla === 'string') input.slaMs = parseDuration(opts.sla, '--sla');
  if (opts.sla === false) input.slaMs = null;
  if (typeof opts.pool === 'string') input.pool = checkPoolName(opts.pool, '--pool');
  if (opts.pool === false) input.pool = null;
  if (opts.priority !== undefined) input.priority = parsePriority(opts.priority);
  return input;
}

/** `--priority`: a whole number, negative allowed. */
function parsePriority(text: string): number {
  if (!/^[-+]?\d+$/.test(text.trim())) throw new LedgerError('input.invalidPriority', `--priority must be a whole number (higher starts first), not '${text}'`);
  return checkPriority(Number(text), '--priority');
}

/** A pause that may be zero (`0`, `0s`: retry at once), else a duration. */
export function parseDelay(text: string, what: string): number {
  return /^\s*0+(ms|s|m|h|d)?\s*$/.test(text) ? 0 : parseDuration(text, what);
}

/** `, 3 retries every 5m (exponential, at most 1h), timeout 2h, depends on past, SLA 2h` for what a definition sets. */
function runControl(d: { pool?: string | undefined; priority?: number | undefined; retries?: number | undefined; retryDelayMs?: number | undefined; retryExponential?: true | undefined; maxRetryDelayMs?: number | undefined; timeoutMs?: number | undefined; dependsOnPast?: true | undefined; slaMs?: number | undefined }): string {
  const parts: string[] = [];
  if (d.retries !== undefined) {
    const delay = d.retryDelayMs === undefined ? '5m' : d.retryDelayMs === 0 ? '0s' : formatLag(d.retryDelayMs);
    const growth = d.retryExponential ? ` (exponential${d.maxRetryDelayMs === undefined ? '' : `, at most ${formatLag(d.maxRetryDelayMs)}`})` : '';
    parts.push(`${d.retries} ${d.retries === 1 ? 'retry' : 'retries'} after ${delay}${growth}`);
  }
  if (d.timeoutMs !== undefined) parts.push(`timeout ${formatLag(d.timeoutMs)}`);
  if (d.dependsOnPast) parts.push('depends on past');
  if (d.slaMs !== undefined) parts.push(`SLA ${formatLag(d.slaMs)}`);
  if (d.pool !== undefined) parts.push(`pool ${d.pool}`);
  if (d.priority !== undefined) parts.push(`priority ${d.priority}`);
  return parts.map((p) => `, ${p}`).join('');
}

/** `, metrics up to 1 MB, errors up to 8 KB` for the caps a definition sets; nothing on the defaults. */
function sizeCaps(d: { maxMetricsBytes?: number | undefined; maxErrorBytes?: number | undefined }): string {
  return `${d.maxMetricsBytes === undefined ? '' : `, metrics up to ${formatBytes(d.maxMetricsBytes)}`}${d.maxErrorBytes === undefined ? '' : `, errors up to ${formatBytes(d.maxErrorBytes)}`}`;
}

function jobOrNone(value: unknown): string {
  const job = value as { namespace: string; job: string } | null;
  return job ? `${job.namespace}/${job.job}` : 'none';
}

/** Commander's collector for the repeatable --upstream. */
function collectUpstream(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The command change `define` asks for: `--command -- argv…` stores it, `--no-command` drops it, neither leaves it. */
function commandChange(opts: { command?: boolean; shell?: boolean }, argv: string[], given: boolean): { command?: PipelineCommand | null } {
  if (given && opts.command === false) {
    if (argv.length > 0) throw new LedgerError('input.conflictingOptions', 'pass --command -- <words> or --no-command, not both');
    return { command: null };
  }
  if (given && opts.command === true) {
    if (argv.length === 0) throw new LedgerError('input.invalidCommand', 'define --command needs the command after --, e.g. runledger define etl_orders --command -- python load.py --date {date}');
    return { command: { argv, ...(opts.shell ? { shell: true } : {}) } };
  }
  if (argv.length > 0) throw new LedgerError('input.unexpectedArgument', `define takes one pipeline name; to store '${argv.join(' ')}' as its command, write --command -- ${argv.join(' ')}`);
  if (opts.shell) throw new LedgerError('input.conflictingOptions', '--shell goes with --command -- <words>');
  return {};
}

/** `orders_raw, calendar:previous`, or `none`. */
function describeUpstreams(value: unknown): string {
  const list = (value ?? []) as Upstream[];
  return list.length === 0 ? 'none' : list.map((u) => (u.mapping === 'overlap' ? u.pipeline : `${u.pipeline}:${u.mapping}`)).join(', ');
}

/** The stored command as one would type it (`sh -c '…'` with --shell), or `none`. */
function describeCommand(value: unknown): string {
  const command = value as PipelineCommand | null | undefined;
  if (!command) return 'none';
  const words = command.argv.map((w) => (/^[\w@%+=:,./{}-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(' ');
  return command.shell ? `sh -c ${JSON.stringify(command.argv.join(' '))}` : words;
}
