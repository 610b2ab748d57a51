import { z } from 'zod';
import type { PipelinePaused as PlainPipelinePaused } from './types/pipeline-paused.js';
import type { Equals } from './same-type.js';
import { PipelineName } from './common.js';

/**
 * A pipeline was paused (`runledger pause`): nothing that runs a fleet starts its dates until it is unpaused; a direct start still runs. The actor and the reason (required) are in metadata.
 * It goes on the pipeline's own stream, after its definitions; it changes what runs, never what was recorded.
 */
export const PipelinePaused = z.object({
  type: z.literal('PipelinePaused'),
  schemaVersion: z.literal(1),
  data: z.object({ pipeline: PipelineName }),
});
export type PipelinePaused = PlainPipelinePaused;
true satisfies Equals<PipelinePaused, z.infer<typeof PipelinePaused>>;
