import type { ChainHead, EventStore } from '../store/event-store.js';

export type WatchOptions = {
  /** How often to look at the head when the store cannot notify (default 250 ms). */
  intervalMs?: number;
  /** How often to look anyway when it can (a safety net for a dropped notification connection; default 5 s). */
  notifiedIntervalMs?: number;
  /** The head already seen; the first call of `onAppend` is for anything past it (default: the head now). */
  after?: number;
};

/**
 * Calls `onAppend` whenever the ledger's head moves past the last head seen,
 * whoever appended (another process, another machine). On PostgreSQL the
 * append's NOTIFY wakes it at once (LISTEN/NOTIFY), with a slow poll behind
 * it; elsewhere it polls the head, which is one indexed read. Calls never
 * overlap and heads only grow. Returns a function that stops watching.
 *
 * @example
 * const stop = await watchAppends(ledger.store, (head) => console.log('new events up to', head.position));
 */
export async function watchAppends(store: EventStore, onAppend: (head: ChainHead) => void, options: WatchOptions = {}): Promise<() => Promise<void>> {
  let seen = options.after ?? (await store.head()).position;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking = false;
  let again = false;
  const interval = store.listenForAppends ? (options.notifiedIntervalMs ?? 5000) : (options.intervalMs ?? 250);
  // One timer at a time: a look woken by the listener while a timer was set replaces it, so `stop` clears the only one
  // (a timer left behind held a stopped PostgreSQL follower's process open for the 5 s of its slow poll).
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = stopped ? undefined : setTimeout(look, interval);
  };
  const look = async () => {
    if (stopped) return;
    // A notification during a look is not lost: the look runs once more right after.
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    if (timer) clearTimeout(timer);
    try {
      do {
        again = false;
        try {
          const head = await store.head();
          if (!stopped && head.position > seen) {
            seen = head.position;
            onAppend(head);
          }
        } catch {
          // A store that failed once (a dropped connection) is asked again at the next tick.
        }
      } while (again && !stopped);
    } finally {
      looking = false;
    }
    schedule();
  };
  const unlisten = store.listenForAppends ? await store.listenForAppends(() => void look()) : undefined;
  // Unless the listener's first wake-up is looking already: that look sets the timer when it is done.
  if (!looking) schedule();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await unlisten?.();
  };
}

/** Which pipelines changed in a span of positions: each with the position of its last event there; null when the span was too long to read. */
export type PipelineChanges = Record<string, number> | null;

/**
 * The pipelines whose events lie in (`afterPosition`, `toPosition`], each
 * with the position of its last event there, read from the events' streams
 * (`<pipeline>` or `<pipeline>/<date>`). A span longer than `maxEvents` (an
 * import) is not read: null says "any pipeline may have changed".
 *
 * @example
 * await changedPipelines(ledger.store, 41, 44) // { etl_orders: 44, etl_users: 42 }
 */
export async function changedPipelines(store: EventStore, afterPosition: number, toPosition: number, maxEvents = 10_000): Promise<PipelineChanges> {
  if (toPosition - afterPosition > maxEvents) return null;
  const changes: Record<string, number> = {};
  if (toPosition <= afterPosition) return changes;
  for await (const batch of store.read({ fromPosition: afterPosition + 1, toPosition, batchSize: 1000 })) {
    for (const event of batch) changes[event.stream.split('/', 1)[0] ?? event.stream] = event.position;
  }
  return changes;
}
