import type { LedgerEvent } from '../../events/ledger-event.js';
import { controlIndex, illFormedTextAt, illFormedTextMessage } from '../../events/well-formed-text.js';
import { LedgerError } from '../errors.js';
import { processMetadata, toolVersion } from '../runtime.js';
import { redactSecrets, redactValue } from '../secrets.js';
import type { AppendRequest, NewEvent } from '../store/event-store.js';
import type { LedgerCore } from './ledger-core.js';

const MAX_CONFLICT_RETRIES = 50;

/** Events for one stream, appended only while the stream is still at the version the decision read. */
export type AppendEventsRequest = { stream: string; expectedVersion: number; events: Array<LedgerEvent & { eventId?: string }> };

/**
 * Appends with metadata; false on a version conflict (the caller re-reads and decides again).
 *
 * @example
 * if (await appendEvents(core, [{ stream, expectedVersion, events }], reason)) return result;
 */
export async function appendEvents(core: LedgerCore, requests: AppendEventsRequest[], reason?: string): Promise<boolean> {
  refuseIllFormedText(core.actor, requests, reason);
  const recordedAt = new Date(core.clock()).toISOString();
  // Fields named one by one, as the spreads put them (actor, host, pid, toolVersion, reason): copying an object
  // literal's spread and a `{ eventId, ...event }` rest per event took the runtime's slow copy, on every append.
  const { host, pid } = processMetadata();
  const metadata = reason === undefined ? { actor: core.actor, host, pid, toolVersion } : { actor: core.actor, host, pid, toolVersion, reason: redactSecrets(reason, core.secrets) };
  const full: AppendRequest[] = requests.map((r) => ({
    stream: r.stream,
    expectedVersion: r.expectedVersion,
    // An event may come with its id already chosen, so another event of the same append can name it (a cascaded clear's cause).
    // The event's own eventId, when it has one, is copied and then set again below.
    events: r.events.map((event): NewEvent => ({ ...redactEvent(event, core.secrets), eventId: event.eventId ?? core.newId(), stream: r.stream, recordedAt, metadata })),
  }));
  const result = await core.store.append(full);
  return result.ok;
}

/**
 * Throws `store.contention` once a write has lost `MAX_CONFLICT_RETRIES` version conflicts in a row.
 *
 * @example
 * retryOrGiveUp(retry, `${pipeline} ${date}`);
 */
export function retryOrGiveUp(retry: number, what: string): void {
  if (retry >= MAX_CONFLICT_RETRIES) {
    throw new LedgerError('store.contention', `${what} kept changing under ${MAX_CONFLICT_RETRIES} retries; try again`);
  }
}

/**
 * Every text an append would record (the events' data, the reason, the actor) is Unicode a database can
 * hold: a lone UTF-16 surrogate is refused here, naming its field by the name the caller gave it (`error`,
 * `metrics.note`, `reason`), whichever way it came (CLI, HTTP, OpenLineage, library), before anything is written.
 * The short tokens (the actor, an error code) hold no control character either: a column cannot hold NUL.
 */
function refuseIllFormedText(actor: string, requests: ReadonlyArray<{ events: ReadonlyArray<LedgerEvent> }>, reason: string | undefined): void {
  refuseControl('actor', actor);
  let found = illFormedTextAt(actor, 'actor') ?? (reason === undefined ? null : illFormedTextAt(reason, 'reason'));
  for (const request of requests) {
    for (const event of request.events) {
      found ??= illFormedTextAt(event.data, '');
      const code = (event.data as { code?: unknown }).code;
      if (typeof code === 'string') refuseControl('code', code);
    }
  }
  if (found !== null) throw new LedgerError('input.illFormedText', illFormedTextMessage(found));
}

function refuseControl(field: string, text: string): void {
  const at = controlIndex(text);
  if (at < 0) return;
  const unit = `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
  throw new LedgerError('input.illFormedText', `${field} holds the control character ${unit} at character ${at}; ${field === 'actor' ? 'an actor' : 'an error code'} is a short name without control characters`);
}

/**
 * The event with known secrets removed from its free texts (error, metrics, outputs). Names, dates
 * and ids are left alone: they key the ledger, and a secret has no business there.
 */
function redactEvent(event: LedgerEvent, secrets: readonly string[]): LedgerEvent {
  if (secrets.length === 0) return event;
  const data = event.data as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const field of ['error', 'metrics', 'outputs']) if (data[field] !== undefined && data[field] !== null) patch[field] = redactValue(data[field], secrets);
  return { ...event, data: { ...data, ...patch } } as LedgerEvent;
}
