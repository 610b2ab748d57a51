import { z } from 'zod';
import type { PipelineUnretired as PlainPipelineUnretired } from './types/pipeline-unretired.js';
import type { Equals } from './same-type.js';
import { PipelineName } from './common.js';

/**
 * A retired pipeline was brought back (`runledger unretire`) with the definition it had. The actor, and the reason when given, are in metadata.
 * It goes on the pipeline's own stream, after its definitions; it changes what runs, never what was recorded.
 */
export const PipelineUnretired = z.object({
  type: z.literal('PipelineUnretired'),
  schemaVersion: z.literal(1),
  data: z.object({ pipeline: PipelineName }),
});
export type PipelineUnretired = PlainPipelineUnretired;
true satisfies Equals<PipelineUnretired, z.infer<typeof PipelineUnretired>>;
