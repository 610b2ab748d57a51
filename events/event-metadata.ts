import { z } from 'zod';
import type { EventMetadata as PlainEventMetadata } from './types/event-metadata.js';
import type { Equals } from './same-type.js';

/** Who recorded an event, from where, and why. */
export const EventMetadata = z.object({
  actor: z.string().min(1),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  reason: z.string().optional(),
  toolVersion: z.string(),
});
export type EventMetadata = PlainEventMetadata;
true satisfies Equals<EventMetadata, z.infer<typeof EventMetadata>>;
