import pg from 'pg';
import { GENESIS_HASH } from '../../../events/hash-chain.js';
import type { EventCheck } from '../../../events/decode-trusted-event.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { LedgerError } from '../../errors.js';
import type { AppendRequest, AppendResult, ChainHead, CheckpointStore, ConsumerPositions, EventStore, LedgerMeta, MetaRow, NewEvent, RawEvent, ReadFilter, SchedulerHealthStore } from '../event-store.js';
import { postgresCheckpoints } from './postgres-checkpoints.js';
import { postgresReadModels, type PostgresReadModels, type TouchedHashes, type TouchedRead } from './postgres-read-models.js';
import { decodeStoredRow, rawEventOf, readCheck } from '../decode-stored-row.js';
import { sealEvents, type SealedEvent } from '../seal-events.js';
import { batchesOf, ChainUnsealer } from '../unseal-chain.js';
import { asPostgresLedgerError, isConnectionLost, parsePostgresUrl, type PostgresTarget } from './postgres-connection.js';
import { appendChannel, listenForAppends, postgresConsumers } from './postgres-consumers.js';
import { postgresSchedulers } from './postgres-schedulers.js';
import { APPEND_FUNCTION, appendFunctionArgs, appendFunctionCallSql, appendFunctionSignature, appendFunctionSql, type AppendFunctionReply, type VersionCheck } from './postgres-append-function.js';
import { appendLockName, createLockName, POSTGRES_SCHEMA_VERSION, postgresMigrationSql, postgresSchemaSql, quoteIdent } from './postgres-schema.js';
import type { EventSigner } from '../event-signer.js';
import { withReadRetry } from './with-read-retry.js';

export type PostgresStoreOptions = {
  /** `postgres://user[:password]@host:port/database[?schema=name]`. */
  url: string;
  /** Create the ledger (and its schema) when there is none yet (write commands). */
  create: boolean;
  /** The schema holding the ledger; overrides `?schema=`. Default: the connection's `current_schema()`. */
  schema?: string;
  /** Pool size. A CLI run needs one or two connections; a few more let a library caller read while it appends. */
  maxConnections?: number;
  /** Server-side cap on every statement, lock waits included, in ms. */
  statementTimeoutMs?: number;
  /** How long to wait for a connection to the server, in ms. */
  connectTimeoutMs?: number;
  /** Signs every appended event's chain hash; the signature is stored beside it (never the key). */
  signer?: EventSigner | null;
  /** Migrate an older ledger to this build's schema (default: when `create`). */
  migrate?: boolean;
};

/** A row as `pg` returns it: `bigint` comes back as a string, so positions are converted on the way out. */
type Row = { position: string; payload: string; prev_hash: string; hash: string };
/** The columns `readRaw` adds for `verify` (see `StoredColumns`). */
const STORED_COLUMNS = 'event_id, stream, stream_version, pipeline, run_id, type, recorded_at';

/** Tries of an append whose connection was lost (the server ended it, the network dropped it). */
const APPEND_ATTEMPTS = 4;

/** Rows per INSERT, so a large import does not become one huge parameter list. */
const INSERT_CHUNK = 500;

