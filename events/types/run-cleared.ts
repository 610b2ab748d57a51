/**
 * Why a clear happened when it was not asked for directly: the clear of an upstream date it depends on
 * (`clear a <date> --downstream`), named by that clear's event id, pipeline and date key. Both events
 * are in one append, so they share the actor and the reason.
 */
export type ClearCause = { eventId: string; pipeline: string; date: string };

/** A date key was made pending again; closes its generation. The reason is in metadata. */
export type RunCleared = {
  type: 'RunCleared';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    previousStatus: 'running' | 'success' | 'failed' | 'interrupted' | 'skipped' | 'up_for_retry';
    /** Absent on a clear asked for directly, and on every clear recorded before cascades existed (they hash as before). */
    cause?: ClearCause | undefined;
  };
};
