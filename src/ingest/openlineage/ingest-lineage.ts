import { MemoryEventStore } from '../../store/memory-event-store.js';
import { isLedgerError, LedgerError } from '../../errors.js';
import { Ledger } from '../../ledger/ledger.js';
import type { RawEvent } from '../../store/event-store.js';
import { applyLineageCommand, type ApplyContext, type LineageResult } from './apply-lineage-command.js';
import { BindingIndex } from './binding-index.js';
import { mapLineageEvent } from './map-lineage-event.js';
import { dateTimeMs, parseLineageEvent, type ParsedLineageEvent } from './openlineage-event.js';

/** One event's answer, with its place in the request or file (0-based). */
export type IndexedResult = LineageResult & { index: number; eventType: string | null };

/** A ledger event an ingest appended (or, with `--dry-run`, would append). */
export type WrittenEvent = { position: number; type: string; pipeline: string; date: string | null; runId: string | null; summary: string };

export type IngestReport = {
  dryRun: boolean;
  received: number;
  recorded: number;
  duplicates: number;
  ignored: number;
  refused: number;
  results: IndexedResult[];
  /** Ledger events written (or that would be, on a dry run). */
  written: WrittenEvent[];
  /** Set when `--all-or-nothing` wrote nothing because an event was refused: the counts say what a write would have done. */
  allOrNothing?: true;
};

/** An event that breaks the OpenLineage schema: where, and which rule. */
export type InvalidEvent = { index: number; path: string; message: string };

/** One event of a batch or file: parsed, or refused on its own (it breaks the schema, or its line is not JSON). */
export type LineageEntry = ParsedLineageEvent | { kind: 'invalid'; code: 'input.invalidOpenLineageEvent' | 'input.invalidJson'; message: string };

export type IngestOptions = {
  auto: boolean;
  /** 404 for an event whose job and parent are bound to no pipeline (`--strict`); default: ignored with the reason. */
  strict?: boolean;
  dryRun?: boolean;
  /** List the ledger events written (the CLI does; the HTTP endpoint, with other writers in parallel, does not). */
  listWritten?: boolean;
};

/**
 * Checks every event against the OpenLineage schema first; one invalid event
 * refuses the whole batch (`input.invalidOpenLineageEvent`, HTTP 400, exit 2)
 * with each invalid event's path, and nothing is written, as for any bad
 * input. Returns the parsed events otherwise.
 *
 * @example
 * const events = checkLineageEvents(JSON.parse(body)) // throws naming `event 2: run.runId: must be a UUID`
 */
export function checkLineageEvents(values: readonly unknown[], label: (index: number) => string = (i) => `event ${i + 1}`): ParsedLineageEvent[] {
  const invalid: InvalidEvent[] = [];
  const parsed: ParsedLineageEvent[] = [];
  values.forEach((value, index) => {
    const result = parseLineageEvent(value);
    if (result.ok) parsed.push(result.value);
    else invalid.push({ index, path: result.path, message: result.message });
  });
  if (invalid.length > 0) {
    const first = invalid[0] as InvalidEvent;
    const more = invalid.length > 1 ? ` (and ${invalid.length - 1} more invalid event${invalid.length === 2 ? '' : 's'})` : '';
    throw new InvalidLineageError(`${label(first.index)} breaks the OpenLineage schema at ${first.path}: ${first.message}${more}; nothing was recorded`, invalid);
  }
  return parsed;
}

/**
 * Checks each event against the OpenLineage schema on its own: a valid one
 * is parsed, an invalid one becomes a refusal of that event alone (naming the
 * path and the rule), so the rest of a file can still be recorded.
 *
 * @example
 * parseEachLineageEvent([good, { eventTime: 'x' }]) // [{ kind: 'run', … }, { kind: 'invalid', message: 'breaks the OpenLineage schema at eventTime: …' }]
 */
export function parseEachLineageEvent(values: readonly unknown[]): LineageEntry[] {
  return values.map((value) => {
    const result = parseLineageEvent(value);
    return result.ok ? result.value : { kind: 'invalid', code: 'input.invalidOpenLineageEvent', message: `breaks the OpenLineage schema at ${result.path}: ${result.message}` };
  });
}

/** `input.invalidOpenLineageEvent` with every invalid event, for the HTTP answer. */
export class InvalidLineageError extends LedgerError {
  readonly invalid: InvalidEvent[];
  constructor(message: string, invalid: InvalidEvent[]) {
    super('input.invalidOpenLineageEvent', message);
    this.invalid = invalid;
  }
}

