import { spawn } from 'node:child_process';
import { Option, type Command } from 'commander';
import { parseDuration } from '../../duration.js';
import { ExitCode, LedgerError } from '../../errors.js';
import type { Ledger } from '../../ledger/ledger.js';
import { commandTask, DEFAULT_KILL_GRACE_MS } from '../../runner/command-task.js';
import { groupReaper } from '../../runner/group-reaper.js';
import { blockedLine, dryRunJson, formatDryRun, formatSummary, leftAlone, nothingToDo, olderPendingNote, summaryJson } from '../../runner/format-summary.js';
import { planJob, resolveReprocess, type JobRequest } from '../../runner/plan-job.js';
import { createProgressReporter, type ProgressReporter } from '../../runner/progress-reporter.js';
import { runJob } from '../../runner/run-job.js';
import { parsePoolSizes, poolPlaces, type PoolPlaces } from '../../runner/pool-places.js';
import { collectPool } from '../parse-options.js';
import type { RunControlOptions } from '../../runner/retry-policy.js';
import { parseDelay } from './define-command.js';
import type { RunSummary } from '../../runner/run-types.js';
import { childEnvironment, knownSecrets } from '../../secrets.js';
import type { CliContext } from '../cli-context.js';
import { pausedNote } from '../../../projections/decide-control.js';
import { DEFAULT_UPSTREAM_WAIT, runFleetCommand, waitUpstreamMs } from './fleet-command.js';
import { checkLogDir, defaultLogDir } from '../run-log-dir.js';
import { commandArgv } from '../../runner/command-argv.js';
import { RunExit } from '../create-program.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';

type JobCliOptions = {
  reprocess?: string;
  force?: boolean;
  maxActiveRuns?: string;
  runBackwards?: boolean;
  continueOnFailure?: boolean;
  dryRun?: boolean;
  lease?: string;
  json?: boolean;
  passLedgerEnv?: boolean;
  /** A directory (`--logs <dir>`), false (`--no-logs`), or undefined for the default beside the ledger. */
  logs?: string | false;
  /** `--wait-upstream` alone (true) or with its timeout. */
  waitUpstream?: string | true;
  all?: boolean;
  withDownstream?: boolean;
  parallel?: string;
  retries?: string;
  retryDelay?: string;
  retryExponential?: boolean;
  maxRetryDelay?: string;
  timeout?: string;
  killGrace?: string;
  pool?: string[];
};

const EXIT_ON_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

/** The options `backfill` and `catchup` share. */
function jobOptions(command: Command, defaultReprocess: string): Command {
  return command
    .addOption(new Option('--reprocess <mode>', `none: missing, cleared, stalled and interrupted dates; failed: adds failed ones; completed: adds successful ones (default: ${defaultReprocess})`).choices(['none', 'failed', 'completed']))
    .option('--force', 'same as --reprocess completed')
    .option('--max-active-runs <n>', "run up to n dates at once (default, and ceiling: the pipeline's own --max-active-runs, which counts the live runs of every runner)")
    .option('--run-backwards', 'newest date first')
    .option('--continue-on-failure', 'keep going after a failed run (default: stop at the first failure)')
    .option('--dry-run', 'show what would run, run nothing')
    .option('--lease <duration>', "how long a run may go without a heartbeat (default: the pipeline's lease); the runner heartbeats well within it")
    .option('--retries <n>', "try a failed attempt again up to n times before the date fails (default: the pipeline's --retries, else 0)")
    .option('--retry-delay <duration>', "the pause before each retry (default: the pipeline's, else 5m)")
    .option('--retry-exponential', 'double the pause after each retry, up to --max-retry-delay')
    .option('--no-retry-exponential', "keep the pause the same, whatever the pipeline says")
    .option('--max-retry-delay <duration>', "the longest pause between retries (default: the pipeline's, else 24h)")
    .option('--timeout <duration>', "stop an attempt running longer (SIGTERM to its process group, then SIGKILL after --kill-grace) and fail it, \"timed out after <duration>\" (default: the pipeline's --timeout)")
    .option('--kill-grace <duration>', 'after SIGTERM (a timeout, a stop, or the end of a run whose command left processes behind), how long a command\'s process group gets before SIGKILL (default: 10s)')
    .option('--json', 'print one JSON document (the summary, or the plan with --dry-run)')
    .option('--logs <dir>', "keep each run's stdout and stderr in its own file under <dir> (default: <ledger file>.logs beside a SQLite ledger, ./runledger-logs with PostgreSQL)")
    .option('--no-logs', 'keep no log files (the output still reaches the terminal, and a failure still records the end of stderr)')
    .option('--wait-upstream [timeout]', `wait for the upstream dates a date waits for (define --upstream) instead of leaving it alone; gives up on it after the timeout (default: ${DEFAULT_UPSTREAM_WAIT})`)
    .option('--parallel <n>', 'with --all or --with-downstream: runs at once across every pipeline, each also within its own --max-active-runs (default: 4)')
    .option('--pool <name=n>', 'at most n runs at once of the pipelines defined with --pool <name>, across pipelines and every runner on the ledger (counted from its live runs); when places are short, higher --priority first, then the oldest date; repeat for several pools', collectPool)
    .option('--pass-ledger-env', "pass runledger's own credentials (RUNLEDGER_DB, RUNLEDGER_*TOKEN*/SECRET/PASSWORD) to the commands; by default they are removed from the commands' environment")
    .argument('[command...]', 'after --: the command to run for each date, with {date} {start} {end} {runId} filled in');
}

