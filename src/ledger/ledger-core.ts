import { nodeCrypto } from '../node-crypto.js';
import { DEFAULT_PRODUCER_TIME_WINDOW, type ProducerTimeWindow } from '../../projections/producer-time.js';
import type { EventStore } from '../store/event-store.js';
import type { RebuildProgress } from '../store/read-models.js';
import type { Loaded } from './projection-checkpoint.js';

/** The default of `LedgerOptions.checkpointAfter`. */
export const CHECKPOINT_AFTER = 256;

/**
 * What every ledger operation shares: the store, the clock, the actor, the secrets to redact, and the
 * per-pipeline fold cache. The `Ledger` facade holds one privately and hands it to the modules that
 * write (ledger-writes.ts), load (load-pipeline.ts), answer (ledger-queries.ts) and list (ledger-log.ts).
 *
 * @example
 * const core = createLedgerCore(store, Date.now, 'ops@host');
 */
export type LedgerCore = {
  readonly store: EventStore;
  /** Milliseconds since the epoch; the only clock the ledger reads. */
  readonly clock: () => number;
  readonly actor: string;
  /** A new ULID (event and run ids), from the ledger's clock. */
  readonly newId: () => string;
  readonly checkpointAfter: number;
  readonly secrets: readonly string[];
  /** Latest folded state per pipeline; caught up incrementally from its position. */
  readonly cache: Map<string, Loaded>;
  /**
   * The load in flight per pipeline. `evolve` updates the cached state's maps
   * in place, so two loads of one pipeline must never fold at once: both would
   * apply the same new events to the same maps (a second start counted as
   * attempt 9 after eight concurrent operations, as the runner's
   * max-active-runs and any `Promise.all` caller do).
   */
  readonly loading: Map<string, Promise<Loaded>>;
  /** Events folded per pipeline since its checkpoint was loaded or saved. */
  readonly uncheckpointed: Map<string, number>;
  /** Told how a rebuild of the read models advances (the CLI draws it on a terminal). */
  readonly rebuildProgress?: RebuildProgress;
  /** How far from the clock a producer's own time (`at`, an OpenLineage `eventTime`) may be. */
  readonly producerTime: ProducerTimeWindow;
};

/** A fresh core: an empty cache, and ids from a monotonic ULID factory on the ledger's clock. */
export function createLedgerCore(store: EventStore, clock: () => number, actor: string, options: LedgerCoreOptions = {}): LedgerCore {
  let ids: ((seedTime?: number) => string) | undefined;
  return {
    store,
    clock,
    actor,
    newId: () => (ids ??= ulidFactory())(clock()),
    checkpointAfter: options.checkpointAfter ?? CHECKPOINT_AFTER,
    secrets: options.secrets ?? [],
    cache: new Map(),
    loading: new Map(),
    uncheckpointed: new Map(),
    ...(options.rebuildProgress === undefined ? {} : { rebuildProgress: options.rebuildProgress }),
    producerTime: options.producerTime ?? DEFAULT_PRODUCER_TIME_WINDOW,
  };
}

/** The settings a core takes beyond its store, clock and actor. */
export type LedgerCoreOptions = { checkpointAfter?: number; secrets?: readonly string[]; rebuildProgress?: RebuildProgress; producerTime?: ProducerTimeWindow };

/**
 * A monotonic ULID factory, `ulid` loaded when the first id is made: it loads `node:crypto` (for its random part),
 * which a query that appends nothing need not load.
 */
function ulidFactory(): (seedTime?: number) => string {
  // node:module asked for when needed: imported, it would be loaded at every start (5M instructions).
  return (process.getBuiltinModule('node:module').createRequire(import.meta.url)('ulid') as typeof import('ulid')).monotonicFactory(pooledRandom());
}

/**
 * The random fractions of the ids, as `ulid`'s own (a random byte / 256), from bytes drawn 4 KiB at a time: its
 * default asks `crypto.getRandomValues` for one byte per character, sixteen calls an id, which were a tenth of a
 * scheduler's main-thread time in a burst of 1,000 starts.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let at = pool.length;
  return () => {
    if (at === pool.length) {
      nodeCrypto().randomFillSync(pool);
      at = 0;
    }
    return (pool[at++] as number) / 256;
  };
}
