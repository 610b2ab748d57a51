import type { EventStore } from '../../src/store/event-store.js';

/**
 * The same store without its read models and checkpoints: a ledger over it folds the events for every
 * answer, as the previous release did (reading forward: `log --limit` read backward must give the same
 * events). Closing it leaves the store open; the test closes the store's own ledger.
 *
 * @example
 * const folding = new Ledger(foldOnly(ledger.store), clock, 'prop', { checkpointAfter: 0 });
 */
export function foldOnly(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    readModels: undefined,
    checkpoints: undefined,
    readBackward: undefined,
    append: store.append.bind(store),
    read: store.read.bind(store),
    readRaw: store.readRaw.bind(store),
    head: store.head.bind(store),
    findRun: store.findRun.bind(store),
    positionAt: store.positionAt.bind(store),
    importSealed: store.importSealed.bind(store),
    close: async () => undefined,
  });
}
