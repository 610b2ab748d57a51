import type { PipelineDefinition } from './pipeline-definition.js';

/** A pipeline came into being. */
export type PipelineDefined = { type: 'PipelineDefined'; schemaVersion: 1; data: PipelineDefinition };
