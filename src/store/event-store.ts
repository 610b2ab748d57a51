import type { EventMetadata } from '../../events/types/event-metadata.js';
import type { EventType, LedgerEvent } from '../../events/types/ledger-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { ReadModels } from './read-models.js';

/** An event to append: the domain event plus the envelope fields the caller decides. */
export type NewEvent = LedgerEvent & {
  eventId: string;
  stream: string;
  recordedAt: string;
  metadata: EventMetadata;
};

/** `n`: the stream must be at version n (0 = must not exist yet); `any`: no check. */
export type ExpectedVersion = number | 'any';

export type AppendRequest = { stream: string; expectedVersion: ExpectedVersion; events: NewEvent[] };

export type AppendResult =
  | { ok: true; events: RecordedEvent[]; head: ChainHead; alreadyAppended: boolean }
  | { ok: false; conflict: { stream: string; expected: ExpectedVersion; actual: number } };

export type ChainHead = { position: number; hash: string };

export type ReadFilter = {
  /** Only events of this pipeline. */
  pipeline?: string;
  /** Only events of this stream. */
  stream?: string;
  /** Only events of this run. */
  runId?: string;
  /** Only events of these types. The SQLite and PostgreSQL stores filter by their type column, so events of other types are not decoded; an export file is read line by line and decodes each. */
  types?: readonly EventType[];
  /** Inclusive lower bound on position. */
  fromPosition?: number;
  /** Inclusive upper bound on position. */
  toPosition?: number;
  /** Rows per batch (default 1000). */
  batchSize?: number;
  /** Check every row against its schema (import, verify); the hot path trusts rows it wrote. */
  validate?: boolean;
};

/** What a store can do beyond the port, so callers ask instead of testing `kind`. */
export type StoreCapabilities = {
  concurrentWriters: 'none' | 'processes' | 'machines';
  /**
   * `importSealed` stores a row's `checkedColumns` as they are, checking only the links between rows, so
   * `import` can parse, hash and validate the file in a worker thread while the rows go in (SQLite). A
   * store without it would decode every such row again.
   */
  importsCheckedColumns?: true;
};

/**
 * The store port. Both adapters (SQLite, PostgreSQL) implement it; only their
 * files import a database driver.
 *
 * - `append` writes several streams' events in one transaction, atomically:
 *   all requests succeed or none. Positions are global, gapless and in commit
 *   order; each event is hashed onto the chain inside that transaction.
 *   An event whose `eventId` is already stored makes the whole append a no-op
 *   that returns the stored events (idempotent re-append).
 * - `read` streams events in batches so memory follows the batch, not the log.
 * - `importSealed` writes events that were sealed elsewhere (an export)
 *   verbatim, keeping their positions, payload bytes and hashes, in one
 *   transaction, and only into an empty ledger; it re-checks the chain so no
 *   caller can store a broken one.
 */
export interface EventStore {
  readonly kind: 'sqlite' | 'postgres' | 'memory';
  readonly capabilities: StoreCapabilities;
  /** Positions of durable consumers (`follow --consumer`), kept beside the events and outside the hash chain. */
  readonly consumers: ConsumerPositions;
  /**
   * Calls `onAppend` soon after any process appends (PostgreSQL: LISTEN/NOTIFY); absent when the store
   * cannot tell, and callers poll the head. Resolves to a function that stops listening.
   */
  listenForAppends?(onAppend: () => void): Promise<() => Promise<void>>;
  append(requests: AppendRequest[]): Promise<AppendResult>;
  read(filter?: ReadFilter): AsyncIterable<RecordedEvent[]>;
  /**
   * `read` from the newest event back (each batch newest first), so the last n events of a pipeline or
   * run cost n rows by index (`log --limit`); absent where a store cannot, and callers read forward.
   */
  readBackward?(filter?: ReadFilter): AsyncIterable<RecordedEvent[]>;
  /** The stored text of each event (the exact bytes that were hashed), in position order. */
  readRaw(filter?: Pick<ReadFilter, 'fromPosition' | 'toPosition' | 'batchSize'>): AsyncIterable<RawEvent[]>;
  /** The pipeline and stream of a run, from its `RunStarted`, or null. */
  findRun(runId: string): Promise<{ pipeline: string; stream: string } | null>;
  head(): Promise<ChainHead>;
  /** The last position whose `recordedAt` is at or before the instant (0 if none). */
  positionAt(instant: string): Promise<number>;
  /**
   * Stores a whole chain from position 1 verbatim (import); refuses a ledger that already holds events.
   * Batches are written as they arrive inside one transaction, so a bad row, or an error thrown by the
   * iterable itself (a bad line further down a streamed file), rolls back everything.
   */
  importSealed(rows: RawEvent[] | AsyncIterable<RawEvent[]>): Promise<ChainHead>;
  /**
   * The rows of `runledger_meta` as stored, beside the rows this build would have written for a ledger
   * of the tables' actual shape, so `verify` can tell an edited row; absent for stores without one.
   */
  readMeta?(): Promise<LedgerMeta>;
  /** Each scheduler's own health (`runledger scheduler`), kept beside the events and outside the hash chain; absent where a store cannot keep it (a replayed file). */
  readonly schedulers?: SchedulerHealthStore;
  /** Persisted projection checkpoints, when the store keeps them (SQLite and PostgreSQL do). */
  readonly checkpoints?: CheckpointStore;
  /** The read models kept in the append's own transaction (see read-models.ts); absent where the store keeps none. */
  readonly readModels?: ReadModels;
  close(): Promise<void>;
}

