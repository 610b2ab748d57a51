import { z } from 'zod';
import { PipelineDefinition } from './pipeline-definition.js';

/** A pipeline's definition changed; `changes` is the diff against the previous one. */
export const PipelineRedefined = z.object({
  type: z.literal('PipelineRedefined'),
  schemaVersion: z.literal(1),
  data: z.object({
    pipeline: PipelineDefinition.shape.pipeline,
    definition: PipelineDefinition,
    changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  }),
});
export type PipelineRedefined = z.infer<typeof PipelineRedefined>;
