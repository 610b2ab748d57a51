import { MemoryEventStore } from '../store/memory-event-store.js';
import { Ledger } from '../open-ledger.js';
import type { RawEvent } from '../store/event-store.js';

export type MemoryLedgerOptions = {
  /** Milliseconds since the epoch (default: a clock fixed at 2026-01-01T00:00:00Z, so tests never read the real time). */
  clock?: () => number;
  actor?: string;
  /** Stored rows to start from (e.g. `recordRows(events)` or an export's rows). */
  rows?: Iterable<RawEvent>;
};

/**
 * A full `Ledger` over an in-memory store: the real facade, deciders and
 * folds, no file. For tests of code that drives a ledger.
 *
 * @example
 * let now = Date.parse('2026-11-05T01:00:00+07:00');
 * const ledger = openMemoryLedger({ clock: () => now });
 * await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
 */
export function openMemoryLedger(options: MemoryLedgerOptions = {}): Ledger {
  const store = options.rows === undefined ? new MemoryEventStore() : MemoryEventStore.fromRows(options.rows);
  const fixed = Date.parse('2026-01-01T00:00:00Z');
  return new Ledger(store, options.clock ?? (() => fixed), options.actor ?? 'test');
}
