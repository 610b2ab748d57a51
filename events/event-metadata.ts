import { z } from 'zod';

/** Who recorded an event, from where, and why. */
export const EventMetadata = z.object({
  actor: z.string().min(1),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  reason: z.string().optional(),
  toolVersion: z.string(),
});
export type EventMetadata = z.infer<typeof EventMetadata>;
