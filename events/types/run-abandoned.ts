/** A running run whose lease expired was taken over by a new attempt. */
export type RunAbandoned = {
  type: 'RunAbandoned';
  schemaVersion: 1;
  data: { pipeline: string; date: string; runId: string; reason: 'leaseExpired'; supersededBy: string };
};
