import type { EventType } from './ledger-event.js';

// Kept apart from the schemas in ledger-event.ts: a query needs to know the types and their versions, not to
// load zod (most of a small command's start-up went to loading it).

/** The schema version each type is written with today; older ones are upcast on read. */
export const currentSchemaVersion: Readonly<Record<EventType, number>> = {
  PipelineDefined: 1,
  PipelineRedefined: 1,
  RunStarted: 1,
  RunSucceeded: 1,
  RunFailed: 1,
  RunCleared: 1,
  RunHeartbeat: 1,
  RunAbandoned: 1,
  RunInterrupted: 1,
  TaskStateChanged: 1,
  RunMarked: 1,
  RetryScheduled: 1,
  PipelinePaused: 1,
  PipelineUnpaused: 1,
  PipelineRetired: 1,
  PipelineUnretired: 1,
};

/**
 * True when `type` names an event runledger records.
 *
 * @example
 * isEventType('RunStarted') // true
 */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(currentSchemaVersion, type);
}
