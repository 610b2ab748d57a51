import { setTimeout as sleep } from 'node:timers/promises';
import { leaseExpired } from '../../projections/date-state.js';
import type { Ledger } from '../ledger/ledger.js';
import { checkPoolName } from '../ledger/build-definition.js';
import { LedgerError } from '../errors.js';
import { enqueue, type PlaceOrder, type Waiter } from './place-order.js';

/** How often a run waiting for a place in a pool looks at the ledger again (places freed by other processes). */
const POOL_POLL_MS = 250;

/** A live run of a pool's pipelines, as the ledger shows it. */
export type PoolRun = { pipeline: string; date: string; runId: string; startPosition: number };

/** A place held in a pool by one date of this process: from before its claim until its outcome. */
export type PoolHolder = {
  pool: string;
  size: number;
  /** After the claim: waits until the run is among the pool's `size` oldest live runs (false: aborted first). */
  settle(runId: string, signal?: AbortSignal): Promise<boolean>;
  release(): void;
};

/**
 * The places of the pools sized for one process (`--pool NAME=N`), shared by every runner of it (the
 * scheduler's passes, a fleet's pipelines). A pool's places count the ledger's live runs of its pipelines
 * (every process's, and manual runs) plus the places this process handed out and has not claimed yet; when
 * places are short the waiter of the highest priority goes first, then the oldest date. Two processes that
 * take the last place at once are settled after the claim, as max-active-runs settles them: the later
 * start waits, its lease kept by its heartbeat, until it is among the pool's N oldest live runs.
 */
export type PoolPlaces = {
  sizes: ReadonlyMap<string, number>;
  /** A place in `pool` (null: aborted first); a pool without a size here is not limited (a holder that never waits). */
  acquire(pool: string, order: PlaceOrder, signal?: AbortSignal, onWait?: (live: PoolRun[], size: number) => void): Promise<PoolHolder | null>;
};

/**
 * @example
 * const pools = poolPlaces(ledger, new Map([['warehouse', 2]]));
 * const holder = await pools.acquire('warehouse', { priority: 1, logicalDate }, signal);
 */
export function poolPlaces(ledger: Ledger, sizes: ReadonlyMap<string, number>, options: { pollMs?: number } = {}): PoolPlaces {
  const pollMs = options.pollMs ?? POOL_POLL_MS;
  const pools = new Map<string, PoolQueue>();
  const queueOf = (pool: string, size: number): PoolQueue => {
    let queue = pools.get(pool);
    if (!queue) {
      queue = new PoolQueue(ledger, pool, size, pollMs);
      pools.set(pool, queue);
    }
    return queue;
  };
  return {
    sizes,
    async acquire(pool, order, signal, onWait) {
      const size = sizes.get(pool);
      if (size === undefined) return unlimited(pool);
      return queueOf(pool, size).acquire(order, signal, onWait);
    },
  };
}

/** The live runs of a pool's pipelines on the ledger, oldest start first: the order every process agrees on. */
export async function livePoolRuns(ledger: Ledger, pool: string): Promise<PoolRun[]> {
  const nowMs = ledger.now();
  const runs: PoolRun[] = [];
  for (const definition of await ledger.pipelines()) {
    if (definition.pool !== pool) continue;
    const { state } = await ledger.pipeline(definition.pipeline);
    for (const d of state.dates.values()) {
      if (d.status === 'running' && !leaseExpired(d, nowMs)) runs.push({ pipeline: definition.pipeline, date: d.date, runId: d.runId, startPosition: d.startPosition });
    }
  }
  return runs.sort((a, b) => a.startPosition - b.startPosition);
}

/**
 * Pool sizes as a map, each a pool name and a whole number of 1 or more (`input.invalidPool` otherwise).
 *
 * @example
 * checkPoolSizes({ warehouse: 2 }, 'ledger.backfill({ pools })') // Map { 'warehouse' => 2 }
 */
export function checkPoolSizes(pools: Readonly<Record<string, number>> | ReadonlyMap<string, number>, what: string): Map<string, number> {
  const entries = pools instanceof Map ? [...pools.entries()] : Object.entries(pools);
  const sizes = new Map<string, number>();
  for (const [name, size] of entries) {
    checkPoolName(name, what);
    if (!Number.isSafeInteger(size) || size < 1) throw new LedgerError('input.invalidPool', `${what}: pool ${name} needs a size of 1 or more, not ${String(size)}`);
    sizes.set(name, size);
  }
  return sizes;
}

