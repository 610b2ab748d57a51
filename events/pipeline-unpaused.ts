import { z } from 'zod';
import type { PipelineUnpaused as PlainPipelineUnpaused } from './types/pipeline-unpaused.js';
import type { Equals } from './same-type.js';
import { PipelineName } from './common.js';

/**
 * A paused pipeline was unpaused (`runledger unpause`): fleet runs start its dates again. The actor, and the reason when given, are in metadata.
 * It goes on the pipeline's own stream, after its definitions; it changes what runs, never what was recorded.
 */
export const PipelineUnpaused = z.object({
  type: z.literal('PipelineUnpaused'),
  schemaVersion: z.literal(1),
  data: z.object({ pipeline: PipelineName }),
});
export type PipelineUnpaused = PlainPipelineUnpaused;
true satisfies Equals<PipelineUnpaused, z.infer<typeof PipelineUnpaused>>;
