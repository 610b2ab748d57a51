import { currentSchemaVersion, isEventType } from '../../events/event-types.js';
import type { EventType } from '../../events/ledger-event.js';
import { LedgerError } from '../errors.js';
import type { LogInput } from './ledger-types.js';
import { parseAsOf, parseInstant } from './parse-instant.js';
import { parseWholeNumber } from './parse-whole-number.js';

/** The `log` query's options as the CLI's flags and the API's query parameters spell them, read into a `LogInput`. */
export type LogOpts = { date?: string; run?: string; type?: string; actor?: string; since?: string; until?: string; limit?: string; asOf?: string; json?: boolean; jsonl?: boolean; wide?: boolean };

export function logInput(pipeline: string | undefined, opts: LogOpts): LogInput {
  const input: LogInput = {};
  if (pipeline !== undefined) input.pipeline = pipeline;
  if (opts.date !== undefined) input.date = opts.date;
  if (opts.run !== undefined) input.runId = opts.run;
  if (opts.actor !== undefined) input.actor = opts.actor;
  if (opts.type !== undefined) input.types = opts.type.split(',').map((t) => eventType(t.trim()));
  if (opts.since !== undefined) input.since = new Date(parseInstant(opts.since, '--since')).toISOString();
  if (opts.until !== undefined) input.until = new Date(parseInstant(opts.until, '--until')).toISOString();
  if (opts.limit !== undefined) input.limit = parseWholeNumber(opts.limit, '--limit', 1);
  const asOf = parseAsOf(opts.asOf);
  if (asOf) input.asOf = asOf;
  return input;
}

/** An event type named on the command line (`--type RunFailed`); a near miss gets a "did you mean". */
export function eventType(text: string): EventType {
  if (isEventType(text)) return text;
  const known = Object.keys(currentSchemaVersion);
  const near = known.find((k) => k.toLowerCase() === text.toLowerCase()) ?? known.find((k) => k.toLowerCase().includes(text.toLowerCase()) && text.length >= 3);
  throw new LedgerError('input.unknownEventType', `--type '${text}' is not an event type${near ? `; did you mean ${near}?` : `; use one of ${known.join(', ')}`}`);
}
