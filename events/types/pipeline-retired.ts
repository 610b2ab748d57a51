/** A pipeline was retired (`runledger retire`): its history stays, but it leaves status, check, metrics and fleet runs. */
export type PipelineRetired = { type: 'PipelineRetired'; schemaVersion: 1; data: { pipeline: string } };
