import { z } from 'zod';
import { Instant, PipelineName } from './common.js';
import { TaskDefinition } from './task-definition.js';

/** A pipeline's definition as recorded by `define` (DESIGN §1). */
export const PipelineDefinition = z.object({
  pipeline: PipelineName,
  schedule: z.string().min(1),
  timetable: z.enum(['interval', 'trigger']),
  timezone: z.string().min(1),
  start: Instant,
  end: Instant.nullable(),
  catchup: z.boolean(),
  maxActiveRuns: z.number().int().positive(),
  /** Default lease of a run in milliseconds, used when `start` gives none. */
  leaseMs: z.number().int().positive(),
  /**
   * S12: the pipeline's tasks, when it records task-level state. Absent in
   * definitions recorded before tasks existed and in pipelines without tasks;
   * never an empty array.
   */
  tasks: z.array(TaskDefinition).optional(),
  /**
   * How stale the pipeline's data may get (lag, in milliseconds) before
   * `check` reports it; `define --freshness`. Absent when none was set, and in
   * definitions recorded before it existed, so their hashes do not change.
   */
  freshnessMs: z.number().int().positive().optional(),
});
export type PipelineDefinition = z.infer<typeof PipelineDefinition>;
