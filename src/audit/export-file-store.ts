import { decodeEvent } from '../../events/decode-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { AppendResult, ChainHead, ConsumerPositions, EventStore, RawEvent, ReadFilter } from '../store/event-store.js';
import { EVENT_LINE } from './export-format.js';
import { fileLines } from './read-export-file.js';


/**
 * A read-only event store over an export file that was already checked
 * (`ExportChecker`): every read streams the file again, so `replay` folds a
 * file of any size with memory that follows the projection, not the file.
 * Appends and imports are refused; nothing writes to an export.
 *
 * @example
 * const store = new ExportFileStore('ledger.jsonl', trailer.head);
 * const view = await new Ledger(store, () => nowMs, 'replay').state({ pipeline: 'etl_orders' });
 */
export class ExportFileStore implements EventStore {
  readonly kind = 'memory' as const;
  readonly capabilities = { concurrentWriters: 'none' as const };
  readonly #path: string;
  readonly #head: ChainHead;
  /** A file cannot keep a consumer's position; a replay has no consumers. */
  readonly consumers: ConsumerPositions = {
    get: async () => null,
    save: async () => {
      throw new LedgerError('input.readOnlyLedger', `${this.#path} is an export file; a consumer's position cannot be kept in it`);
    },
    list: async () => [],
  };

  constructor(path: string, head: ChainHead) {
    this.#path = path;
    this.#head = head;
  }

  async append(): Promise<AppendResult> {
    throw new LedgerError('input.readOnlyLedger', `${this.#path} is an export file; it cannot be appended to`);
  }

  async importSealed(): Promise<ChainHead> {
    throw new LedgerError('input.readOnlyLedger', `${this.#path} is an export file; import it into a ledger with \`runledger import\``);
  }

  async *read(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    const from = filter.fromPosition ?? 1;
    const to = filter.toPosition ?? Number.MAX_SAFE_INTEGER;
    // A cheap look for the pipeline's name in the canonical payload skips most lines of other pipelines unparsed.
    const needle = filter.pipeline === undefined ? undefined : `"pipeline":${JSON.stringify(filter.pipeline)}`;
    const limit = filter.batchSize ?? 1000;
    let batch: RecordedEvent[] = [];
    for await (const row of this.#rows(needle)) {
      const event = decode(row, filter.validate ?? false);
      if (event.position < from) continue;
      if (event.position > to) break;
      if (filter.pipeline !== undefined && event.data.pipeline !== filter.pipeline) continue;
      if (filter.stream !== undefined && event.stream !== filter.stream) continue;
      if (filter.runId !== undefined && !('runId' in event.data && event.data.runId === filter.runId)) continue;
      if (filter.types !== undefined && !filter.types.includes(event.type)) continue;
      batch.push(event);
      if (batch.length >= limit) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  async *readRaw(filter: Pick<ReadFilter, 'fromPosition' | 'toPosition' | 'batchSize'> = {}): AsyncIterable<RawEvent[]> {
    const from = filter.fromPosition ?? 1;
    const to = filter.toPosition ?? Number.MAX_SAFE_INTEGER;
    const limit = filter.batchSize ?? 1000;
    let batch: RawEvent[] = [];
    for await (const row of this.#rows()) {
      const position = decode(row, false).position;
      if (position < from) continue;
      if (position > to) break;
      batch.push({ ...row, position });
      if (batch.length >= limit) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  async findRun(runId: string): Promise<{ pipeline: string; stream: string } | null> {
    for await (const batch of this.read({ runId })) {
      const started = batch.find((e) => e.type === 'RunStarted');
      if (started) return { pipeline: started.data.pipeline, stream: started.stream };
    }
    return null;
  }

  async head(): Promise<ChainHead> {
    return this.#head;
  }

  async positionAt(instant: string): Promise<number> {
    // Same rule as the database adapters: the event before the first one recorded after the instant.
    const at = Date.parse(instant);
    for await (const batch of this.read()) {
      const first = batch.find((e) => Date.parse(e.recordedAt) > at);
      if (first) return first.position - 1;
    }
    return this.#head.position;
  }

  async close(): Promise<void> {}

  /** The event lines of the file as stored rows; the position is not known until the payload is decoded. */
  async *#rows(needle?: string): AsyncIterable<RawEvent> {
    for await (const { line } of fileLines(this.#path, 'export file')) {
      // Tested on the line before anything is allocated for it: most lines of a big file are skipped here.
      if (needle !== undefined && !line.includes(needle)) continue;
      const match = EVENT_LINE.exec(line.replace(/\r$/, ''));
      if (!match) continue;
      yield { position: 0, payload: match[4] as string, prevHash: match[1] as string, hash: match[2] as string, signature: match[3] ?? null };
    }
  }
}

function decode(row: RawEvent, validate: boolean): RecordedEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    payload = undefined;
  }
  const decoded = decodeEvent(payload, { prevHash: row.prevHash, hash: row.hash }, { validate });
  if (!decoded.ok) throw new LedgerError('input.badExport', `an event line of the export no longer decodes (${decoded.reason}); the file changed while it was read`);
  return decoded.event;
}
