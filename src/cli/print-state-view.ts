import type { StateView } from '../ledger/ledger-types.js';
import type { CliContext } from './cli-context.js';
import { formatMetrics, formatTable } from './format-table.js';

/**
 * The readable form of a state document, shared by `state` and `replay` so a
 * replayed history reads exactly like the live one.
 *
 * @example
 * printStateView(ctx, await ledger.state({ pipeline: 'etl_orders' }))
 */
export function printStateView(ctx: CliContext, view: StateView): void {
  ctx.out(
    formatTable(
      ['DATE', 'STATUS', 'ATTEMPT', 'TYPE', 'RUN', 'FINISHED', 'DETAIL'],
      view.dates.map((d) => [
        d.date,
        d.stalled ? 'stalled' : d.status,
        d.attempt === null ? '-' : String(d.attempt),
        d.runType ?? '-',
        d.runId ?? '-',
        d.finishedAt ?? '-',
        [d.offSchedule ? 'off-schedule' : '', d.error ?? '', formatMetrics(d.metrics)].filter(Boolean).join(' '),
      ]),
    ),
  );
  ctx.out(`watermark: ${view.watermark ?? 'none'}   complete through: ${view.completeThrough ?? 'none'}`);
}