/**
 * The PostgreSQL store: one ledger shared by machines. Each
 * append is a READ COMMITTED transaction that first takes a per-ledger
 * `pg_advisory_xact_lock`, then reads the head, seals the events onto the
 * chain and inserts them. The lock is held until commit, so positions are
 * gapless, equal commit order, and a reader resuming after the last position
 * it saw can never miss an event that commits late. That transaction is one
 * call of a server-side function (`postgres-append-function.ts`), so no client
 * round trip happens under the lock; where the function cannot be created it
 * runs from the client, as before.
 *
 * @example
 * const store = await openPostgresStore({ url: 'postgres://app@db:5432/ops', create: true });
 * try { await store.append(requests) } finally { await store.close() }
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<EventStore> {
  const target = parsePostgresUrl(options.url);
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    // A process that hangs inside an append would otherwise block every writer of the ledger.
    idle_in_transaction_session_timeout: 60_000,
    idleTimeoutMillis: 10_000,
    // A caller that forgets close() still lets the process exit instead of hanging on idle sockets.
    allowExitOnIdle: true,
    application_name: 'runledger',
  });
  // An idle connection the server drops emits 'error' on the pool; unhandled, it would crash the
  // process. The next query gets a fresh connection or a clear error of its own.
  pool.on('error', () => undefined);
  try {
    // Reads, run again if the connection is lost under them; creating is a transaction and is not.
    const schema = options.schema ?? target.schema ?? (await withReadRetry(target, () => currentSchema(pool, target)));
    let state = await withReadRetry(target, () => inspect(pool, schema, target));
    if (state === 'empty' && options.create) state = await create(pool, schema, target);
    if (state === 'ledger' && (options.migrate ?? options.create)) await migrate(pool, schema, target);
    // A schema that is not there is a ledger that is not there, as a missing SQLite file is: a query
    // (or a verify) with a mistyped ?schema= must not answer for an empty ledger.
    if (state === 'empty' && !(await withReadRetry(target, () => schemaExists(pool, schema)))) {
      throw new LedgerError(
        'notFound.ledger',
        `no ledger in schema "${schema}" of database "${target.database}" at ${target.server}: the schema does not exist; define a pipeline first, or fix ?schema= in --db / RUNLEDGER_DB`,
      );
    }
    const hasSignatureColumn = state === 'ledger' && (await signatureColumnExists(pool, schema));
    return new PostgresEventStore(pool, target, schema, state === 'ledger', { signer: options.signer ?? null, hasSignatureColumn });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw asPostgresLedgerError(error, target);
  }
}

async function schemaExists(pool: pg.Pool, schema: string): Promise<boolean> {
  return ((await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount ?? 0) > 0;
}

async function currentSchema(pool: pg.Pool, target: PostgresTarget): Promise<string> {
  const { rows } = await pool.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new LedgerError(
      'input.noSchema',
      `the search_path of database "${target.database}" at ${target.server} names no existing schema; add ?schema=<name> to --db`,
    );
  }
  return schema;
}

/**
 * What the schema holds: nothing of runledger's (`empty`) or a ledger this
 * build understands (`ledger`); anything else is refused with one line. A
 * schema may hold other tables (a shared database often does); only an
 * `events` table that runledger did not create is refused.
 */
async function inspect(db: pg.Pool | pg.PoolClient, schema: string, target: PostgresTarget): Promise<'empty' | 'ledger'> {
  const where = `schema "${schema}" of database "${target.database}" at ${target.server}`;
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname IN ('events', 'runledger_meta') AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema],
  );
  const names = new Set(rows.map((r) => r.name));
  if (names.size === 0) return 'empty';
  if (!names.has('runledger_meta')) {
    throw new LedgerError(
      'input.notALedger',
      `the ${where} has an events table that is not a runledger ledger (no runledger_meta); use another schema (?schema=<name>) or database in --db`,
    );
  }
  const meta = await db.query<{ key: string; value: string }>(`SELECT key, value FROM ${quoteIdent(schema)}.runledger_meta`);
  const value = (key: string) => meta.rows.find((r) => r.key === key)?.value;
  const version = Number(value('schemaVersion'));
  if (value('format') !== 'runledger' || !Number.isInteger(version) || !names.has('events')) {
    throw new LedgerError('input.notALedger', `the ${where} has a runledger_meta table that runledger did not write; use another schema (?schema=<name>) or database in --db`);
  }
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new LedgerError(
      'input.newerLedger',
      `the ${where} holds a runledger ledger of schema version ${version}, newer than this runledger understands (${POSTGRES_SCHEMA_VERSION}); upgrade runledger`,
    );
  }
  return 'ledger';
}

/**
 * Creates the ledger in one transaction. Two processes may race here (two
 * machines running their first `define`): the advisory lock makes the second
 * wait, and it then finds the ledger the first one committed.
 */
async function create(pool: pg.Pool, schema: string, target: PostgresTarget): Promise<'ledger'> {
  await transaction(pool, target, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [createLockName(schema)]);
    if ((await inspect(client, schema, target)) !== 'empty') return;
    // Only when missing: CREATE SCHEMA checks the database-level CREATE privilege even with
    // IF NOT EXISTS, which an application role that may only create tables in `public` lacks.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await client.query(postgresSchemaSql(schema));
  });
  return 'ledger';
}

/**
 * Brings an older ledger up to this build's schema in one transaction, under the create lock, so two
 * processes opening it at once migrate it once. A query command (no `create`) leaves it as it is.
 */
async function migrate(pool: pg.Pool, schema: string, target: PostgresTarget): Promise<void> {
  const version = async (db: pg.Pool | pg.PoolClient) =>
    Number((await db.query<{ value: string }>(`SELECT value FROM ${quoteIdent(schema)}.runledger_meta WHERE key = 'schemaVersion'`)).rows[0]?.value);
  if ((await version(pool)) >= POSTGRES_SCHEMA_VERSION) return;
  await transaction(pool, target, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [createLockName(schema)]);
    if ((await version(client)) < POSTGRES_SCHEMA_VERSION) await client.query(postgresMigrationSql(schema));
  });
}