const HOW =
  '\nThe command runs once per date with no shell in between. {date}, {start}, {end} and {runId} are replaced\n' +
  'in every argument; the environment adds RUNLEDGER_PIPELINE, RUNLEDGER_DATE, RUNLEDGER_INTERVAL_START,\n' +
  'RUNLEDGER_INTERVAL_END, RUNLEDGER_RUN_ID, RUNLEDGER_ATTEMPT and RUNLEDGER_METRICS (a path: a JSON object\n' +
  'written there becomes the run\'s metrics). Exit 0 records a success; anything else a failure with the\n' +
  'exit status and the end of stderr. Exit codes: 0 every run succeeded (or nothing to do), 6 a run failed,\n' +
  '130/143 stopped by SIGINT/SIGTERM (running dates are recorded as interrupted and stay pending:\n' +
  'the same command resumes them).\n' +
  '\nEach run\'s stdout and stderr also go to a log file of its own, <dir>/<pipeline>/<date>_<runId>.log (mode\n' +
  '0600, known secrets replaced by [redacted]), under --logs <dir> or by default <ledger file>.logs beside a\n' +
  'SQLite ledger (./runledger-logs with a postgres:// ledger). The run\'s outcome event records the file\'s path and\n' +
  'sha256; `runledger runs <pipeline> --run <runId> --logs` prints it later. runledger never deletes log files.';

export function registerBackfillCommands(program: Command, ctx: CliContext): void {
  jobOptions(
    program
      .command('backfill')
      .summary('run a command for each date of a range that needs it')
      .description('Run a command for each date in [--from, --to] that is missing, cleared or stalled (and failed or successful ones with --reprocess), recording every start, success and failure.')
      .argument('<pipeline>', 'pipeline name')
      .requiredOption('--from <date>', 'first date of the range')
      .requiredOption('--to <date>', 'last date of the range (inclusive)')
      .option('--with-downstream', "also run every date of every downstream pipeline (define --upstream) that waits for a date of the range, in dependency order, each with its pipeline's stored command (define --command)"),
    'none',
  )
    .addHelpText('after', `${HOW}\n\nExample:\n  runledger backfill etl_orders --from 2026-11-02 --to 2026-11-04 -- sh -c 'echo {date} >> out.txt'`)
    .action(async (pipeline: string, argv: string[], opts: JobCliOptions & { from: string; to: string }) => {
      const reprocess = resolveReprocess(opts.reprocess, opts.force);
      if (opts.withDownstream) return runFleetCommand(ctx, { kind: 'backfill', pipeline, from: opts.from, to: opts.to, ...(reprocess ? { reprocess } : {}) }, opts, argv, runControlOf(opts));
      const wait = waitUpstreamMs(opts.waitUpstream);
      const request: JobRequest = { kind: 'backfill', pipeline, from: opts.from, to: opts.to, ...(reprocess ? { reprocess } : {}), ...(opts.runBackwards ? { runBackwards: true } : {}), ...(wait === undefined ? {} : { waitUpstreamMs: wait }) };
      await runJobCommand(ctx, request, opts, argv);
    });

  jobOptions(
    program
      .command('catchup')
      .summary('run a command for the due dates after the latest scheduled run (--all-pending: every pending date)')
      .description(
        "Run a command for the due, pending dates after the latest scheduled or catchup run (from the start when there is none); " +
          "with the pipeline's catchup off, only the latest due date. Older gaps are left alone, as in Airflow, unless --all-pending: " +
          'then every date `pending` lists since the start (missing, failed, cleared, interrupted, stalled) runs, oldest first, ' +
          "whatever the pipeline's catchup setting. Runs are recorded as `catchup`.",
      )
      .argument('[pipeline]', 'pipeline name (leave out with --all)')
      .option('--all-pending', 'run every pending date since the start (missing, failed, cleared, interrupted, stalled), oldest first, not only those after the latest scheduled run')
      .option('--all', "every pipeline: each one's pending due dates (older gaps included), in dependency order, each with its stored command (define --command); a date starts only after the upstream dates it waits for succeeded"),
    'failed',
  )
    .addHelpText(
      'after',
      `${HOW}\n\nAirflow's catchup never re-runs a failed run or a gap before its latest run; --all-pending does both, so after an\n` +
        'outage with failures one command finishes everything.\n\nExamples:\n' +
        "  runledger catchup etl_orders --dry-run\n  runledger catchup etl_orders --all-pending -- ./etl.sh {date}\n  runledger catchup --all --parallel 4",
    )
    .action(async (pipeline: string | undefined, argv: string[], opts: JobCliOptions & { allPending?: boolean }) => {
      const reprocess = resolveReprocess(opts.reprocess, opts.force);
      if (opts.all) {
        if (pipeline !== undefined) throw new LedgerError('input.conflictingOptions', `--all runs every pipeline; leave out '${pipeline}', or drop --all to run only it`);
        // --all already runs each pipeline's older gaps too, so --all-pending adds nothing there.
        return runFleetCommand(ctx, { kind: 'catchup', ...(reprocess ? { reprocess } : {}) }, opts, argv, runControlOf(opts));
      }
      if (pipeline === undefined) throw new LedgerError('input.whichPipeline', 'name the pipeline to catch up, e.g. runledger catchup etl_orders, or pass --all for every pipeline');
      const wait = waitUpstreamMs(opts.waitUpstream);
      const request: JobRequest = {
        kind: 'catchup',
        pipeline,
        ...(reprocess ? { reprocess } : {}),
        ...(opts.runBackwards ? { runBackwards: true } : {}),
        ...(opts.allPending ? { allPending: true } : {}),
        ...(wait === undefined ? {} : { waitUpstreamMs: wait }),
      };
      await runJobCommand(ctx, request, opts, argv);
    });
}

