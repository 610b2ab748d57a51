import { z } from 'zod';
import { PipelineDefinition } from './pipeline-definition.js';

/** A pipeline came into being. */
export const PipelineDefined = z.object({
  type: z.literal('PipelineDefined'),
  schemaVersion: z.literal(1),
  data: PipelineDefinition,
});
export type PipelineDefined = z.infer<typeof PipelineDefined>;
