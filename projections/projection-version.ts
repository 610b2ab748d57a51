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
 * 4: a key cleared by a cascade keeps its cause (`DateState.clearCause`); separately, a pipeline's last failure
 *    keeps its error's most telling line (`tellingLine`), not its first line.
 * 5: both of the above in one build (the two branches each used 4), so tables built by either rebuild.
 */
export const PROJECTION_VERSION = 5;
