/**
 * Which waiting run gets a free place first (Airflow's priority_weight): the higher `priority`, then the
 * oldest logical date, then the one that asked first.
 */
export type PlaceOrder = { priority: number; logicalDate: string };

/**
 * Negative when `a` goes before `b`.
 *
 * @example
 * comparePlaceOrder({ priority: 5, logicalDate: '2026-11-03T00:00:00Z' }, { priority: 1, logicalDate: '2026-11-01T00:00:00Z' }) // < 0
 */
export function comparePlaceOrder(a: PlaceOrder | undefined, b: PlaceOrder | undefined): number {
  if (a === undefined || b === undefined) return 0;
  if (a.priority !== b.priority) return b.priority - a.priority;
  return Date.parse(a.logicalDate) - Date.parse(b.logicalDate);
}

/** A queue of waiters kept in place order (stable: equal orders keep the order they asked in). */
export type Waiter = { order: PlaceOrder | undefined; seq: number; grant: (ok: boolean) => void };

/** Inserts `waiter` where the order puts it, after every waiter it does not go before. */
export function enqueue(queue: Waiter[], waiter: Waiter): void {
  let at = queue.length;
  while (at > 0 && comparePlaceOrder(waiter.order, (queue[at - 1] as Waiter).order) < 0) at -= 1;
  queue.splice(at, 0, waiter);
}
