import { currentSchemaVersion } from './event-types.js';
import type { EventType } from './ledger-event.js';

/** Turns the `data` of version N into version N+1. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** Per type, the upcaster from each old version. Empty while every type is at version 1. */
export type UpcasterRegistry = Partial<Record<EventType, Readonly<Record<number, Upcaster>>>>;

export const upcasters: UpcasterRegistry = {};

export type UpcastResult =
  | { ok: true; schemaVersion: number; data: Record<string, unknown> }
  | { ok: false; reason: string };

/**
 * Brings an old event's data up to the current schema version, one step at a
 * time. Old events are never rewritten in the store; this runs on every read.
 *
 * @example
 * upcast('RunFailed', 1, data) // { ok: true, schemaVersion: 1, data }
 */
export function upcast(
  type: EventType,
  version: number,
  data: Record<string, unknown>,
  registry: UpcasterRegistry = upcasters,
  target: number = currentSchemaVersion[type],
): UpcastResult {
  if (!Number.isInteger(version) || version < 1) return { ok: false, reason: `${type} has an invalid schema version ${version}` };
  if (version > target) {
    return { ok: false, reason: `${type} version ${version} is newer than this runledger understands (${target}); upgrade runledger` };
  }
  let current = data;
  for (let v = version; v < target; v++) {
    const step = registry[type]?.[v];
    if (!step) return { ok: false, reason: `no upcaster for ${type} from version ${v} to ${v + 1}` };
    current = step(current);
  }
  return { ok: true, schemaVersion: target, data: current };
}
