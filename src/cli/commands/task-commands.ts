import type { Command } from 'commander';
import type { PipelineDefinition } from '../../../events/pipeline-definition.js';
import { TASK_STATES } from '../../../events/task-states.js';
import { describeRunOutcome } from '../../../projections/derive-run-outcome.js';
import { lintTasks, type MaskingWarning } from '../../../projections/lint-tasks.js';
import type { AsOf } from '../../ledger/ledger-types.js';
import type { TaskInput } from '../../ledger/task-types.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';
import { inZone, pipelineZones } from '../../format/zoned-instant.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';

/** `task <runId> <taskId> <state>`. */
export function registerTaskCommands(program: Command, ctx: CliContext): void {
  program
    .command('task')
    .summary('record the state of one task of a run (pipelines defined with --tasks)')
    .description(
      'Record a task state of a run, fenced like succeed and fail: the run must be the current one of its date and ' +
        'still running. Once every task is terminal, the run succeeds or fails by its leaf tasks (as an Airflow DAG run): ' +
        'any leaf failed or upstream_failed fails it; all leaves success or skipped make it succeed. ' +
        `States: ${TASK_STATES.join(', ')} (terminal: success, failed, skipped, upstream_failed, removed).`,
    )
    .argument('<runId>', 'the id `start` printed')
    .argument('<taskId>', 'a task of the pipeline')
    .argument('<state>', 'the task state')
    .option('--try <n>', 'the try number (default: counted; a new try after up_for_retry)')
    .option('--error <message>', 'what went wrong (failed, up_for_retry)')
    .option('--reason <text>', 'why, recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  runledger task "$RUN" extract success')
    .action(async (runId: string, taskId: string, state: string, opts: { try?: string; error?: string; reason?: string; json?: boolean }) => {
      const input: TaskInput = { runId, taskId, state };
      if (opts.try !== undefined) input.tryNumber = parseWholeNumber(opts.try, '--try', 1);
      if (opts.error !== undefined) input.error = opts.error;
      if (opts.reason !== undefined) input.reason = opts.reason;
      const result = await ctx.withLedger(false, (ledger) => ledger.task(input));
      if (opts.json) return ctx.json(result);
      const head = `${result.pipeline} ${result.date}: task ${taskId} ${result.state} (try ${result.tryNumber})${result.repeated ? ' was already recorded' : ''}`;
      const run = result.run.status === 'running' ? `run still running, ${describeRunOutcome(result.run)}` : `run ${result.run.status === 'success' ? 'succeeded' : 'failed'}: ${describeRunOutcome(result.run)}`;
      ctx.out(`${head}; ${run}`);
    });
}

/**
 * `runs <pipeline> --run <id>`: the task grid of one run.
 *
 * @example
 * await printTaskGrid(ctx, 'etl_orders', runId, undefined, false);
 */
export async function printTaskGrid(ctx: CliContext, pipeline: string, runId: string, asOf: AsOf | undefined, json: boolean): Promise<void> {
  const [view, zones] = await ctx.withLedger(false, async (ledger) => [await ledger.runTasks({ pipeline, runId, ...(asOf ? { asOf } : {}) }), await pipelineZones(ledger, [pipeline])] as const);
  if (json) return ctx.json(view);
  const zone = zones.get(pipeline) ?? 'UTC';
  const r = view.run;
  // A producer's verdict (an Airflow DAG run's end) may have ended the run with tasks that never reported: say so, not "unfinished".
  const unreported = new Set(r.unreportedTasks ?? []);
  const why = unreported.size > 0 ? `ended by the producer's verdict; not reported: ${[...unreported].join(', ')}` : view.outcome ? describeRunOutcome(view.outcome) : '';
  ctx.out(`run ${r.runId} of ${pipeline} ${r.date}, attempt ${r.attempt}: ${r.status}${why ? `; ${why}` : ''}`);
  if (view.tasks.length === 0) return ctx.out('this pipeline declares no tasks; define it with --tasks <file.json> to record task states');
  ctx.out(
    formatTable(
      ['TASK', 'STATE', 'TRIES', 'UPDATED', 'RULE', 'NOTE'],
      view.tasks.map((t) => [
        t.taskId,
        t.state ?? (unreported.has(t.taskId) ? 'not reported' : '-'),
        t.tryNumber === null ? '0' : String(t.tryNumber),
        t.updatedAt ? inZone(t.updatedAt, zone) : '-',
        t.triggerRule ?? '-',
        [t.leaf ? 'leaf' : '', t.teardown ? 'teardown' : '', t.declared ? '' : 'no longer declared', t.error ?? ''].filter(Boolean).join(', '),
      ]),
    ),
  );
}

/**
 * The task lint at `define` and `pipelines --lint`: one warning line on stderr
 * per leaf that can hide an upstream failure. Warnings never change the exit code.
 *
 * @example
 * warnAboutMaskingLeaves(ctx, definition) // "runledger: warning: etl_orders: leaf 'cleanup' (all_done) can end in success …"
 */
export function warnAboutMaskingLeaves(ctx: CliContext, definition: PipelineDefinition): MaskingWarning[] {
  const warnings = definition.tasks ? lintTasks(definition.tasks) : [];
  for (const warning of warnings) ctx.note(`runledger: warning: ${definition.pipeline}: ${warning.message}`);
  return warnings;
}
