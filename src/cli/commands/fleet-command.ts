import { ExitCode, LedgerError } from '../../errors.js';
import { DEFAULT_KILL_GRACE_MS, type CommandTask } from '../../runner/command-task.js';
import { groupReaper } from '../../runner/group-reaper.js';
import { dryRunJson, formatDuration, summaryJson } from '../../runner/format-summary.js';
import { planFleet, runFleet, type FleetRequest, type FleetSummary, type PausedPipeline } from '../../runner/run-fleet.js';
import { pausedText } from '../../../projections/pipeline-control.js';
import type { CliContext } from '../cli-context.js';
import { fleetCommandTask } from '../fleet-command-task.js';
import { RunExit } from '../create-program.js';
import { formatTable } from '../../format/format-table.js';
import { parseDuration } from '../../duration.js';
import { checkLogDir, defaultLogDir } from '../run-log-dir.js';
import type { RunControlOptions } from '../../runner/retry-policy.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';
import { parsePoolSizes, poolPlaces } from '../../runner/pool-places.js';

/** How long `--wait-upstream` without a value waits for upstream dates. */
export const DEFAULT_UPSTREAM_WAIT = '1h';

/** `--wait-upstream [timeout]` in milliseconds, or undefined when not given. */
export function waitUpstreamMs(value: string | true | undefined): number | undefined {
  if (value === undefined) return undefined;
  return parseDuration(value === true ? DEFAULT_UPSTREAM_WAIT : value, '--wait-upstream');
}

type FleetCliOptions = {
  parallel?: string;
  waitUpstream?: string | true;
  lease?: string;
  json?: boolean;
  dryRun?: boolean;
  logs?: string | false;
  passLedgerEnv?: boolean;
  maxActiveRuns?: string;
  runBackwards?: boolean;
  continueOnFailure?: boolean;
  killGrace?: string;
  pool?: string[];
};

/**
 * `catchup --all` and `backfill … --with-downstream`: every pipeline's dates in dependency order, each
 * pipeline with its stored command. Exit 0 when every run succeeded, 6 when one failed.
 */
export async function runFleetCommand(ctx: CliContext, request: FleetRequest, opts: FleetCliOptions, argv: string[], control: RunControlOptions = {}): Promise<void> {
  if (argv.length > 0) {
    throw new LedgerError('input.unexpectedArgument', `${request.kind === 'catchup' ? 'catchup --all' : 'backfill --with-downstream'} runs each pipeline's own stored command; store it with runledger define <pipeline> --command -- ${argv.join(' ')}`);
  }
  for (const [flag, given] of [['--max-active-runs', opts.maxActiveRuns], ['--run-backwards', opts.runBackwards], ['--continue-on-failure', opts.continueOnFailure]] as const) {
    if (given !== undefined && given !== false) {
      throw new LedgerError('input.conflictingOptions', `${flag} is for one pipeline; across pipelines each keeps its own --max-active-runs, and a failure stops only the dates that wait for it`);
    }
  }
  if (opts.dryRun) return printFleetPlan(ctx, request, opts.json ?? false);
  const parallel = opts.parallel === undefined ? undefined : parseWholeNumber(opts.parallel, '--parallel', 1);
  const waitMs = waitUpstreamMs(opts.waitUpstream);
  const poolSizes = parsePoolSizes(opts.pool ?? []);
  const leaseMs = opts.lease === undefined ? undefined : parseDuration(opts.lease, '--lease');
  const killGraceMs = opts.killGrace === undefined ? DEFAULT_KILL_GRACE_MS : parseDuration(opts.killGrace, '--kill-grace');
  const { deps } = ctx;
  const logDir = opts.logs === false ? undefined : (opts.logs ?? defaultLogDir(ctx.db));
  if (logDir !== undefined) await checkLogDir(logDir, opts.logs !== undefined);
  const tasks: CommandTask[] = [];
  // One watchdog for every pipeline's commands: if this process is killed (kill -9), it kills their process groups.
  const reaper = groupReaper({ graceMs: killGraceMs });
  const controller = new AbortController();
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      if (controller.signal.aborted) for (const t of tasks) t.killAll('SIGKILL');
      else {
        ctx.note(`\nrunledger: ${name}: not starting more dates; stopping the running ones (send it again to kill them now)`);
        controller.abort(name);
      }
    };
    deps.signals?.on(name, handler);
    return { name, handler };
  });
  let summary: FleetSummary;
  try {
    summary = await ctx.withLedger(false, (ledger) =>
      runFleet(ledger, request, {
        taskFor: (definition) => {
          if (!definition.command) return null;
          const setup = { ctx, passLedgerEnv: opts.passLedgerEnv ?? false, killGraceMs, reaper, logDir };
          const command = fleetCommandTask(setup, definition.command, (stream, run, raw) => {
            // Several pipelines run at once: each line says whose it is.
            const line = `${run.pipeline} ${run.date} | ${ledger.redact(raw)}\n`;
            if (stream === 'stdout' && !opts.json) deps.stdout(line);
            else deps.stderr(line);
          });
          tasks.push(command);
          return command.task;
        },
        signal: controller.signal,
        ...(parallel === undefined ? {} : { parallel }),
        ...(waitMs === undefined ? {} : { waitUpstream: waitMs }),
        ...(leaseMs === undefined ? {} : { lease: leaseMs }),
        killGrace: killGraceMs,
        control,
        ...(poolSizes.size === 0 ? {} : { pools: poolPlaces(ledger, poolSizes) }),
      }),
    );
  } finally {
    reaper.close();
    for (const { name, handler } of handlers) deps.signals?.off(name, handler);
  }
  if (opts.json) ctx.json({ runType: summary.runType, pipelines: summary.pipelines.map(summaryJson), withoutCommand: summary.withoutCommand, paused: summary.paused, succeeded: summary.succeeded, failed: summary.failed, skipped: summary.skipped, durationMs: summary.durationMs });
  else ctx.out(formatFleetSummary(summary));
  if (controller.signal.aborted) throw new RunExit(controller.signal.reason === 'SIGINT' ? 130 : 143);
  if (summary.failed > 0) {
    ctx.note(`runledger: ${summary.failed} ${summary.failed === 1 ? 'run' : 'runs'} failed (exit 6); the dates that wait for them were left alone. Fix the cause and run the same command again.`);
    throw new RunExit(ExitCode.runFailed);
  }
}

