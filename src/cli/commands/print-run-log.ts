import type { AsOf } from '../../ledger/ledger-types.js';
import { openVerifiedRunLog, recordedRunLog } from '../../ops/read-run-log.js';
import type { CliContext } from '../cli-context.js';

/**
 * `runs <pipeline> --run <id> --logs`: the run's log file on stdout, as it was written, once its sha256 matches
 * the one its outcome recorded (a missing or changed file is refused before anything is printed).
 *
 * @example
 * await printRunLog(ctx, 'etl_orders', runId, undefined);
 */
export async function printRunLog(ctx: CliContext, pipeline: string, runId: string, asOf: AsOf | undefined): Promise<void> {
  const log = await ctx.withLedger(false, (ledger) => recordedRunLog(ledger, { pipeline, runId, ...(asOf ? { asOf } : {}) }));
  const text = await openVerifiedRunLog(log, runId);
  for await (const chunk of text) {
    ctx.deps.stdout(chunk as string);
    // Each piece written before the next is read, so a large log never piles up in memory.
    await ctx.flush();
  }
}
