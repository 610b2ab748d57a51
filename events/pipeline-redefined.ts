import { z } from 'zod';
import type { PipelineRedefined as PlainPipelineRedefined } from './types/pipeline-redefined.js';
import type { Equals } from './same-type.js';
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
export type PipelineRedefined = PlainPipelineRedefined;
true satisfies Equals<PipelineRedefined, z.infer<typeof PipelineRedefined>>;