/**
 * `--pool NAME=N` as the runner commands take it, repeated for several pools.
 *
 * @example
 * parsePoolSizes(['warehouse=2', 'api=5']) // Map { 'warehouse' => 2, 'api' => 5 }
 */
export function parsePoolSizes(texts: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const text of texts) {
    const match = /^([^=]+)=(\d+)$/.exec(text.trim());
    if (!match) throw new LedgerError('input.invalidPool', `--pool '${text}' is not NAME=N; give the pool and how many of its runs may run at once, e.g. --pool warehouse=2`);
    const name = checkPoolName(match[1] as string, '--pool');
    const size = Number(match[2]);
    if (!Number.isSafeInteger(size) || size < 1) throw new LedgerError('input.invalidPool', `--pool ${name} needs a size of 1 or more, not ${match[2] as string}`);
    if (sizes.has(name) && sizes.get(name) !== size) throw new LedgerError('input.invalidPool', `--pool ${name} is given twice, as ${sizes.get(name) as number} and ${size}; give each pool once`);
    sizes.set(name, size);
  }
  return sizes;
}

function unlimited(pool: string): PoolHolder {
  return { pool, size: Number.POSITIVE_INFINITY, settle: () => Promise.resolve(true), release: () => {} };
}

type Held = { runId: string | null };

class PoolQueue {
  readonly #waiting: Waiter[] = [];
  readonly #held = new Set<Held>();
  #seq = 0;
  #pumping = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly pool: string,
    private readonly size: number,
    private readonly pollMs: number,
  ) {}

  acquire(order: PlaceOrder, signal: AbortSignal | undefined, onWait: ((live: PoolRun[], size: number) => void) | undefined): Promise<PoolHolder | null> {
    if (signal?.aborted) return Promise.resolve(null);
    return new Promise<PoolHolder | null>((resolve) => {
      let told = false;
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(null);
      };
      const waiter: Waiter & { tell?: (live: PoolRun[]) => void } = {
        order,
        seq: this.#seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#holder());
        },
        tell: (live) => {
          if (told) return;
          told = true;
          onWait?.(live, this.size);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      enqueue(this.#waiting, waiter);
      this.#pump();
    });
  }

  #holder(): PoolHolder {
    const held: Held = { runId: null };
    this.#held.add(held);
    let released = false;
    return {
      pool: this.pool,
      size: this.size,
      settle: async (runId, signal) => {
        held.runId = runId;
        for (;;) {
          if (signal?.aborted) return false;
          const live = await livePoolRuns(this.ledger, this.pool);
          const rank = live.findIndex((r) => r.runId === runId);
          // Not live any more (cleared, taken over): the run's own fencing deals with it.
          if (rank < 0 || rank < this.size) return true;
          try {
            await sleep(this.pollMs, undefined, signal ? { signal } : {});
          } catch {
            return false;
          }
        }
      },
      release: () => {
        if (released) return;
        released = true;
        this.#held.delete(held);
        this.#pump();
      },
    };
  }

  /** Hands out the free places, a moment after the requests made together have arrived; looks again later while some wait. */
  #pump(): void {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    clearTimeout(this.#timer);
    setImmediate(() => {
      void this.#grant()
        .catch(() => undefined)
        .finally(() => {
          this.#pumping = false;
          if (this.#again) {
            this.#again = false;
            this.#pump();
          } else if (this.#waiting.length > 0) {
            this.#timer = setTimeout(() => this.#pump(), this.pollMs);
          }
        });
    });
  }

  async #grant(): Promise<void> {
    if (this.#waiting.length === 0) return;
    const live = await livePoolRuns(this.ledger, this.pool);
    const mine = new Set([...this.#held].flatMap((h) => (h.runId === null ? [] : [h.runId])));
    const others = live.filter((r) => !mine.has(r.runId)).length;
    let free = this.size - this.#held.size - others;
    while (free > 0 && this.#waiting.length > 0) {
      free -= 1;
      (this.#waiting.shift() as Waiter).grant(true);
    }
    for (const waiter of this.#waiting) (waiter as Waiter & { tell?: (live: PoolRun[]) => void }).tell?.(live);
  }
}