async function signatureColumnExists(pool: pg.Pool, schema: string): Promise<boolean> {
  const { rowCount } = await pool.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' AND column_name = 'signature'`, [schema]);
  return (rowCount ?? 0) > 0;
}

function transaction<T>(pool: pg.Pool, target: PostgresTarget, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return pipelinedTransaction(pool, target, '', async (client) => ({ value: await work(client), last: '' }));
}

/**
 * A READ COMMITTED transaction whose BEGIN goes in one query string with the statements `first` (their
 * values written in: a string of several statements takes no parameters), and whose COMMIT goes in one
 * with the statements `work` hands back in `last`: two round trips fewer than one statement each. A
 * statement that fails skips the rest of its string, so COMMIT never follows an error.
 */
async function pipelinedTransaction<T>(
  pool: pg.Pool,
  target: PostgresTarget,
  first: string,
  work: (client: pg.PoolClient, results: pg.QueryResult[]) => Promise<{ value: T; last: string }>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw asPostgresLedgerError(error, target);
  }
  let broken = false;
  // A checked-out client whose connection dies (pg_terminate_backend, a failover) emits 'error'; with no
  // listener that event would crash the process. The query in flight rejects on its own with the cause.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    const begun = await client.query(`BEGIN ISOLATION LEVEL READ COMMITTED${first === '' ? '' : `;\n${first}`}`);
    const { value, last } = await work(client, ([] as pg.QueryResult[]).concat(begun as pg.QueryResult | pg.QueryResult[]).slice(1));
    await client.query(last === '' ? 'COMMIT' : `${last};\nCOMMIT`);
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw asPostgresLedgerError(error, target);
  } finally {
    // A connection whose ROLLBACK failed, or that reported an error, is in an unknown state: destroy it rather than pool it.
    client.off('error', onError);
    client.release(broken);
  }
}

