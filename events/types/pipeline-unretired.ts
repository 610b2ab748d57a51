/** A retired pipeline was brought back (`runledger unretire`) with the definition it had. */
export type PipelineUnretired = { type: 'PipelineUnretired'; schemaVersion: 1; data: { pipeline: string } };
