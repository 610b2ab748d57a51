import type { EventStore } from './event-store.js';
import { openSqliteStore } from './sqlite/sqlite-event-store.js';

export type OpenStoreOptions = {
  /** Create the ledger if it does not exist yet (write commands do; queries do not). */
  create: boolean;
};

/** True for the URLs that select PostgreSQL (DESIGN §5). */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * Opens the store a `--db` value names: a `postgres://` or `postgresql://`
 * URL selects PostgreSQL (`?schema=<name>` picks the schema holding the
 * ledger), anything else is a SQLite file path.
 *
 * @example
 * const store = await openStore('./runledger.db', { create: true });
 * const shared = await openStore('postgres://app@db:5432/ops?schema=ledger', { create: false });
 */
export async function openStore(db: string, options: OpenStoreOptions): Promise<EventStore> {
  if (isPostgresUrl(db)) {
    // Loaded only for a PostgreSQL ledger: the driver is an optional peer and costs start-up time to every SQLite command.
    const { openPostgresStore } = await import('./postgres/postgres-event-store.js');
    return openPostgresStore({ url: db, create: options.create });
  }
  return openSqliteStore({ path: db, create: options.create });
}
