import { z } from 'zod';
import type { PipelineDefined as PlainPipelineDefined } from './types/pipeline-defined.js';
import type { Equals } from './same-type.js';
import { PipelineDefinition } from './pipeline-definition.js';

/** A pipeline came into being. */
export const PipelineDefined = z.object({
  type: z.literal('PipelineDefined'),
  schemaVersion: z.literal(1),
  data: PipelineDefinition,
});
export type PipelineDefined = PlainPipelineDefined;
true satisfies Equals<PipelineDefined, z.infer<typeof PipelineDefined>>;