/** `--retries --retry-delay --retry-exponential --max-retry-delay --timeout`, over the pipeline's own; parsed before the ledger opens. */
function runControlOf(opts: JobCliOptions): RunControlOptions {
  const control: RunControlOptions = {};
  if (opts.retries !== undefined) control.retries = parseWholeNumber(opts.retries, '--retries', 0);
  if (opts.retryDelay !== undefined) control.retryDelay = parseDelay(opts.retryDelay, '--retry-delay');
  if (opts.retryExponential !== undefined) control.retryExponential = opts.retryExponential;
  if (opts.maxRetryDelay !== undefined) control.maxRetryDelay = parseDuration(opts.maxRetryDelay, '--max-retry-delay');
  if (opts.timeout !== undefined) control.timeout = parseDuration(opts.timeout, '--timeout');
  return control;
}

async function runJobCommand(ctx: CliContext, request: JobRequest, opts: JobCliOptions, argv: string[]): Promise<void> {
  const maxActiveRuns = opts.maxActiveRuns === undefined ? undefined : parseWholeNumber(opts.maxActiveRuns, '--max-active-runs', 1);
  const leaseMs = opts.lease === undefined ? undefined : parseDuration(opts.lease, '--lease');
  const killGraceMs = killGraceOf(opts);
  if (opts.parallel !== undefined) throw new LedgerError('input.conflictingOptions', '--parallel goes with --all (catchup) or --with-downstream (backfill); one pipeline keeps to --max-active-runs');
  // Parsed before the ledger opens, so a typo writes nothing.
  const control = runControlOf(opts);
  const poolSizes = parsePoolSizes(opts.pool ?? []);
  if (!opts.dryRun && argv.length === 0) argv = await storedCommand(ctx, request.pipeline);
  if (!opts.dryRun && argv.length === 0) {
    throw new LedgerError('input.missingCommand', `no command to run; put it after --, e.g. runledger ${request.kind} ${request.pipeline} … -- sh -c 'echo {date} >> out.txt' (or use --dry-run)`);
  }
  const exitCode = await ctx.withLedger(false, async (ledger) => {
    const paused = (await ledger.controls([request.pipeline])).get(request.pipeline)?.paused;
    if (paused) ctx.note(pausedNote(request.pipeline, paused));
    if (opts.dryRun) {
      const job = await planJob(ledger, request);
      if (opts.json) ctx.json(dryRunJson(job));
      else ctx.out(withLine(formatDryRun(job), blockedLine(job.pipeline, job.blocked, request.waitUpstreamMs !== undefined)));
      return ExitCode.ok;
    }
    return execute(ctx, ledger, request, opts, argv, { ...control, ...(poolSizes.size === 0 ? {} : { pools: poolPlaces(ledger, poolSizes) }), ...(maxActiveRuns === undefined ? {} : { maxActiveRuns }), ...(leaseMs === undefined ? {} : { leaseMs }), ...(killGraceMs === undefined ? {} : { killGraceMs }) });
  });
  if (exitCode !== ExitCode.ok) throw new RunExit(exitCode);
}

