import { z } from 'zod';
import type { PipelineRetired as PlainPipelineRetired } from './types/pipeline-retired.js';
import type { Equals } from './same-type.js';
import { PipelineName } from './common.js';

/**
 * A pipeline was retired (`runledger retire`): its history stays, but it leaves status, check, metrics and fleet runs, and its name cannot be defined again until it is unretired. The actor and the reason (required) are in metadata.
 * It goes on the pipeline's own stream, after its definitions; it changes what runs, never what was recorded.
 */
export const PipelineRetired = z.object({
  type: z.literal('PipelineRetired'),
  schemaVersion: z.literal(1),
  data: z.object({ pipeline: PipelineName }),
});
export type PipelineRetired = PlainPipelineRetired;
true satisfies Equals<PipelineRetired, z.infer<typeof PipelineRetired>>;
