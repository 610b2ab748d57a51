/** A pipeline was paused (`runledger pause`): nothing that runs a fleet starts its dates until it is unpaused. */
export type PipelinePaused = { type: 'PipelinePaused'; schemaVersion: 1; data: { pipeline: string } };
