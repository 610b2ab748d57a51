import { LedgerError } from '../../errors.js';

/** Where a PostgreSQL ledger lives, described without credentials so it can go into messages. */
export type PostgresTarget = {
  /** The URL handed to `pg`, minus runledger's own `schema` parameter. */
  connectionString: string;
  /** `host:port` (or the socket directory), never the user or password. */
  server: string;
  database: string;
  user: string;
  /** The ledger's schema from `?schema=`, if the URL names one. */
  schema: string | undefined;
};

/**
 * Reads a `postgres://` URL. runledger adds one query parameter, `schema`,
 * naming the schema that holds the ledger (default: the connection's
 * `current_schema()`, which `options=-c search_path=…` also sets); `pg` never
 * sees it.
 *
 * @example
 * parsePostgresUrl('postgres://app:secret@db:5432/ops?schema=ledger').server // 'db:5432'
 */
export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The text may hold a password, so only its credential-free shape is echoed.
    throw new LedgerError(
      'input.badDatabaseUrl',
      `--db ${redactUrl(url)} is not a valid PostgreSQL URL; expected postgres://user@host:5432/database`,
    );
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  // pg treats prefer/require/verify-ca as verify-full and prints a nine-line warning about it; the URL
  // means what libpq means by them, which pg gives with uselibpqcompat (and no warning).
  const sslmode = parsed.searchParams.get('sslmode');
  if (sslmode !== null && ['prefer', 'require', 'verify-ca'].includes(sslmode) && !parsed.searchParams.has('uselibpqcompat')) {
    parsed.searchParams.set('uselibpqcompat', 'true');
  }
  const host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host') || 'localhost';
  const port = parsed.port || parsed.searchParams.get('port') || '5432';
  const user = decodeURIComponent(parsed.username) || process.env['PGUSER'] || process.env['USER'] || 'postgres';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  return {
    connectionString: parsed.toString(),
    server: host.startsWith('/') ? `${host} (socket, port ${port})` : `${host}:${port}`,
    database,
    user,
    schema: schema === '' ? undefined : schema,
  };
}

/**
 * A URL with its password replaced by `***`, for the rare message that has
 * to show the URL itself.
 *
 * @example
 * redactUrl('postgres://app:secret@db/ops') // 'postgres://app:***@db/ops'
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@');
}

type DriverError = { code?: unknown; message?: unknown; errors?: unknown };

/**
 * Turns a `pg` or socket error into the one-line `LedgerError` the CLI
 * prints: an unreachable server or a missing database is "not found" (exit 4),
 * a refused login is bad input (exit 2). Anything else is passed through, as
 * it is a bug or a fault this table does not know. Messages name the server
 * and database, never the password.
 *
 * @example
 * try { await pool.query('SELECT 1') } catch (e) { throw asPostgresLedgerError(e, target) }
 */
export function asPostgresLedgerError(error: unknown, target: PostgresTarget): unknown {
  if (error instanceof LedgerError) return error;
  const e = (error ?? {}) as DriverError;
  // Node reports a host with several addresses (localhost → ::1, 127.0.0.1) as an AggregateError.
  const inner = Array.isArray(e.errors) ? ((e.errors[0] ?? {}) as DriverError) : {};
  const code = typeof e.code === 'string' ? e.code : typeof inner.code === 'string' ? inner.code : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const fix = 'check --db / RUNLEDGER_DB and that the server runs';
  const cause = { cause: error };
  switch (code) {
    case 'ECONNREFUSED':
      return new LedgerError('notFound.database', `cannot reach PostgreSQL at ${target.server}: connection refused; ${fix}`, cause);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new LedgerError('notFound.database', `cannot reach PostgreSQL at ${target.server}: unknown host; ${fix}`, cause);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new LedgerError('notFound.database', `cannot reach PostgreSQL at ${target.server}: ${code === 'ETIMEDOUT' ? 'timed out' : 'no route to host'}; ${fix}`, cause);
    case 'ENOENT':
      return new LedgerError('notFound.database', `cannot reach PostgreSQL at ${target.server}: no socket there; ${fix}`, cause);
    case '3D000':
      return new LedgerError(
        'notFound.database',
        `database "${target.database}" does not exist on the PostgreSQL server at ${target.server}; create it (createdb ${target.database}) or fix --db / RUNLEDGER_DB`,
        cause,
      );
    case '28P01':
    case '28000':
      return new LedgerError(
        'input.databaseLogin',
        `PostgreSQL at ${target.server} refused user "${target.user}" for database "${target.database}"; check the user and password in --db / RUNLEDGER_DB (or PGPASSWORD)`,
        cause,
      );
    case '42501':
      return new LedgerError('input.databasePermission', `PostgreSQL at ${target.server} denied user "${target.user}": ${message}; grant the role access to the ledger schema`, cause);
    case '57014':
      return new LedgerError('store.timeout', `a ledger statement on PostgreSQL at ${target.server} ran past the statement timeout; retry, or look for a long transaction holding the ledger`, cause);
    case '57P03':
      return new LedgerError('notFound.database', `PostgreSQL at ${target.server} is shutting down or starting up; retry in a moment`, cause);
    case '57P01':
    case '57P02':
    case '57P05':
      // admin_shutdown is also what pg_terminate_backend sends: the server ended this one connection.
      return new LedgerError('store.connectionLost', `PostgreSQL at ${target.server} ended runledger's connection (${code === '57P01' ? 'terminated by an administrator or a shutdown' : code === '57P02' ? 'the server crashed' : 'idle session timeout'}); retry; a transaction cut off this way is never half-written`, cause);
    case '25P03':
      return new LedgerError('store.connectionLost', `PostgreSQL at ${target.server} ended a ledger transaction that stayed idle past idle_in_transaction_session_timeout; retry`, cause);
    case '55P03':
      return new LedgerError('store.busy', `the ledger on PostgreSQL at ${target.server} stayed locked by another session past the lock timeout; retry in a moment`, cause);
    case '53100':
      return new LedgerError('store.diskFull', `PostgreSQL at ${target.server} is out of disk space (SQLSTATE 53100); free space on the server, then retry`, cause);
  }
  // Class 08: connection exceptions, whatever their message says.
  if (code !== undefined && /^08[0-9A-Z]{3}$/.test(code)) {
    return new LedgerError('store.connectionLost', `the connection to PostgreSQL at ${target.server} failed (SQLSTATE ${code}); retry; a transaction cut off this way is never half-written`, cause);
  }
  // A client-side refusal with no SQLSTATE: the URL asks for SSL and the server has none.
  if (/server does not support SSL/i.test(message)) {
    return new LedgerError('input.databaseSsl', `PostgreSQL at ${target.server} does not accept SSL connections, but --db asks for them (sslmode); remove sslmode from the URL or enable SSL on the server`, cause);
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return new LedgerError('notFound.database', `cannot reach PostgreSQL at ${target.server}: timed out while connecting; ${fix}`, cause);
  }
  // The driver's own error when the socket closes under a query; it has no SQLSTATE to go by.
  if (/Connection terminated unexpectedly|Connection terminated$/i.test(message)) {
    return new LedgerError('store.connectionLost', `the connection to PostgreSQL at ${target.server} was lost; retry; a transaction cut off this way is never half-written`, cause);
  }
  return error;
}

/**
 * True for an error after which an append may be retried on a new
 * connection: the connection was lost, so whether the transaction committed
 * is unknown, and the event-id check at the start of an append settles it.
 *
 * @example
 * if (isConnectionLost(error)) retry()
 */
export function isConnectionLost(error: unknown): boolean {
  return error instanceof LedgerError && error.code === 'store.connectionLost';
}
