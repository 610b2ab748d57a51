import { setMaxListeners } from 'node:events';
import type { Command } from 'commander';
import type { PipelineDefinition } from '../../../events/pipeline-definition.js';
import { parseDuration } from '../../duration.js';
import { ExitCode } from '../../errors.js';
import { DEFAULT_KILL_GRACE_MS, type CommandTask } from '../../runner/command-task.js';
import { formatDuration } from '../../runner/format-summary.js';
import { groupReaper } from '../../runner/group-reaper.js';
import type { RunTask } from '../../runner/run-types.js';
import { runScheduler, type SchedulerEvent } from '../../scheduler/run-scheduler.js';
import type { CliContext } from '../cli-context.js';
import { fleetCommandTask } from '../fleet-command-task.js';
import { RunExit } from '../create-program.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';
import { checkLogDir, defaultLogDir } from '../run-log-dir.js';
import { parsePoolSizes } from '../../runner/pool-places.js';

/** How many commands' tasks the scheduler keeps at most (one per distinct command; 10,000 pipelines running `true` share one). */
const MAX_KEPT_TASKS = 4096;
import { collectPool } from '../parse-options.js';

/** How long a stopped scheduler waits for its runs in flight before it interrupts them. */
const DEFAULT_DRAIN = '5m';

type SchedulerCliOptions = { pool?: string[]; once?: boolean; parallel?: string; drain: string; killGrace?: string; lease?: string; json?: boolean; logs?: string | false; passLedgerEnv?: boolean };

export function registerSchedulerCommand(program: Command, ctx: CliContext): void {
  program
    .command('scheduler')
    .summary('run every pipeline with a command on its timetable, unattended (--once: one pass, for cron)')
    .description(
      "Runs each pipeline defined with a command (define --command), or the named ones, on its timetable: every date " +
        "as it falls due (with catchup on, every missed date oldest first, as catchup --all does; with it off, the latest), " +
        "in dependency order behind the upstream dates it waits for, with the pipeline's retries, timeout, depends-on-past " +
        'and max-active-runs. Runs are recorded as scheduled runs. Between passes it sleeps until the next date falls due or ' +
        'the next retry\'s time, and wakes at once when another process changes the ledger. Each pass takes over what a ' +
        'stopped or killed runner left: stalled runs, retries whose time came, interrupted dates. One line per run started ' +
        'and ended (--json: JSON lines).\n\n' +
        `SIGTERM or SIGINT: start nothing new, wait up to --drain (default ${DEFAULT_DRAIN}) for the runs in flight, then stop ` +
        'them (recorded as interrupted; the next start resumes them); a second signal stops them at once. Exit 0 once ' +
        'stopped. With --once: exit 0 when every run of the pass succeeded, 6 when one failed.\n\n' +
        'A command runs in its own process group; a timeout, the end of a drain or the end of its run stops the whole group ' +
        '(SIGTERM, then SIGKILL after --kill-grace), and if the scheduler itself is killed (kill -9) a watchdog process ' +
        'stops them within the grace.',
    )
    .argument('[pipelines...]', 'only these pipelines (default: every pipeline with a command)')
    .option('--once', 'one pass: run everything due now, then exit (for cron, CI and --now)')
    .option('--parallel <n>', 'runs at once across every pipeline, each also within its own --max-active-runs (default: 4)')
    .option('--pool <name=n>', 'at most n runs at once of the pipelines defined with --pool <name>, across pipelines and every scheduler on the ledger (counted from its live runs); when places are short, higher --priority first, then the oldest date; repeat for several pools', collectPool)
    .option('--drain <duration>', 'on SIGTERM or SIGINT, how long the runs in flight may take to finish before they are stopped', DEFAULT_DRAIN)
    .option('--kill-grace <duration>', "after SIGTERM, how long a command's process group gets before SIGKILL (default: 10s)")
    .option('--lease <duration>', "how long a run may go without a heartbeat (default: the pipeline's lease)")
    .option('--json', 'one JSON document per line: started, ended, retry, skipped, pass and sleep events')
    .option('--logs <dir>', "keep each run's stdout and stderr in its own file under <dir> (default: <ledger file>.logs beside a SQLite ledger, ./runledger-logs with PostgreSQL)")
    .option('--no-logs', 'keep no log files')
    .option('--pass-ledger-env', "pass runledger's own credentials (RUNLEDGER_DB, RUNLEDGER_*TOKEN*/SECRET/PASSWORD) to the commands")
    .addHelpText(
      'after',
      '\nExamples:\n  runledger scheduler --parallel 8\n  runledger scheduler orders_raw sales_report --json\n' +
        '  */5 * * * * runledger scheduler --once    # from cron, instead of a long-running service',
    )
    .action(async (pipelines: string[], opts: SchedulerCliOptions) => runSchedulerCommand(ctx, pipelines, opts));
}

