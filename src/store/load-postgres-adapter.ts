import { LedgerError } from '../errors.js';
import type { openPostgresStore } from './postgres/postgres-event-store.js';

/**
 * Loads the PostgreSQL adapter, and with it `pg`, only when a `postgres://` URL is used: `pg` is an optional peer
 * dependency, so SQLite users need not install it. Its absence is bad input (exit 2) with the command to fix it.
 *
 * @example
 * const openPostgres = await loadPostgresAdapter();
 * const store = await openPostgres({ url: 'postgres://app@db:5432/ops', create: false });
 */
export async function loadPostgresAdapter(): Promise<typeof openPostgresStore> {
  try {
    return (await import('./postgres/postgres-event-store.js')).openPostgresStore;
  } catch (error) {
    if (isMissingPg(error)) {
      throw new LedgerError('input.pgMissing', 'a postgres:// ledger needs the pg package, which is not installed; run: npm install pg', { cause: error });
    }
    throw error;
  }
}

/** Node's "not found" for `pg`: ERR_MODULE_NOT_FOUND from an ES module (the library), MODULE_NOT_FOUND from CommonJS (the bundled CLI). */
function isMissingPg(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /['"]pg['"]/.test(message);
}
