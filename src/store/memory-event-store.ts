import { decodeEvent } from '../../events/decode-event.js';
import { GENESIS_HASH } from '../../events/hash-chain.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { AppendRequest, AppendResult, ChainHead, ConsumerPositions, EventStore, NewEvent, RawEvent, ReadFilter, SchedulerHealthRow, SchedulerHealthStore } from './event-store.js';
import { sealEvents } from './seal-events.js';
import { batchesOf, ChainUnsealer } from './unseal-chain.js';

type Stored = { raw: RawEvent; event: RecordedEvent; pipeline: string; runId: string | null };

/**
 * An event store held in memory: what `replay` and the testing helpers fold
 * with the real `Ledger`, so a replayed file is read by exactly the code that
 * reads a database. One process, one writer.
 *
 * `fromRows` loads stored rows as they are, without requiring a whole chain,
 * so an export filtered to one pipeline (positions with gaps) replays too;
 * `verify` and `import` are where chains are checked.
 *
 * @example
 * const store = MemoryEventStore.fromRows(parsed.rows);
 * const ledger = new Ledger(store, () => Date.parse('2026-11-05T01:00:00+07:00'), 'replay');
 * const view = await ledger.state({ pipeline: 'etl_orders' });
 */
export class MemoryEventStore implements EventStore {
  readonly kind = 'memory' as const;
  readonly capabilities = { concurrentWriters: 'none' as const };
  readonly #positions = new Map<string, { position: number; updatedAt: string }>();
  readonly consumers: ConsumerPositions = {
    get: async (name) => this.#positions.get(name)?.position ?? null,
    save: async (name, position, at) => void this.#positions.set(name, { position: Math.max(position, this.#positions.get(name)?.position ?? 0), updatedAt: at }),
    list: async () => [...this.#positions].map(([name, p]) => ({ name, ...p })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  readonly #schedulers = new Map<string, SchedulerHealthRow>();
  readonly schedulers: SchedulerHealthStore = {
    save: async (row) => void this.#schedulers.set(row.id, row),
    list: async () => [...this.#schedulers.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    remove: async (ids) => {
      for (const id of ids) this.#schedulers.delete(id);
    },
  };
  #rows: Stored[] = [];

  /** Rows in increasing position order, e.g. the event lines of an export; each payload must decode. */
  static fromRows(rows: Iterable<RawEvent>): MemoryEventStore {
    const store = new MemoryEventStore();
    for (const raw of rows) {
      const last = store.#rows.at(-1);
      if (last && raw.position <= last.raw.position) {
        throw new LedgerError('input.outOfOrder', `event at position ${raw.position} comes after position ${last.raw.position}; rows must be in position order`);
      }
      store.#rows.push(stored(raw));
    }
    return store;
  }

  async append(requests: AppendRequest[]): Promise<AppendResult> {
    const all = requests.flatMap((r) => r.events);
    const already = all.map((e) => this.#rows.find((row) => row.event.eventId === e.eventId));
    if (already.some((row) => row !== undefined)) {
      if (already.some((row) => row === undefined)) {
        throw new LedgerError('input.eventIdReused', 'some event ids of this append are already stored and some are not; event ids must be unique per event');
      }
      return { ok: true, events: (already as Stored[]).map((row) => row.event), head: await this.head(), alreadyAppended: true };
    }
    const versions = new Map<string, number>();
    const batch: Array<{ event: NewEvent; streamVersion: number }> = [];
    for (const request of requests) {
      const actual = versions.get(request.stream) ?? this.#streamVersion(request.stream);
      if (request.expectedVersion !== 'any' && request.expectedVersion !== actual) {
        return { ok: false, conflict: { stream: request.stream, expected: request.expectedVersion, actual } };
      }
      request.events.forEach((event, i) => batch.push({ event, streamVersion: actual + i + 1 }));
      versions.set(request.stream, actual + request.events.length);
    }
    const sealed = sealEvents(await this.head(), batch);
    for (const s of sealed) {
      this.#rows.push({ raw: { position: s.event.position, payload: s.payload, prevHash: s.event.prevHash, hash: s.event.hash }, event: s.event, pipeline: s.pipeline, runId: s.runId });
    }
    return { ok: true, events: sealed.map((s) => s.event), head: await this.head(), alreadyAppended: false };
  }

  async *read(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    for (const rows of this.#select(filter)) yield rows.map((row) => row.event);
  }

  async *readRaw(filter: Pick<ReadFilter, 'fromPosition' | 'toPosition' | 'batchSize'> = {}): AsyncIterable<RawEvent[]> {
    for (const rows of this.#select(filter)) yield rows.map((row) => row.raw);
  }

  *#select(filter: ReadFilter): Generator<Stored[]> {
    const from = filter.fromPosition ?? 1;
    const to = filter.toPosition ?? Number.MAX_SAFE_INTEGER;
    const size = filter.batchSize ?? 1000;
    let batch: Stored[] = [];
    for (const row of this.#rows) {
      const p = row.raw.position;
      if (p < from || p > to) continue;
      if (filter.pipeline !== undefined && row.pipeline !== filter.pipeline) continue;
      if (filter.stream !== undefined && row.event.stream !== filter.stream) continue;
      if (filter.runId !== undefined && row.runId !== filter.runId) continue;
      if (filter.types !== undefined && !filter.types.includes(row.event.type)) continue;
      batch.push(row);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  async findRun(runId: string): Promise<{ pipeline: string; stream: string } | null> {
    const row = this.#rows.find((r) => r.runId === runId && r.event.type === 'RunStarted');
    return row ? { pipeline: row.pipeline, stream: row.event.stream } : null;
  }

  async head(): Promise<ChainHead> {
    const last = this.#rows.at(-1);
    return last ? { position: last.raw.position, hash: last.raw.hash } : { position: 0, hash: GENESIS_HASH };
  }

  async positionAt(instant: string): Promise<number> {
    // Same rule as the database adapters: the event before the first one recorded after the instant.
    const at = Date.parse(instant);
    const first = this.#rows.find((row) => Date.parse(row.event.recordedAt) > at);
    return first ? first.raw.position - 1 : (await this.head()).position;
  }

  async importSealed(rows: RawEvent[] | AsyncIterable<RawEvent[]>): Promise<ChainHead> {
    if (this.#rows.length > 0) throw new LedgerError('ledger.notEmpty', `this in-memory ledger already holds ${this.#rows.length} events; import only into an empty ledger`);
    const unsealer = new ChainUnsealer();
    const imported: Stored[] = [];
    for await (const batch of batchesOf(rows)) {
      (await unsealer.next(batch)).forEach((s, i) => imported.push({ raw: batch[i] as RawEvent, event: s.event, pipeline: s.pipeline, runId: s.runId }));
    }
    this.#rows = imported;
    return this.head();
  }

  async close(): Promise<void> {}

  #streamVersion(stream: string): number {
    let version = 0;
    for (const row of this.#rows) if (row.event.stream === stream) version = Math.max(version, row.event.streamVersion);
    return version;
  }
}

function stored(raw: RawEvent): Stored {
  let payload: unknown;
  try {
    payload = JSON.parse(raw.payload);
  } catch {
    throw new LedgerError('input.badPayload', `event at position ${raw.position} is not valid JSON`);
  }
  const decoded = decodeEvent(payload, { prevHash: raw.prevHash, hash: raw.hash }, { validate: true });
  if (!decoded.ok) throw new LedgerError('input.badEvent', `event at position ${raw.position}: ${decoded.reason}`);
  const event = decoded.event;
  return { raw, event, pipeline: event.data.pipeline, runId: 'runId' in event.data ? event.data.runId : null };
}
