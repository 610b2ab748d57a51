import type { PipelineDefinition } from './pipeline-definition.js';

/** A pipeline's definition changed; `changes` is the diff against the previous one. */
export type PipelineRedefined = {
  type: 'PipelineRedefined';
  schemaVersion: 1;
  data: { pipeline: string; definition: PipelineDefinition; changes: { field: string; from: unknown; to: unknown }[] };
};