async function execute(ctx: CliContext, ledger: Ledger, request: JobRequest, opts: JobCliOptions, argv: string[], limits: RunControlOptions & { maxActiveRuns?: number; leaseMs?: number; killGraceMs?: number; pools?: PoolPlaces }): Promise<number> {
  const { deps } = ctx;
  // With --json, stdout carries exactly one document, so the commands' own stdout goes to stderr.
  const childStdout = opts.json ? (line: string) => deps.stderr(`${line}\n`) : (line: string) => deps.stdout(`${line}\n`);
  let reporter: ProgressReporter | undefined;
  const logDir = opts.logs === false ? undefined : (opts.logs ?? defaultLogDir(ctx.db));
  if (logDir !== undefined) await checkLogDir(logDir, opts.logs !== undefined);
  // If this process is killed (kill -9), a watchdog kills the commands' process groups.
  const reaper = groupReaper({ graceMs: limits.killGraceMs ?? DEFAULT_KILL_GRACE_MS });
  const command = commandTask({
    argv,
    spawn,
    killGrace: limits.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    reaper,
    // A negative pid signals the command's whole process group.
    kill: (pid, signal) => process.kill(pid, signal),
    // runledger's own credentials stay with runledger unless --pass-ledger-env: a child that prints its
    // environment on failure would put the ledger's password into the ledger through its stderr tail.
    env: childEnvironment(deps.env, opts.passLedgerEnv ?? false),
    ...(logDir === undefined ? {} : { logDir, secrets: knownSecrets(ctx.db, deps.env) }),
    onLogError: (run, error) => ctx.note(`runledger: the log file of ${run.pipeline} ${run.date} could not be written (${error.message}); its outcome is recorded without one`),
    onOutput: (stream, run, raw) => {
      // On a terminal, dates running at once interleave their lines: each says which date it belongs to.
      // Known secrets are replaced as in the log file and the ledger: runledger never prints one itself.
      const line = deps.isTTY ? `${run.date} | ${ledger.redact(raw)}` : ledger.redact(raw);
      if (reporter) reporter.onProgress({ kind: 'output', stream, date: run.date, line });
      else if (stream === 'stdout') childStdout(line);
      else deps.stderr(`${line}\n`);
    },
  });

  const controller = new AbortController();
  let received = 0;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      received += 1;
      if (received === 1) {
        ctx.note(`\nrunledger: ${name}: not starting more dates; stopping the running ones (send it again to kill them now)`);
        controller.abort(name);
      } else {
        command.killAll('SIGKILL');
      }
    };
    deps.signals?.on(name, handler);
    return { name, handler };
  });

  let summary: RunSummary;
  const zone = (await ledger.pipeline(request.pipeline)).definition.timezone;
  try {
    const result = await runJob(ledger, request, command.task, {
      ...limits,
      continueOnFailure: opts.continueOnFailure ?? false,
      signal: controller.signal,
      onPlanned: (job) => {
        if (job.plan.slots.length === 0) return;
        reporter = createProgressReporter({
          write: deps.stderr,
          isTTY: deps.isTTY,
          total: job.plan.slots.length,
          label: `${job.runType} ${job.pipeline}`,
          childStdout,
          zone,
        });
      },
      onProgress: (progress) => reporter?.onProgress(progress),
    });
    summary = result.summary;
    reporter?.close();
    if (opts.json) ctx.json(summaryJson(summary));
    else if (result.job.plan.slots.length === 0) ctx.out(`${nothingToDo(result.job)}\n${leftAlone(result.job.plan)}${olderPendingNote(result.job)}${blockedLine(result.job.pipeline, summary.blocked, false)}`.trimEnd());
    else ctx.out(withLine(formatSummary(summary), blockedLine(result.job.pipeline, summary.blocked, false)));
    const resumed = request.kind === 'catchup' ? summary.runs.filter((r) => r.status !== 'skipped' && (r.reason === 'stalled' || r.reason === 'interrupted' || r.reason === 'up_for_retry')) : [];
    if (resumed.length > 0) ctx.note(`runledger: resumed what a stopped runner left: ${resumed.map((r) => `${r.date} (${r.reason === 'up_for_retry' ? 'retry' : r.reason}, attempt ${r.attempt})`).join(', ')}`);
    // After runs, the dates this catchup left behind go to stderr with the other notes (stdout keeps the summary).
    const older = olderPendingNote(result.job);
    if (older !== '' && result.job.plan.slots.length > 0 && !opts.json) ctx.note(`runledger: ${older}`);
  } finally {
    reporter?.close();
    reaper.close();
    for (const { name, handler } of handlers) deps.signals?.off(name, handler);
  }

  const notStarted = summary.runs.filter((r) => r.skipReason === 'stopped' || r.skipReason === 'interrupted').length;
  if (summary.interrupted) {
    const interrupted = summary.interruptedRuns;
    ctx.note(`runledger: stopped by ${summary.interrupted}: ${interrupted} running ${interrupted === 1 ? 'date was' : 'dates were'} recorded as interrupted (pending, not failed); ${notStarted} not started. Run the same command again to resume.`);
    return summary.interrupted === 'SIGINT' ? EXIT_ON_SIGNAL.SIGINT : EXIT_ON_SIGNAL.SIGTERM;
  }
  const unrecorded = summary.runs.filter((r) => r.code === 'unrecorded').map((r) => r.date);
  if (unrecorded.length > 0 || summary.storeError !== undefined) {
    const lost = unrecorded.length === 0 ? 'every finished run was recorded' : `the outcome of ${unrecorded.join(', ')} could not be recorded (they stay running until their lease runs out)`;
    ctx.note(`runledger: the ledger could not be written${summary.storeError === undefined ? '' : ` (${summary.storeError})`}: ${lost}; fix the store, then rerun the same command (exit 1)`);
    return ExitCode.unexpected;
  }
  if (summary.failed === 0 && summary.waitingForPrevious !== null) {
    const w = summary.waitingForPrevious;
    ctx.note(`runledger: ${request.pipeline} depends on past: ${w.date} cannot run while ${w.previous ? `${w.previous} before it is ${w.status}` : 'the date before it is not done'}, so nothing after it ran (exit 3). Run or mark ${w.previous || 'that date'} first (runledger mark ${request.pipeline} ${w.previous || '<date>'} --skipped --reason "…" if it has nothing to do).`);
    return ExitCode.refused;
  }
  if (summary.failed > 0) {
    const rest = summary.stoppedAfterFailure ? ` Stopped at the first failure; ${notStarted} later ${notStarted === 1 ? 'date is' : 'dates are'} still pending: add --continue-on-failure to carry on past failures.` : '';
    ctx.note(`runledger: ${summary.failed} ${summary.failed === 1 ? 'run' : 'runs'} failed (exit 6).${rest} ${rerunHint(request)}`);
    return ExitCode.runFailed;
  }
  return ExitCode.ok;
}

