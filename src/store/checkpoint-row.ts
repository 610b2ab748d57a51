import type { LoadedCheckpoint } from './event-store.js';

/** A stored checkpoint as both adapters select it; PostgreSQL returns `bigint` positions as strings. */
export type CheckpointRow = { pipeline: string; position: number | string; event_hash: string; projection_version: number | string; state: string; hash_at_position: string | null };

/**
 * The checkpoint a query may use, from its row: `hashAtPosition` is the
 * chain's hash at the checkpoint's position (null past the head), which the
 * loader compares with `eventHash` before trusting it.
 *
 * @example
 * loadedCheckpoint(row).position
 */
export function loadedCheckpoint(row: CheckpointRow): LoadedCheckpoint {
  return {
    pipeline: row.pipeline,
    position: Number(row.position),
    eventHash: row.event_hash,
    projectionVersion: Number(row.projection_version),
    state: row.state,
    hashAtPosition: row.hash_at_position,
  };
}
