import { cellStatus, type CalendarInput, type CellStatus } from './calendar.js';

/** What the overview needs of a `state` row. */
export type OverviewInput = CalendarInput & { dataInterval: { end: string }; finishedAt: string | null };

export type OverviewRow = {
  pipeline: string;
  schedule: string;
  timezone: string;
  /** The last slots, oldest first, for a status strip. */
  strip: Array<{ date: string; status: CellStatus }>;
  watermark: string | null;
  completeThrough: string | null;
  /**
   * How long the oldest due slot that is not a success has been due, in ms
   * (0 when every due slot is done); null when nothing is due yet.
   */
  lagMs: number | null;
  pending: number;
  running: number;
  lastFailure: { date: string; error: string | null; at: string | null } | null;
};

export type OverviewRowInput = {
  pipeline: string;
  schedule: string;
  timezone: string;
  watermark: string | null;
  completeThrough: string | null;
  /** The rows of `state` up to now, oldest first. */
  dates: readonly OverviewInput[];
  nowMs: number;
  /** Slots in the strip (default 30). */
  stripLength?: number;
};

/**
 * One line of the overview: a strip of the last slots, watermark,
 * complete-through, lag behind now, how many slots are pending (missing,
 * failed, cleared, stalled, as `pending` counts them) and the latest failure
 * with its error.
 *
 * @example
 * overviewRow({ pipeline: 'etl_orders', schedule: '@daily', timezone: 'UTC', watermark: null, completeThrough: null, dates: [], nowMs: 0 }).pending // 0
 */
export function overviewRow(input: OverviewRowInput): OverviewRow {
  let pendingCount = 0;
  let running = 0;
  let oldestDue: number | null = null;
  let lastFailure: OverviewRow['lastFailure'] = null;
  for (const d of input.dates) {
    const status = cellStatus(d);
    if (status === 'running') running += 1;
    else if (status !== 'success') {
      pendingCount += 1;
      const due = Date.parse(d.dataInterval.end);
      if (oldestDue === null || due < oldestDue) oldestDue = due;
    }
    if (d.status === 'failed' && (lastFailure === null || (d.finishedAt ?? '') >= (lastFailure.at ?? ''))) lastFailure = { date: d.date, error: d.error, at: d.finishedAt };
  }
  const strip = input.dates.slice(-(input.stripLength ?? 30)).map((d) => ({ date: d.date, status: cellStatus(d) }));
  return {
    pipeline: input.pipeline,
    schedule: input.schedule,
    timezone: input.timezone,
    strip,
    watermark: input.watermark,
    completeThrough: input.completeThrough,
    lagMs: input.dates.length === 0 ? null : oldestDue === null ? 0 : Math.max(0, input.nowMs - oldestDue),
    pending: pendingCount,
    running,
    lastFailure,
  };
}
