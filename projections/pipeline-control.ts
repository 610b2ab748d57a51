/**
 * A pause or a retirement of a pipeline, as the fold keeps it: when it was recorded, by whom, and why. A pause and a
 * retirement change what runs from then on, never what was recorded.
 */
export type PipelineControl = { since: string; by: string; reason: string };

/**
 * How a pause reads wherever it is shown (`status`, the overview, the pipeline page, a waiting downstream).
 *
 * @example
 * pausedText({ since: '2026-11-04T09:00:00.000Z', by: 'ana', reason: 'vendor outage' }) // 'paused since 2026-11-04T09:00:00+00:00 by ana — vendor outage'
 */
export function pausedText(paused: PipelineControl): string {
  return `paused since ${withOffset(paused.since)} by ${paused.by}${paused.reason === '' ? '' : ` — ${paused.reason}`}`;
}

/**
 * How a retirement reads (`state --include-retired`, `pipelines`, a refusal).
 *
 * @example
 * retiredText({ since: '2026-11-04T09:00:00.000Z', by: 'ana', reason: 'replaced by orders_v2' }) // 'retired since 2026-11-04T09:00:00+00:00 by ana — replaced by orders_v2'
 */
export function retiredText(retired: PipelineControl): string {
  return `retired since ${withOffset(retired.since)} by ${retired.by}${retired.reason === '' ? '' : ` — ${retired.reason}`}`;
}

/**
 * A recorded UTC instant as messages show instants, with its offset (`+00:00`) and milliseconds only when there are
 * any: the pause is the ledger's, not one pipeline zone's, so it reads in UTC.
 */
function withOffset(iso: string): string {
  return iso.replace(/\.000Z$/, 'Z').replace(/Z$/, '+00:00');
}