class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly capabilities = { concurrentWriters: 'machines' as const };
  readonly consumers: ConsumerPositions;
  readonly schedulers: SchedulerHealthStore;
  readonly #pool: pg.Pool;
  readonly #target: PostgresTarget;
  readonly #schema: string;
  readonly #events: string;
  readonly #hasLedger: boolean;
  readonly checkpoints?: CheckpointStore;
  readonly readModels?: PostgresReadModels;
  #closed = false;
  readonly #signer: EventSigner | null;
  /** False for a version-1 ledger opened by a query command (not migrated): it has no signature column. */
  readonly #hasSignatureColumn: boolean;
  /** Whether appends go through the server-side function: unknown until the first append tries it. */
  #appendFunction: 'unknown' | 'ready' | 'unavailable' = 'unknown';
  /** Whether the append-rows function (the rows folded ahead of the lock) is there: unknown until an append with read models asks. */
  #aheadFunction: 'unknown' | 'ready' | 'unavailable' = 'unknown';

  constructor(pool: pg.Pool, target: PostgresTarget, schema: string, hasLedger: boolean, signing: { signer: EventSigner | null; hasSignatureColumn: boolean }) {
    this.#signer = signing.signer;
    this.#hasSignatureColumn = signing.hasSignatureColumn;
    this.#pool = pool;
    this.#target = target;
    this.#schema = schema;
    this.#events = `${quoteIdent(schema)}.events`;
    this.#hasLedger = hasLedger;
    if (hasLedger) this.checkpoints = postgresCheckpoints(pool, schema, (read) => withReadRetry(target, read));
    if (hasLedger) {
      this.readModels = postgresReadModels({
        schema,
        read: (sql, params) => this.#read(sql, params),
        transaction: (work) => transaction(pool, target, work),
        appendLock: appendLockName(schema),
      });
    }
    this.consumers = postgresConsumers((sql, params) => this.#query(this.#pool, sql, params), schema, (sql, params) => this.#read(sql, params));
    this.schedulers = postgresSchedulers((sql, params) => this.#query(this.#pool, sql, params), schema, (sql, params) => this.#read(sql, params));
  }

  listenForAppends(onAppend: () => void): Promise<() => Promise<void>> {
    return listenForAppends(this.#target.connectionString, this.#schema, onAppend);
  }

  async #query<R extends pg.QueryResultRow>(db: pg.Pool | pg.PoolClient, sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await db.query<R>(sql, params)).rows;
    } catch (error) {
      throw asPostgresLedgerError(error, this.#target);
    }
  }

  /** One read statement on the pool, run again on a new connection if its connection is lost (`withReadRetry`). */
  #read<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    return withReadRetry(this.#target, () => this.#query<R>(this.#pool, sql, params));
  }

  async append(requests: AppendRequest[]): Promise<AppendResult> {
    if (!this.#hasLedger) {
      throw new LedgerError('notFound.ledger', `schema "${this.#schema}" of database "${this.#target.database}" holds no ledger yet; define a pipeline first`);
    }
    this.#signingReady();
    const all = requests.flatMap((r) => r.events);
    const ids = all.map((e) => e.eventId);
    if (new Set(ids).size !== ids.length) {
      throw new LedgerError('input.eventIdReused', 'the same event id appears twice in one append; event ids must be unique per event');
    }
    // A connection that died mid-append (even between COMMIT and its reply) is retried on a new one:
    // the first thing an append does is look its event ids up, so a retry of an append that did
    // commit returns the stored events (alreadyAppended) instead of appending them twice.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#appendOnce(requests, all, ids);
      } catch (error) {
        if (attempt >= APPEND_ATTEMPTS || !isConnectionLost(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  async #appendOnce(requests: AppendRequest[], all: NewEvent[], ids: string[]): Promise<AppendResult> {
    // A signing process seals on the client: the signature is over the chain hash, which the server-side
    // function computes only under its lock, and the key must never leave this process.
    if (this.#appendFunction !== 'unavailable' && !this.#signer) {
      const result = await this.#appendByFunction(requests, all, ids);
      if (result) return result;
    }
    return this.#appendLocked(requests, all, ids);
  }

  /**
   * One round trip: the server-side function (see `appendFunctionSql`) locks, checks, seals, inserts
   * and notifies, and the statement's own implicit transaction commits it, so the append lock is held
   * only while the server works and flushes the commit. Null when the function is missing and this
   * role cannot create it (an older ledger opened by a role without CREATE on its schema): the caller
   * then appends with the client-side transaction.
   */
  async #appendByFunction(requests: AppendRequest[], all: NewEvent[], ids: string[]): Promise<AppendResult | null> {
    const { args, checks } = appendFunctionArgs(requests);
    const call = `SELECT ${quoteIdent(this.#schema)}.${APPEND_FUNCTION}(${args.map((_, i) => `$${i + 1}`).join(', ')}) AS r`;
    let reply: AppendFunctionReply;
    const models = this.readModels;
    if (this.#appendFunction === 'unknown' && models !== undefined) {
      // Asked once per process: the transaction below cannot install a missing function halfway.
      const found = await this.#read<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [appendFunctionSignature(this.#schema)]);
      if (found[0]?.f != null) this.#appendFunction = 'ready';
    }
    try {
      if (models !== undefined && this.#appendFunction === 'ready' && (await models.isReady(this.#pool))) {
        if (this.#aheadFunction !== 'unavailable' && all.length > 0) {
          const ahead = await this.#appendAhead(models, requests, all, ids, args, checks);
          if (ahead !== null) return ahead;
        }
        // The function and the table writer in one transaction: the append lock the function takes is held
        // until COMMIT, so the rows are written in commit order and a rolled-back append leaves none. BEGIN,
        // the function and the read of the rows its events touch go as one query string, the rows' writes
        // with COMMIT: the lock is held for one round trip and the fold. Each statement of the string takes
        // its own snapshot, so the read, which follows the function's lock, sees every append before it.
        const first = `${appendFunctionCallSql(this.#schema, args)};\n${models.touchedSql(all)}`;
        const result = await pipelinedTransaction(this.#pool, this.#target, first, async (client, results) => {
          const answer = results[0]?.rows[0]?.r as AppendFunctionReply;
          const appended = appendResultOf(answer, all, ids, checks);
          if (!appended.ok || appended.alreadyAppended || appended.events.length === 0) return { value: appended, last: '' };
          const read = results[1]?.rows[0] as TouchedRead;
          return { value: appended, last: await models.applyRead(client, read, appended.events, (appended.events[0] as RecordedEvent).position - 1) };
        });
        this.#appendFunction = 'ready';
        return result;
      }
      reply = (await this.#pool.query<{ r: AppendFunctionReply }>(call, args)).rows[0]?.r as AppendFunctionReply;
    } catch (error) {
      if ((error as { code?: string }).code !== '42883' || this.#appendFunction === 'ready') throw asPostgresLedgerError(error, this.#target);
      if (!(await this.#installAppendFunction())) {
        this.#appendFunction = 'unavailable';
        return null;
      }
      return this.#appendByFunction(requests, all, ids);
    }
    this.#appendFunction = 'ready';
    return appendResultOf(reply, all, ids, checks);
  }

  /**
   * The append with its read-model rows folded before the lock (see postgres-append-rows-function.ts): one
   * read of the touched rows, the head and the streams' versions, the fold, then one call that checks, appends,
   * writes the rows and commits. Null when the rows read had changed by the time the lock was taken (nothing
   * was appended), or when the fold cannot go ahead: the caller then appends folding under the lock.
   */
  async #appendAhead(models: PostgresReadModels, requests: AppendRequest[], all: NewEvent[], ids: string[], args: unknown[], checks: VersionCheck[]): Promise<AppendResult | null> {
    if (this.#aheadFunction === 'unknown') {
      const found = await this.#read<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [models.aheadFunction.signature]);
      if (found[0]?.f == null && !(await this.#installAheadFunction(models))) {
        this.#aheadFunction = 'unavailable';
        return null;
      }
      this.#aheadFunction = 'ready';
    }
    const streams = [...new Set(requests.map((r) => r.stream))];
    const extra = [
      `(SELECT h.position FROM ${this.#events} h ORDER BY h.position DESC LIMIT 1) AS head`,
      `(SELECT json_agg(json_build_array(x.s, (SELECT max(e.stream_version) FROM ${this.#events} e WHERE e.stream = x.s))) FROM unnest($6::text[]) x(s)) AS bases`,
    ];
    type Read = TouchedRead & TouchedHashes & { head: string | null; bases: Array<[string, number | null]> };
    let read: Read;
    try {
      // Named, so each connection parses and plans it once: the text is the same for every append.
      const { text, values } = models.touchedQuery(all, extra);
      const query = { name: `runledger_ahead_read_${models.aheadFunction.stamp}`, text, values: [...values, streams] };
      read = (await withReadRetry(this.#target, () => this.#pool.query<Read>(query).catch((error: unknown) => Promise.reject(asPostgresLedgerError(error, this.#target))))).rows[0] as Read;
    } catch (error) {
      // The tables dropped under the read by a rebuild, say: the slow way reads under the lock.
      if (isConnectionLost(error)) throw error;
      return null;
    }
    const head = Number(read.head ?? 0);
    const bases = new Map(read.bases.map(([stream, version]) => [stream, version ?? 0]));
    // The events as they would be stored if no other append came first: the fold's input.
    const drafts: RecordedEvent[] = [];
    const added = new Map<string, number>();
    for (const request of requests) {
      const base = (bases.get(request.stream) ?? 0) + (added.get(request.stream) ?? 0);
      // A conflict, or a version another append moved: the slow way answers it under the lock.
      if (request.expectedVersion !== 'any' && request.expectedVersion !== base) return null;
      request.events.forEach((event, i) => {
        const { eventId, stream, type, schemaVersion, recordedAt, data, metadata } = event;
        drafts.push({ position: head + drafts.length + 1, eventId, stream, streamVersion: base + i + 1, type, schemaVersion, recordedAt, data, metadata, prevHash: '', hash: '' } as RecordedEvent);
      });
      added.set(request.stream, (added.get(request.stream) ?? 0) + request.events.length);
    }
    const ahead = await models.foldAhead(read, drafts, head);
    if (ahead === null) return null;
    const plan = { first: head + 1, stamp: models.aheadFunction.stamp, bases: [...bases], ...ahead };
    const call = `SELECT ${quoteIdent(this.#schema)}.${models.aheadFunction.name}(${args.map((_, i) => `$${i + 1}`).join(', ')}, $${args.length + 1}::jsonb) AS r`;
    let reply: AppendFunctionReply | { stale: string };
    try {
      // Named as well: parsed once per connection.
      const query = { name: models.aheadFunction.name, text: call, values: [...args, JSON.stringify(plan)] };
      reply = (await this.#pool.query<{ r: AppendFunctionReply | { stale: string } }>(query)).rows[0]?.r as AppendFunctionReply | { stale: string };
    } catch (error) {
      if ((error as { code?: string }).code !== '42883') throw asPostgresLedgerError(error, this.#target);
      // Dropped since it was found: asked again next time.
      this.#aheadFunction = 'unknown';
      return null;
    }
    if ('stale' in reply) return null;
    return appendResultOf(reply, all, ids, checks);
  }

  /** Creates the append-rows function under the create lock; false when this role may not. */
  async #installAheadFunction(models: PostgresReadModels): Promise<boolean> {
    try {
      await transaction(this.#pool, this.#target, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [createLockName(this.#schema)]);
        const { rows } = await client.query<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [models.aheadFunction.signature]);
        if (rows[0]?.f === null) await models.installAhead(client);
      });
      return true;
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'input.databasePermission') return false;
      throw error;
    }
  }

  /** Creates the append function (under the create lock, so two processes do not race); false when this role may not. */
  async #installAppendFunction(): Promise<boolean> {
    try {
      await transaction(this.#pool, this.#target, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [createLockName(this.#schema)]);
        const { rows } = await client.query<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [appendFunctionSignature(this.#schema)]);
        if (rows[0]?.f === null) await client.query(appendFunctionSql(this.#schema));
      });
      this.#appendFunction = 'ready';
      return true;
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'input.databasePermission') return false;
      throw error;
    }
  }

  /** The append as a client-side transaction holding the lock across its round trips: used when the append function cannot be installed. */
  async #appendLocked(requests: AppendRequest[], all: NewEvent[], ids: string[]): Promise<AppendResult> {
    return transaction(this.#pool, this.#target, async (client): Promise<AppendResult> => {
      // Taken before anything is read, held until COMMIT: the head read below is the head of every
      // append that committed before, and no later append can commit a lower position than ours.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [appendLockName(this.#schema)]);
      // One round trip for everything read under the lock (ids already stored, stream versions, head):
      // the lock is held until COMMIT, so every round trip here is time no other writer can append.
      const streams = [...new Set(requests.map((r) => r.stream))];
      const [seen] = await this.#query<{ stored: Array<Row & { event_id: string }>; versions: Array<[string, number]>; head: [string, string] | null }>(
        client,
        `SELECT
           (SELECT coalesce(json_agg(json_build_object('position', position::text, 'payload', payload, 'prev_hash', prev_hash, 'hash', hash, 'event_id', event_id)), '[]')
              FROM ${this.#events} WHERE event_id = ANY($1::text[])) AS stored,
           (SELECT coalesce(json_agg(json_build_array(stream, v)), '[]')
              FROM (SELECT stream, max(stream_version) AS v FROM ${this.#events} WHERE stream = ANY($2::text[]) GROUP BY stream) s) AS versions,
           (SELECT json_build_array(position::text, hash) FROM ${this.#events} ORDER BY position DESC LIMIT 1) AS head`,
        [ids, streams],
      );
      const stored = seen?.stored ?? [];
      const head: ChainHead = seen?.head ? { position: Number(seen.head[0]), hash: seen.head[1] } : { position: 0, hash: GENESIS_HASH };
      if (stored.length > 0) {
        if (stored.length < ids.length) {
          throw new LedgerError('input.eventIdReused', 'some event ids of this append are already stored and some are not; event ids must be unique per event');
        }
        const byId = new Map(stored.map((row) => [row.event_id, row]));
        const events = all.map((e) => decodeRow(byId.get(e.eventId) as Row));
        return { ok: true, events, head, alreadyAppended: true };
      }
      // Versions as they stand after the requests seen so far, so two requests for one stream chain up.
      const versions = new Map(seen?.versions ?? []);
      const batch: Array<{ event: NewEvent; streamVersion: number }> = [];
      for (const request of requests) {
        const actual = versions.get(request.stream) ?? 0;
        if (request.expectedVersion !== 'any' && request.expectedVersion !== actual) {
          return { ok: false, conflict: { stream: request.stream, expected: request.expectedVersion, actual } };
        }
        request.events.forEach((event, i) => batch.push({ event, streamVersion: actual + i + 1 }));
        versions.set(request.stream, actual + request.events.length);
      }
      const sealed = sealEvents(head, batch, this.#signer);
      for (let i = 0; i < sealed.length; i += INSERT_CHUNK) await this.#insert(client, sealed.slice(i, i + INSERT_CHUNK));
      await this.readModels?.apply(client, sealed.map((one) => one.event), head.position);
      const last = sealed.at(-1)?.event;
      // Inside the transaction: PostgreSQL delivers it at COMMIT, and never for a rolled-back append.
      if (last) await client.query('SELECT pg_notify($1, $2)', [appendChannel(this.#schema), String(last.position)]);
      return { ok: true, events: sealed.map((s) => s.event), head: last ? { position: last.position, hash: last.hash } : head, alreadyAppended: false };
    });
  }

  /** A signing process must not append to a ledger that cannot store signatures (an old one a query command opened). */
  #signingReady(): void {
    if (this.#signer && this.#hasLedger && !this.#hasSignatureColumn) {
      throw new LedgerError(
        'input.newerLedger',
        `schema "${this.#schema}" holds a ledger of schema version 1, which cannot store signatures; open it once with a write command (e.g. \`runledger define\`) to migrate it`,
      );
    }
  }

  async #insert(client: pg.PoolClient, rows: SealedEvent[]): Promise<void> {
    // One statement per chunk: columns travel as arrays and `unnest` zips them back into rows. The signature
    // (null when not signing) was computed by sealEvents before the insert.
    const signed = this.#hasSignatureColumn;
    await this.#query(
      client,
      `INSERT INTO ${this.#events} (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash${signed ? ', signature' : ''})
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]${signed ? ', $12::text[]' : ''})`,
      [
        rows.map((r) => r.event.position),
        rows.map((r) => r.event.eventId),
        rows.map((r) => r.event.stream),
        rows.map((r) => r.event.streamVersion),
        rows.map((r) => r.pipeline),
        rows.map((r) => r.runId),
        rows.map((r) => r.event.type),
        rows.map((r) => r.event.recordedAt),
        rows.map((r) => r.payload),
        rows.map((r) => r.event.prevHash),
        rows.map((r) => r.event.hash),
        ...(signed ? [rows.map((r) => r.signature)] : []),
      ],
    );
  }

  async importSealed(rows: RawEvent[] | AsyncIterable<RawEvent[]>): Promise<ChainHead> {
    if (!this.#hasLedger) {
      throw new LedgerError('notFound.ledger', `schema "${this.#schema}" of database "${this.#target.database}" holds no ledger yet; open it with create to import`);
    }
    this.#signingReady();
    const unsealer = new ChainUnsealer(this.#signer);
    return transaction(this.#pool, this.#target, async (client): Promise<ChainHead> => {
      // The append lock, so no append can slip in between the emptiness check and the inserts.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [appendLockName(this.#schema)]);
      const head = await this.#head(client);
      if (head.position !== 0) {
        throw new LedgerError('ledger.notEmpty', `schema "${this.#schema}" already holds ${head.position} events; import only into a new, empty ledger`);
      }
      // A streamed import may outlast the idle-in-transaction timeout between batches only if the file
      // stalls; each batch is inserted as it arrives, and a failure anywhere rolls the whole import back.
      for await (const batch of batchesOf(rows)) {
        const sealed = await unsealer.next(batch);
        for (let i = 0; i < sealed.length; i += INSERT_CHUNK) await this.#insert(client, sealed.slice(i, i + INSERT_CHUNK));
      }
      // The read models of the imported chain, in the import's own transaction.
      await this.readModels?.rebuildIn(client);
      return this.#head(client);
    });
  }

  async *read(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    const check = await readCheck(filter.validate);
    for await (const rows of this.#rows(filter)) {
      yield rows.map((row) => decodeRow(row, check));
    }
  }

  async *readBackward(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    const check = await readCheck(filter.validate);
    for await (const rows of this.#rows(filter, false, true)) yield rows.map((r) => decodeRow(r, check));
  }

  async *readRaw(filter: ReadFilter = {}): AsyncIterable<RawEvent[]> {
    for await (const rows of this.#rows(filter, true)) {
      yield rows.map(rawEventOf);
    }
  }

  /**
   * Keyset pagination: one short query per batch, so no connection or
   * snapshot is held while the caller folds a batch, and an abandoned
   * iteration leaks nothing.
   */
  async *#rows(filter: ReadFilter, withColumns = false, backward = false): AsyncIterable<Row[]> {
    if (!this.#hasLedger) return;
    const where = ['position >= $1', 'position <= $2'];
    const params: unknown[] = [];
    if (filter.pipeline !== undefined) where.push(`pipeline = $${params.push(filter.pipeline) + 3}`);
    if (filter.stream !== undefined) where.push(`stream = $${params.push(filter.stream) + 3}`);
    if (filter.runId !== undefined) where.push(`run_id = $${params.push(filter.runId) + 3}`);
    if (filter.types !== undefined) where.push(`type = ANY($${params.push([...filter.types]) + 3}::text[])`);
    const sql = `SELECT position, payload, prev_hash, hash${withColumns ? `, ${this.#hasSignatureColumn ? 'signature' : 'NULL AS signature'}, ${STORED_COLUMNS}` : ''} FROM ${this.#events} WHERE ${where.join(' AND ')} ORDER BY position${backward ? ' DESC' : ''} LIMIT $3`;
    const limit = filter.batchSize ?? 1000;
    let from = filter.fromPosition ?? 1;
    let to = filter.toPosition ?? Number.MAX_SAFE_INTEGER;
    for (;;) {
      // Each page is its own statement, so a page whose connection is lost is read again from the same position.
      const rows = await this.#read<Row>(sql, [from, to, limit, ...params]);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < limit) return;
      const last = Number((rows.at(-1) as Row).position);
      if (backward) to = last - 1;
      else from = last + 1;
    }
  }

  async readMeta(): Promise<LedgerMeta> {
    if (!this.#hasLedger) return { stored: [], expected: [] };
    // COLLATE "C": the same order as SQLite's, whatever the database's locale.
    const stored = await this.#read<MetaRow>(`SELECT key, value FROM ${quoteIdent(this.#schema)}.runledger_meta ORDER BY key COLLATE "C"`, []);
    const version = this.#hasSignatureColumn ? POSTGRES_SCHEMA_VERSION : 1;
    return { stored, expected: [{ key: 'format', value: 'runledger' }, { key: 'schemaVersion', value: String(version) }] };
  }

  async findRun(runId: string): Promise<{ pipeline: string; stream: string } | null> {
    if (!this.#hasLedger) return null;
    const rows = await this.#read<{ pipeline: string; stream: string }>(
      `SELECT pipeline, stream FROM ${this.#events} WHERE run_id = $1 AND type = 'RunStarted' ORDER BY position LIMIT 1`,
      [runId],
    );
    return rows[0] ?? null;
  }

  async head(): Promise<ChainHead> {
    if (!this.#hasLedger) return { position: 0, hash: GENESIS_HASH };
    return withReadRetry(this.#target, () => this.#head(this.#pool));
  }

  async #head(db: pg.Pool | pg.PoolClient): Promise<ChainHead> {
    const rows = await this.#query<{ position: string; hash: string }>(db, `SELECT position, hash FROM ${this.#events} ORDER BY position DESC LIMIT 1`, []);
    const row = rows[0];
    return row ? { position: Number(row.position), hash: row.hash } : { position: 0, hash: GENESIS_HASH };
  }

  async positionAt(instant: string): Promise<number> {
    if (!this.#hasLedger) return 0;
    // Same rule as SQLite: the event before the first one recorded after the instant, so an
    // out-of-order clock on one machine cannot make the answer skip an earlier position.
    const rows = await this.#read<{ p: string | null }>(
      `SELECT min(position) AS p FROM ${this.#events} WHERE recorded_at > $1`,
      [new Date(instant).toISOString()],
    );
    const first = rows[0]?.p ?? null;
    return first === null ? (await this.head()).position : Number(first) - 1;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

/** An `AppendResult` from the append function's reply, the same one the client-side append gives. */
function appendResultOf(reply: AppendFunctionReply, all: NewEvent[], ids: string[], checks: VersionCheck[]): AppendResult {
  const headOf = (head: [string, string] | null): ChainHead => (head ? { position: Number(head[0]), hash: head[1] } : { position: 0, hash: GENESIS_HASH });
  if ('stored' in reply) {
    if (reply.stored.length < ids.length) {
      throw new LedgerError('input.eventIdReused', 'some event ids of this append are already stored and some are not; event ids must be unique per event');
    }
    const byId = new Map(reply.stored.map(([eventId, position, payload, prevHash, hash]) => [eventId, { position, payload, prev_hash: prevHash, hash }]));
    return { ok: true, events: all.map((e) => decodeRow(byId.get(e.eventId) as Row)), head: headOf(reply.head), alreadyAppended: true };
  }
  if ('conflict' in reply) {
    const check = checks[reply.conflict - 1] as VersionCheck;
    return { ok: false, conflict: { stream: check.request.stream, expected: check.expected, actual: reply.base + check.earlier } };
  }
  if (!('first' in reply)) return { ok: true, events: [], head: headOf(reply.head), alreadyAppended: false };
  const first = Number(reply.first);
  const events = all.map((event, i): RecordedEvent => {
    const { eventId, stream, type, schemaVersion, recordedAt, data, metadata } = event;
    const streamVersion = reply.versions[i] as number;
    return { position: first + i, eventId, stream, streamVersion, type, schemaVersion, recordedAt, data, metadata, prevHash: reply.prevs[i] as string, hash: reply.hashes[i] as string } as RecordedEvent;
  });
  const last = events.at(-1) as RecordedEvent;
  return { ok: true, events, head: { position: last.position, hash: last.hash }, alreadyAppended: false };
}

function decodeRow(row: Row, check?: EventCheck): RecordedEvent {
  return decodeStoredRow({ position: Number(row.position), payload: row.payload, prevHash: row.prev_hash, hash: row.hash }, check);
}
