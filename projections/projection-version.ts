/**
 * The version of the folds (`evolve`, `evolveRunHistory`, `evolveTaskRuns`)
 * and of the folded shapes they produce. A persisted projection checkpoint
 * records it; a release that changes what a fold does, or the shape of its
 * state, bumps it, and checkpoints of another version are discarded and
 * rebuilt from the events.
 *
 * 2: a run records the log file its outcome named (`RunRecord.log`).
 * 3: marks (`RunMarked`: the `skipped` status, `DateState.mark`) and retries (`RetryScheduled`: the
 *    `up_for_retry` status, `DateState.retry`, `RunRecord.retry`).
 */
export const PROJECTION_VERSION = 3;
