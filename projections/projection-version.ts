/**
 * The version of the folds (`evolve`, `evolveRunHistory`, `evolveTaskRuns`)
 * and of the folded shapes they produce. A persisted projection checkpoint
 * records it; a release that changes what a fold does, or the shape of its
 * state, bumps it, and checkpoints of another version are discarded and
 * rebuilt from the events.
 *
 * 2: a run records the log file its outcome named (`RunRecord.log`).
 * 3: a run's start and end are the producer's own times (`at`) when its events carry them; a run keeps
 *    its outputs and the tasks a producer's verdict left unreported (`RunRecord.outputs`, `.unreportedTasks`).
 * 4: on one line of history, marks (`RunMarked`: the `skipped` status, `DateState.mark`) and retries
 *    (`RetryScheduled`: the `up_for_retry` status, `DateState.retry`, `RunRecord.retry`) with a key cleared by a
 *    cascade keeping its cause (`DateState.clearCause`); on the other, that cause and a pipeline's last failure
 *    keeping its error's most telling line (`tellingLine`), not its first line.
 * 5: each line's merge of its two 4s (run control's and newcomer's), so tables built by either rebuild.
 * 6: a merge of both 5s (run control and newcomer in one fold), so tables built by either 5 rebuild.
 * 7: a row keeps a text no column holds verbatim (NUL, a lone surrogate of an older event) as an excerpt pointing
 *    to its event, and an excerpt never cuts a surrogate pair in half; a date's key is released by a clear.
 * 8: a pipeline's pause and retirement (`PipelinePaused`, `PipelineUnpaused`, `PipelineRetired`, `PipelineUnretired`:
 *    `PipelineState.paused`, `.retired`, the summary row's `control`).
 */
export const PROJECTION_VERSION = 8;
