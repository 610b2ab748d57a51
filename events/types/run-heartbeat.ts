/** A running run extended its lease; `at`: the producer's instant of the heartbeat (OpenLineage `RUNNING`), absent for the ledger's own. */
export type RunHeartbeat = {
  type: 'RunHeartbeat';
  schemaVersion: 1;
  data: { pipeline: string; date: string; runId: string; leaseExpiresAt: string; at?: string | undefined };
};
