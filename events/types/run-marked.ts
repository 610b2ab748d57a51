import type { EventDataInterval } from './common.js';

/**
 * A date was set to `success` or `skipped` by hand, without running anything (`runledger mark`). It opens a
 * new generation for its key, like a start: `runId` is the mark's own id. The actor and the reason are in metadata.
 */
export type RunMarked = {
  type: 'RunMarked';
  schemaVersion: 1;
  data: {
    pipeline: string;
    date: string;
    runId: string;
    status: 'success' | 'skipped';
    logicalDate: string;
    dataInterval: EventDataInterval;
    runAfter: string;
    /** The key's status before the mark (`missing` when it never had an event). */
    previousStatus: 'missing' | 'success' | 'skipped' | 'failed' | 'up_for_retry' | 'interrupted' | 'cleared';
  };
};
