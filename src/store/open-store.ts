import { LedgerError } from '../errors.js';
import { eventSigner, SIGNING_KEY_ENV } from './event-signer.js';
import type { EventStore } from './event-store.js';
import { loadPostgresAdapter } from './load-postgres-adapter.js';
import { openSqliteStore } from './sqlite/sqlite-event-store.js';

export type OpenStoreOptions = {
  /** Create the ledger if it does not exist yet (write commands do; queries do not). */
  create: boolean;
  /**
   * Sign every appended event's chain hash: the path of an Ed25519 private key PEM file, or
   * `hmac:<secret>` (HMAC-SHA256). `undefined` takes `RUNLEDGER_SIGNING_KEY` from the environment;
   * `null` (or an empty value) does not sign. The key is never stored in the ledger.
   */
  signingKey?: string | null;
};

/** True for the URLs that select PostgreSQL. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * Opens the store a `--db` value names: a `postgres://` or `postgresql://`
 * URL selects PostgreSQL (`?schema=<name>` picks the schema holding the
 * ledger; `pg` is loaded only then), anything else is a SQLite file path.
 *
 * @example
 * const store = await openStore('./runledger.db', { create: true });
 * const shared = await openStore('postgres://app@db:5432/ops?schema=ledger', { create: false });
 */
export async function openStore(db: string, options: OpenStoreOptions): Promise<EventStore> {
  const key = options.signingKey === undefined ? process.env[SIGNING_KEY_ENV] : options.signingKey;
  // Read before the ledger is opened: a bad key is bad input, and nothing is created or migrated.
  // An empty key is a mistake (an unset secret in a deploy script), never a request for unsigned appends.
  if (typeof key === 'string' && key.trim() === '') {
    throw new LedgerError('input.badSigningKey', `${SIGNING_KEY_ENV} is set but empty; set it to hmac:<secret> or the path of an Ed25519 private key PEM, or unset it to append unsigned`);
  }
  const signer = key ? eventSigner(key) : null;
  // A signing process migrates an older ledger (it needs the signature column) even for a command that does not create.
  const create = options.create;
  const migrate = create || signer !== null;
  if (isPostgresUrl(db)) {
    const openPostgresStore = await loadPostgresAdapter();
    return openPostgresStore({ url: db, create, migrate, signer });
  }
  return openSqliteStore({ path: db, create, migrate, signer });
}