/** `--dry-run`: every date each pipeline would run, in dependency order, and the pipelines left without a command. */
async function printFleetPlan(ctx: CliContext, request: FleetRequest, json: boolean): Promise<void> {
  const { jobs, definitions, paused } = await ctx.withLedger(false, (ledger) => planFleet(ledger, request));
  const planned = jobs.filter((j) => j.plan.slots.length > 0);
  const withoutCommand = planned.filter((j) => !definitions.get(j.pipeline)?.command).map((j) => j.pipeline);
  const runnable = planned.filter((j) => definitions.get(j.pipeline)?.command);
  if (json) return ctx.json({ runType: request.kind, pipelines: runnable.map(dryRunJson), withoutCommand, paused });
  const rows = runnable.flatMap((j) => j.plan.slots.map((s) => [j.pipeline, s.date, s.reason, s.runAfter]));
  const what = request.kind === 'catchup' ? 'catchup --all' : 'backfill --with-downstream';
  const table = rows.length > 0 ? formatTable(['PIPELINE', 'DATE', 'REASON', 'RUN AFTER'], rows) : '';
  const without = withoutCommand.length > 0 ? `left alone (no stored command; runledger define <pipeline> --command -- …): ${withoutCommand.join(', ')}\n` : '';
  ctx.out(`${table}${without}${pausedLines(paused)}${what} would run ${rows.length} ${rows.length === 1 ? 'date' : 'dates'} of ${runnable.length} ${runnable.length === 1 ? 'pipeline' : 'pipelines'}, each after the upstream dates it waits for\n`);
}

/** One table of every run across the pipelines (PIPELINE first), the pipelines left without a command, and a totals line. */
export function formatFleetSummary(summary: FleetSummary): string {
  const rows = summary.pipelines.flatMap((s) =>
    s.runs.map((r) => [
      s.pipeline,
      r.date,
      r.reason ?? '-',
      r.status,
      r.exitCode !== null ? String(r.exitCode) : (r.signal ?? '-'),
      r.status === 'skipped' ? '-' : formatDuration(r.durationMs),
      oneLine(r.status === 'skipped' ? (r.note ?? '') : (r.error ?? '')),
    ]),
  );
  const table = rows.length > 0 ? formatTable(['PIPELINE', 'DATE', 'REASON', 'STATUS', 'EXIT', 'DURATION', 'DETAIL'], rows) : '';
  const without = summary.withoutCommand.length > 0 ? `left alone (no stored command; runledger define <pipeline> --command -- …): ${summary.withoutCommand.join(', ')}\n` : '';
  const what = summary.runType === 'catchup' ? 'catchup --all' : 'backfill --with-downstream';
  const nothing = rows.length === 0 && summary.withoutCommand.length === 0 && summary.paused.length === 0 ? `nothing pending in any pipeline\n` : '';
  const totals = `${what}: ${summary.pipelines.length} ${summary.pipelines.length === 1 ? 'pipeline' : 'pipelines'}, ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.skipped} skipped in ${formatDuration(summary.durationMs)}`;
  return `${table}${without}${pausedLines(summary.paused)}${nothing}${totals}\n`;
}

/** One line per paused pipeline a fleet run left alone, with its pause, or '' for none. */
function pausedLines(paused: readonly PausedPipeline[]): string {
  return paused.map((p) => `left alone: ${p.pipeline} is ${pausedText(p.paused)} (runledger unpause ${p.pipeline})\n`).join('');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' | ').trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