/** `--kill-grace` in milliseconds, or undefined when not given (parsed before the ledger opens). */
export function killGraceOf(opts: { killGrace?: string }): number | undefined {
  return opts.killGrace === undefined ? undefined : parseDuration(opts.killGrace, '--kill-grace');
}

/** `text` with one more line at its end, or `text` as it was when the line is empty. */
function withLine(text: string, line: string): string {
  return line === '' ? text : `${text.replace(/\n?$/, '\n')}${line}\n`;
}
/** The pipeline's stored command (`define --command`) as the argv to run, or [] when it has none. */
async function storedCommand(ctx: CliContext, pipeline: string): Promise<string[]> {
  const { definition } = await ctx.withLedger(false, (ledger) => ledger.pipeline(pipeline));
  return definition.command ? commandArgv(definition.command) : [];
}

/**
 * What reruns the failed dates, by kind: a backfill's range still holds them, so the same command with
 * --reprocess failed (its default leaves failed dates alone); a catchup's next window starts after them, so
 * only --all-pending reaches back (its default already reruns failed dates).
 */
function rerunHint(request: JobRequest): string {
  if (request.kind === 'backfill') {
    return request.reprocess === 'failed' || request.reprocess === 'completed' ? 'Fix the cause and rerun the same command.' : 'Fix the cause and rerun the same command with --reprocess failed.';
  }
  if (request.allPending) return 'Fix the cause and rerun the same command.';
  return `Fix the cause and run \`runledger catchup ${request.pipeline} --all-pending -- …\` (the same command): a plain catchup starts after the latest catchup run.`;
}
