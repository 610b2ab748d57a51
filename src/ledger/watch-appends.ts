import type { ChainHead, EventStore } from '../store/event-store.js';

export type WatchOptions = {
  /** How often to look at the head when the store cannot notify (default 250 ms). */
  intervalMs?: number;
  /** The head already seen; the first call of `onAppend` is for anything past it (default: the head now). */
  after?: number;
};

/**
 * Calls `onAppend` whenever the ledger's head moves past the last head seen,
 * whoever appended (another process, another machine). It polls the head,
 * which is one indexed read. Returns a function that stops watching.
 *
 * @example
 * const stop = await watchAppends(ledger.store, (head) => console.log('new events up to', head.position));
 */
export async function watchAppends(store: EventStore, onAppend: (head: ChainHead) => void, options: WatchOptions = {}): Promise<() => Promise<void>> {
  let seen = options.after ?? (await store.head()).position;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    if (stopped) return;
    try {
      const head = await store.head();
      if (head.position > seen) {
        seen = head.position;
        onAppend(head);
      }
    } catch {
      // A store that failed once (a dropped connection) is asked again at the next tick.
    }
    if (!stopped) timer = setTimeout(look, options.intervalMs ?? 250);
  };
  timer = setTimeout(look, options.intervalMs ?? 250);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
