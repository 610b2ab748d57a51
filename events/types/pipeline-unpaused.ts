/** A paused pipeline was unpaused (`runledger unpause`): fleet runs start its dates again. */
export type PipelineUnpaused = { type: 'PipelineUnpaused'; schemaVersion: 1; data: { pipeline: string } };
