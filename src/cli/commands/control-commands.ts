import type { Command } from 'commander';
import type { ControlKind } from '../../../projections/decide-control.js';
import { pausedText, retiredText } from '../../../projections/pipeline-control.js';
import type { ControlResult } from '../../ledger/control-pipelines.js';
import type { CliContext } from '../cli-context.js';

type ControlOpts = { reason?: string; json?: boolean };

/** `pause`, `unpause`, `retire` and `unretire`: a pipeline's run control, as events with the actor and the reason. */
export function registerControlCommands(program: Command, ctx: CliContext): void {
  program
    .command('pause')
    .summary('stop fleet runs of pipelines until unpaused (recorded with actor and reason)')
    .description(
      'Pause pipelines: a PipelinePaused event each, with the actor and the reason. While paused, nothing that runs a ' +
        'fleet starts their dates: the scheduler, catchup --all and backfill --with-downstream leave them alone, and ' +
        'their downstream dates wait with "paused" as the reason (pending, status, the web view). A direct start, ' +
        'backfill or catchup of a paused pipeline still runs, with a note that it is paused. check leaves a paused ' +
        "pipeline's lag and pending alone unless --include-paused. History is untouched; unpause undoes it. All named " +
        'pipelines or none (an unknown name writes nothing); one already paused is left as it is.',
    )
    .argument('<pipelines...>', 'pipeline names')
    .option('--reason <text>', 'why (required), recorded in the event and shown wherever the pause is')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  runledger pause orders_raw --reason "vendor outage until Monday"\n  runledger pause orders_raw orders_daily --reason "schema migration"\n  runledger unpause orders_raw orders_daily')
    .action(async (pipelines: string[], opts: ControlOpts) => control(ctx, 'pause', pipelines, opts));

  program
    .command('unpause')
    .summary('let fleet runs start a paused pipeline again')
    .description(
      'Unpause pipelines: a PipelineUnpaused event each, with the actor (and the reason, when given). The next ' +
        'scheduler tick, catchup --all or backfill --with-downstream runs their due dates again, upstreams first. ' +
        'One that is not paused is left as it is.',
    )
    .argument('<pipelines...>', 'pipeline names')
    .option('--reason <text>', 'why (optional), recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  runledger unpause orders_raw\n  runledger catchup --all        # runs what waited, upstreams first')
    .action(async (pipelines: string[], opts: ControlOpts) => control(ctx, 'unpause', pipelines, opts));

  program
    .command('retire')
    .summary('take a pipeline out of service, keeping its history')
    .description(
      'Retire a pipeline: a PipelineRetired event with the actor and the reason. Its history stays (log, verify, ' +
        'export, state --include-retired), but it leaves status, the overview, check, metrics and fleet runs, and ' +
        'its name cannot be defined again (unretire brings it back, or use a new name). Refused (exit 3) while a ' +
        'pipeline that is not retired names it as an upstream: the message names them.',
    )
    .argument('<pipeline>', 'pipeline name')
    .option('--reason <text>', 'why (required), recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  runledger retire orders_v1 --reason "replaced by orders_v2"\n  runledger state orders_v1 --include-retired\n  runledger unretire orders_v1')
    .action(async (pipeline: string, opts: ControlOpts) => control(ctx, 'retire', [pipeline], opts));

  program
    .command('unretire')
    .summary('bring a retired pipeline back, with its definition and history')
    .description(
      'Bring a retired pipeline back: a PipelineUnretired event with the actor (and the reason, when given). It ' +
        'returns to status, check, metrics and fleet runs with the definition, history and pause it had; define ' +
        'changes it as usual from then on.',
    )
    .argument('<pipeline>', 'pipeline name')
    .option('--reason <text>', 'why (optional), recorded in the event')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  runledger unretire orders_v1 --reason "v2 rolled back"')
    .action(async (pipeline: string, opts: ControlOpts) => control(ctx, 'unretire', [pipeline], opts));
}

async function control(ctx: CliContext, kind: ControlKind, pipelines: string[], opts: ControlOpts): Promise<void> {
  const reason = opts.reason;
  const results = await ctx.withLedger(false, (ledger) => {
    switch (kind) {
      case 'pause':
        return ledger.pause({ pipelines, reason: reason ?? '' });
      case 'unpause':
        return ledger.unpause({ pipelines, ...(reason === undefined ? {} : { reason }) });
      case 'retire':
        return ledger.retire({ pipeline: pipelines[0] as string, reason: reason ?? '' }).then((r) => [r]);
      case 'unretire':
        return ledger.unretire({ pipeline: pipelines[0] as string, ...(reason === undefined ? {} : { reason }) }).then((r) => [r]);
      default:
        return kind satisfies never;
    }
  });
  if (opts.json) return ctx.json({ results });
  for (const result of results) ctx.out(resultLine(result));
}

/** One line per pipeline: what was done, or that it already was so, with the pause or retirement now. */
function resultLine(result: ControlResult): string {
  const now = result.retired ? retiredText(result.retired) : result.paused ? pausedText(result.paused) : 'active';
  return result.outcome === 'unchanged' ? `${result.pipeline}: unchanged, ${now}` : `${result.pipeline}: ${now}`;
}