export type MetaRow = { key: string; value: string };
/** `stored`: the rows of `runledger_meta`, by key; `expected`: what they must be (see `readMeta`). */
export type LedgerMeta = { stored: MetaRow[]; expected: MetaRow[] };

/**
 * One pipeline's folded state as of `position` (the last event of that
 * pipeline it covers), kept in the ledger's database beside the events but
 * outside the hash chain. `eventHash` is the hash of the event at `position`
 * when it was written; `hashAtPosition` is the hash the ledger holds there now
 * (null when the position is past the head), so a reader can tell a
 * checkpoint of this chain from one of another.
 */
export type StoredCheckpoint = { pipeline: string; position: number; eventHash: string; projectionVersion: number; state: string };
export type LoadedCheckpoint = StoredCheckpoint & { hashAtPosition: string | null };

/**
 * A cache, never a source of truth: every method may fail or find nothing and
 * the ledger still answers by folding events. `save` never lowers a
 * pipeline's checkpoint to an earlier position.
 */
export interface CheckpointStore {
  load(pipeline: string): Promise<LoadedCheckpoint | null>;
  save(checkpoint: StoredCheckpoint): Promise<void>;
  list(): Promise<LoadedCheckpoint[]>;
  /** Deletes one pipeline's checkpoint, or all of them. */
  discard(pipeline?: string): Promise<void>;
  /** Every pipeline that has events (from the events' index, without reading payloads). */
  pipelines(): Promise<string[]>;
}

/**
 * A stored row as text: what `export` writes and `verify` re-hashes. `signature` is the signature of
 * `hash` stored beside it when the ledger was signing (`RUNLEDGER_SIGNING_KEY`); null or absent otherwise.
 */
export type RawEvent = {
  position: number;
  payload: string;
  prevHash: string;
  hash: string;
  signature?: string | null;
  columns?: StoredColumns;
  /**
   * The event already decoded from `payload` by a checker that also checked its hash and its schema
   * (import's `ExportChecker`, line by line): `importSealed` then checks only the links between rows
   * instead of parsing, hashing and validating every event a second time.
   */
  checked?: RecordedEvent;
  /**
   * The same promise from a checker in another thread (import's worker), which hands on only the columns
   * the row is stored with, not the decoded event. Stores with `importsCheckedColumns` take them as they
   * are; the others decode and check the row like one nobody checked.
   */
  checkedColumns?: StoredColumns;
};

/**
 * The payload fields a database adapter copies into columns of their own, by column name: queries
 * select rows by them, but they are not hashed, so `verify` checks each one against the payload.
 */
export type StoredColumns = { event_id: string; stream: string; stream_version: number; pipeline: string; run_id: string | null; type: string; recorded_at: string };

/**
 * Where each durable consumer got to: the last position it acknowledged. Kept
 * in a table of its own, so `verify`, `export` and the chain never see it.
 */
export interface ConsumerPositions {
  /** The last position the consumer acknowledged, or null for a consumer never seen. */
  get(name: string): Promise<number | null>;
  /** Records `position` as handled; a position lower than the stored one is ignored (a slower twin never moves it back). */
  save(name: string, position: number, at: string): Promise<void>;
  /** Every consumer with its position and when it last moved, by name. */
  list(): Promise<ConsumerRow[]>;
}

export type ConsumerRow = { name: string; position: number; updatedAt: string };

/**
 * What a scheduler process says about itself, written by it as it works and on a heartbeat, read by `status`,
 * the web view and `/metrics`. `body` is the scheduler's own JSON document (see `scheduler-health.ts`).
 */
export type SchedulerHealthRow = { id: string; updatedAt: string; body: string };

/**
 * The schedulers' health rows, in a table of their own (`runledger_schedulers`), created on the first save, so
 * `verify`, `export` and the chain never see them.
 */
export interface SchedulerHealthStore {
  /** Writes the row of `id`, replacing the one there. */
  save(row: SchedulerHealthRow): Promise<void>;
  /** Every row, by id. */
  list(): Promise<SchedulerHealthRow[]>;
  remove(ids: readonly string[]): Promise<void>;
}
