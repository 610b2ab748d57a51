import { asPostgresLedgerError, isConnectionLost, type PostgresTarget } from './postgres-connection.js';

/** Tries of a read whose connection was lost: the first, then three more after 200, 400 and 800 ms. */
export const READ_ATTEMPTS = 4;

/** Waits between tries; a test passes a faster one. */
type Sleep = (ms: number) => Promise<void>;

const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one idempotent read (a single statement outside any transaction: a
 * batch of events, the head, a checkpoint) and runs it again on a new pooled
 * connection when the connection it used was lost (`pg_terminate_backend`, a
 * failover, a dropped network): the server ended the statement, and running
 * a read twice changes nothing. Any other error, and the last lost
 * connection, is thrown as `asPostgresLedgerError` maps it (by SQLSTATE).
 *
 * Only for reads: an append is retried by its own loop, which looks its
 * event ids up first so a retried append is stored once.
 *
 * @example
 * const rows = await withReadRetry(target, () => pool.query('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1'));
 */
export async function withReadRetry<T>(target: PostgresTarget, read: () => Promise<T>, wait: Sleep = sleep): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const mapped = asPostgresLedgerError(error, target);
      if (attempt >= READ_ATTEMPTS || !isConnectionLost(mapped)) throw mapped;
      await wait(100 * 2 ** attempt);
    }
  }
}
