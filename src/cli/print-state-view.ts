import type { StateView } from '../ledger/ledger-types.js';
import type { CliContext } from './cli-context.js';
import { formatTable } from '../format/format-table.js';
import { stateDetail } from './state-detail.js';
import { inZone } from '../format/zoned-instant.js';

/**
 * The readable form of a state document, shared by `state` and `replay` so a
 * replayed history reads exactly like the live one. Instants are shown in the
 * pipeline's `zone` with its offset (`--json` keeps UTC).
 *
 * @example
 * printStateView(ctx, await ledger.state({ pipeline: 'etl_orders' }))
 */
export function printStateView(ctx: CliContext, view: StateView, zone = 'UTC', wide = false): void {
  const rows = view.dates.map((d) => [
    d.date,
    d.stalled ? 'stalled' : d.status,
    d.attempt === null ? '-' : String(d.attempt),
    d.runType ?? '-',
    d.runId ?? '-',
    d.finishedAt ? inZone(d.finishedAt, zone) : '-',
  ]);
  // DETAIL gets what the other columns leave of the terminal (at least 24 characters), or 100 off a terminal.
  const used = rows.length === 0 ? 0 : ['DATE', 'STATUS', 'ATTEMPT', 'TYPE', 'RUN', 'FINISHED'].reduce((sum, h, i) => sum + Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)) + 2, 0);
  const width = wide ? Number.POSITIVE_INFINITY : ctx.deps.columns === undefined ? 100 : Math.max(24, ctx.deps.columns - used);
  ctx.out(formatTable(['DATE', 'STATUS', 'ATTEMPT', 'TYPE', 'RUN', 'FINISHED', 'DETAIL'], rows.map((row, i) => [...row, stateDetail(view.dates[i] as (typeof view.dates)[number], width, zone)])));
  ctx.out(`watermark: ${view.watermark ?? 'none'}   complete through: ${view.completeThrough ?? 'none'}`);
}