/**
 * Applies a batch of valid OpenLineage events in `eventTime` order (stable,
 * so events of one instant keep their order), one at a time, and answers
 * each in its original place. With `dryRun`, the same code runs against an
 * in-memory copy of the ledger and the real one is left untouched.
 *
 * @example
 * const report = await ingestLineage(ledger, bindings, events, { auto: false });
 */
export async function ingestLineage(ledger: Ledger, bindings: BindingIndex, events: readonly LineageEntry[], options: IngestOptions): Promise<IngestReport> {
  if (options.dryRun) {
    const rows: RawEvent[] = [];
    for await (const batch of ledger.store.readRaw({ batchSize: 5000 })) rows.push(...batch);
    const copy = new Ledger(MemoryEventStore.fromRows(rows), () => ledger.now(), 'dry-run', { producerTime: ledger.producerTime });
    const report = await ingestLineage(copy, new BindingIndex(copy.store), events, { auto: options.auto, strict: options.strict ?? false, listWritten: true });
    return { ...report, dryRun: true };
  }
  const before = options.listWritten ? (await ledger.store.head()).position : 0;
  // Events without a time of their own (invalid ones, JobEvents) come first; their answers do not depend on order.
  const order = events.map((event, index) => ({ event, index, at: event.kind === 'run' ? dateTimeMs(event.event.eventTime) : Number.NEGATIVE_INFINITY }));
  order.sort((a, b) => a.at - b.at || a.index - b.index);
  const results: IndexedResult[] = new Array(events.length);
  const ctx = { ledger, bindings, auto: options.auto, strict: options.strict ?? false };
  for (const { event, index } of order) results[index] = await ingestOne(ctx, event, index);
  const count = (outcome: LineageResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  return {
    dryRun: false,
    received: events.length,
    recorded: count('recorded'),
    duplicates: count('duplicate'),
    ignored: count('ignored'),
    refused: count('refused'),
    results,
    written: options.listWritten ? await writtenSince(ledger, before) : [],
  };
}

async function ingestOne(ctx: ApplyContext, entry: LineageEntry, index: number): Promise<IndexedResult> {
  if (entry.kind === 'invalid') return { index, eventType: null, outcome: 'refused', status: 400, code: entry.code, message: entry.message };
  const noted = (result: IndexedResult): IndexedResult => (entry.notes?.length ? { ...result, message: `${result.message} (${entry.notes.join('; ')})` } : result);
  if (entry.kind !== 'run') {
    return noted({ index, eventType: null, outcome: 'ignored', status: 200, code: null, message: `a ${entry.kind === 'job' ? 'JobEvent' : 'DatasetEvent'} carries no run; runledger records runs only` });
  }
  const eventType = entry.event.eventType ?? null;
  const mapped = mapLineageEvent(entry.event);
  if (!mapped.ok) return noted({ index, eventType, outcome: 'refused', status: 400, code: mapped.code, message: mapped.message, runId: entry.event.run.runId });
  // A producer's clock far ahead would hold its date against every real attempt; far behind is no run of now.
  try {
    ctx.ledger.checkProducerTime(dateTimeMs(entry.event.eventTime), 'eventTime');
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return noted({ index, eventType, outcome: 'refused', status: 400, code: error.code, message: error.message, runId: entry.event.run.runId });
  }
  return noted({ index, eventType, ...(await applyLineageCommand(ctx, mapped.command)) });
}

async function writtenSince(ledger: Ledger, position: number): Promise<WrittenEvent[]> {
  const written: WrittenEvent[] = [];
  for await (const batch of ledger.store.read({ fromPosition: position + 1 })) {
    for (const event of batch) {
      const data = event.data as { pipeline: string; date?: string; runId?: string };
      written.push({ position: event.position, type: event.type, pipeline: data.pipeline, date: data.date ?? null, runId: data.runId ?? null, summary: summarise(event.type, event.data) });
    }
  }
  return written;
}

function summarise(type: string, data: object): string {
  const d = data as Record<string, unknown>;
  switch (type) {
    case 'RunStarted':
      return `attempt ${String(d['attempt'])} (${String(d['runType'])}${d['force'] ? ', forced' : ''}${d['offSchedule'] ? ', off-schedule' : ''})`;
    case 'RunFailed':
      return String(d['error']);
    case 'TaskStateChanged':
      return `task ${String(d['taskId'])} ${String(d['state'])} (try ${String(d['tryNumber'])})`;
    case 'PipelineDefined':
      return `${String(d['schedule'])} in ${String(d['timezone'])} from ${String(d['start'])}`;
    default:
      return '';
  }
}