async function runSchedulerCommand(ctx: CliContext, pipelines: string[], opts: SchedulerCliOptions): Promise<void> {
  // Every option is read before the ledger opens, so a typo writes nothing.
  const parallel = opts.parallel === undefined ? undefined : parseWholeNumber(opts.parallel, '--parallel', 1);
  const drainMs = parseDuration(opts.drain, '--drain');
  const pools = parsePoolSizes(opts.pool ?? []);
  const killGraceMs = opts.killGrace === undefined ? DEFAULT_KILL_GRACE_MS : parseDuration(opts.killGrace, '--kill-grace');
  const leaseMs = opts.lease === undefined ? undefined : parseDuration(opts.lease, '--lease');
  const logDir = opts.logs === false ? undefined : (opts.logs ?? defaultLogDir(ctx.db));
  if (logDir !== undefined) await checkLogDir(logDir, opts.logs !== undefined);
  const { deps } = ctx;

  const drain = new AbortController();
  const interrupt = new AbortController();
  // Every run in flight listens to both (64 at once with --parallel 64): no "possible EventTarget memory leak" warning.
  setMaxListeners(0, drain.signal, interrupt.signal);
  let drainTimer: NodeJS.Timeout | undefined;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      if (!drain.signal.aborted) {
        ctx.note(`runledger: ${name}: starting nothing new; waiting up to ${opts.drain} for the runs in flight, then stopping them (send it again to stop them now)`);
        drain.abort(name);
        drainTimer = setTimeout(() => interrupt.abort(name), drainMs);
      } else if (!interrupt.signal.aborted) {
        ctx.note(`runledger: ${name} again: stopping the runs in flight now (recorded as interrupted; the next start resumes them)`);
        interrupt.abort(name);
      }
    };
    deps.signals?.on(name, handler);
    return { name, handler };
  });

  const reaper = groupReaper({ graceMs: killGraceMs });
  /** The task of each command, shared by every pipeline that runs it (a task holds nothing of one pipeline). */
  const tasks = new Map<string, CommandTask>();
  let failed = 0;
  try {
    await ctx.withLedger(false, async (ledger) => {
      // One setup for every task: the commands' environment is made once, not copied per pipeline (10,000 copies held ~30 MB).
      const setup = { ctx, passLedgerEnv: opts.passLedgerEnv ?? false, killGraceMs, reaper, logDir };
      const taskFor = (definition: PipelineDefinition): RunTask | null => {
        if (!definition.command) return null;
        const key = JSON.stringify(definition.command);
        const known = tasks.get(key);
        if (known) return known.task;
        // Commands no pipeline runs any more are dropped now and then; a run in flight keeps its own task.
        if (tasks.size >= MAX_KEPT_TASKS) tasks.clear();
        // The commands' own output goes to stderr: stdout is the scheduler's one line per run.
        const task = fleetCommandTask(setup, definition.command, (_stream, run, raw) => deps.stderr(`${run.pipeline} ${run.date} | ${ledger.redact(raw)}\n`));
        tasks.set(key, task);
        return task.task;
      };
      const summary = await runScheduler(ledger, {
        ...(pipelines.length > 0 ? { pipelines } : {}),
        taskFor,
        ...(parallel === undefined ? {} : { parallel }),
        ...(pools.size === 0 ? {} : { pools }),
        ...(opts.once ? { once: true } : {}),
        drain: drain.signal,
        interrupt: interrupt.signal,
        killGraceMs,
        ...(leaseMs === undefined ? {} : { leaseMs }),
        onEvent: (event) => {
          if (opts.json) deps.stdout(`${JSON.stringify(event)}\n`);
          else {
            const line = eventLine(event);
            if (line !== null) deps.stdout(`${line}\n`);
          }
        },
      });
      failed = summary.failed;
    });
  } finally {
    clearTimeout(drainTimer);
    reaper.close();
    for (const { name, handler } of handlers) deps.signals?.off(name, handler);
  }
  if (opts.once && failed > 0) throw new RunExit(ExitCode.runFailed);
}

/** The readable line of an event (null: said in the JSON lines only). */
function eventLine(e: SchedulerEvent): string | null {
  switch (e.event) {
    case 'started':
      return `${e.at} started ${e.pipeline} ${e.date} attempt ${e.attempt} (run ${e.runId})`;
    case 'ended': {
      const what = e.status === 'success' ? 'succeeded' : e.status;
      const why = e.error ? `: ${e.error.split('\n')[0]}` : '';
      return `${e.at} ${what} ${e.pipeline} ${e.date}${e.attempt === null ? '' : ` attempt ${e.attempt}`} in ${formatDuration(e.durationMs)}${why}`;
    }
    case 'retry':
      return `${e.at} failed ${e.pipeline} ${e.date} attempt ${e.attempt - 1}, retry ${e.attempt} of ${e.of} at ${e.nextAt}: ${e.error.split('\n')[0]}`;
    case 'skipped':
      return `${e.at} left ${e.pipeline} ${e.date}: ${e.note}`;
    case 'pass': {
      const without = e.withoutCommand.length > 0 ? `; no command (define --command): ${e.withoutCommand.join(', ')}` : '';
      return `${e.at} pass: ${e.started} started, ${e.succeeded} succeeded, ${e.failed} failed${without}`;
    }
    case 'note':
      return `${e.at} ${e.text}`;
    case 'sleep':
      return null;
    default: {
      const unknown: never = e;
      return String(unknown);
    }
  }
}
