import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
// Node's own, not the global one: an application's tests that fake the global timers (vi.useFakeTimers, jest) would
// otherwise never reach the end of a turn, and appends made together would never be committed or answered.
// (`timers` is loaded by Node's bootstrap already: importing it loads nothing more.)
import { setImmediate } from 'node:timers';
import Database from 'better-sqlite3';
import { GENESIS_HASH } from '../../../events/hash-chain.js';
import type { EventCheck } from '../../../events/decode-trusted-event.js';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { LedgerError } from '../../errors.js';
import type { AppendRequest, AppendResult, ChainHead, CheckpointStore, ConsumerPositions, EventStore, LedgerMeta, MetaRow, NewEvent, RawEvent, ReadFilter, SchedulerHealthStore } from '../event-store.js';
import { sqliteCheckpoints } from './sqlite-checkpoints.js';
import { decodeStoredRow, readCheck } from '../decode-stored-row.js';
import { sealEvent, type SealedEvent } from '../seal-events.js';
import { sqliteConsumers } from './sqlite-consumers.js';
import { sqliteSchedulers } from './sqlite-schedulers.js';
import type { EventSigner } from '../event-signer.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA, SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
import { openSqliteFile, shareSidecarFiles } from './open-sqlite-file.js';
import { preparedOnUse } from './prepared-on-use.js';
import { createSqliteReadModelTables, sqliteReadModels, type SqliteReadModels } from './sqlite-read-models.js';
import { walIndexStamp, type WalIndexStamp } from './wal-index-stamp.js';
import { BULK_PAGE_CACHE_KIB, PAGE_CACHE_KIB } from './page-cache.js';

export type SqliteStoreOptions = {
  /** A file path, or `:memory:`. */
  path: string;
  /** Create the ledger when the file does not exist (write commands); otherwise a missing file is "not found". */
  create: boolean;
  /** How long a writer waits for another writer's lock, in ms. */
  busyTimeoutMs?: number;
  /** Signs every appended event's chain hash; the signature is stored beside it (never the key). */
  signer?: EventSigner | null;
  /** Migrate an older ledger to this build's schema (default: when `create`). */
  migrate?: boolean;
};

type Row = { position: number; payload: string; prev_hash: string; hash: string };
type Statements = {
  head: Database.Statement;
  streamVersion: Database.Statement;
  headAndVersion: Database.Statement;
  byEventId: Database.Statement;
  insert: Database.Statement;
  findRun: Database.Statement;
  firstAfter: Database.Statement;
  append: Database.Transaction<(requests: AppendRequest[], all: NewEvent[], checkIds: boolean) => AppendResult | typeof RETRY_CHECKING_IDS>;
  readModels: SqliteReadModels;
};
/** An append waiting for the end of this turn of the event loop, to be committed with the others of the turn. */
type QueuedAppend = { requests: AppendRequest[]; all: NewEvent[]; resolve: (result: AppendResult) => void; reject: (error: unknown) => void };
type TurnOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };
/** Returned or thrown inside the fast append transaction when the append must run again looking its ids up. */
const RETRY_CHECKING_IDS = Symbol('retry checking event ids');
/** The columns `readRaw` adds for `verify` (see `StoredColumns`). */

const STORED_COLUMNS = 'event_id, stream, stream_version, pipeline, run_id, type, recorded_at';

/**
 * The embedded default store on better-sqlite3: WAL, `synchronous=FULL`,
 * appends in `BEGIN IMMEDIATE` transactions so concurrent processes queue on
 * the write lock and positions follow commit order.
 *
 * @example
 * const store = openSqliteStore({ path: './runledger.db', create: true });
 */
export function openSqliteStore(options: SqliteStoreOptions): EventStore {
  const { path } = options;
  const memory = path === ':memory:';
  if (!memory && !existsSync(path)) {
    if (!options.create) throw new LedgerError('notFound.ledger', `no ledger at ${path}; define a pipeline first, or point --db / RUNLEDGER_DB at an existing ledger`);
  }
  if (!memory && existsSync(path) && statSync(path).isDirectory()) {
    throw new LedgerError('input.notALedger', `${path} is a directory, not a ledger file; pass --db <file>`);
  }
  // /dev/null, a FIFO or a terminal: SQLite would fail later with "disk I/O error".
  if (!memory && existsSync(path) && !statSync(path).isFile()) {
    throw new LedgerError('input.notALedger', `${path} is not a regular file (a device, a FIFO or a socket), so it cannot hold a ledger; pass --db <file>`);
  }
  if (!memory && !existsSync(dirname(resolve(path)))) {
    throw new LedgerError('input.cannotOpen', `cannot create a ledger at ${path}: the directory ${dirname(path)} does not exist; create it first or pass another --db`);
  }
  let db: Database.Database;
  let readOnly: boolean;
  try {
    ({ db, readOnly } = openSqliteFile(path));
  } catch (error) {
    throw asLedgerError(error, path);
  }
  try {
    const busyTimeoutMs = options.busyTimeoutMs ?? 15_000;
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // SQLite's own default page cache (2 MB) rather than better-sqlite3's 16 MB: the file's pages are in the OS
    // cache already, and a command that reads the whole ledger (report, verify) filled all 16 MB with pages it
    // reads once, a tenth of report --html's peak memory.
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    // A ledger this user can only read is queried as it is: never created, migrated or switched to WAL.
    checkOrCreateSchema(db, path, options.create && !readOnly, (options.migrate ?? options.create) && !readOnly, busyTimeoutMs);
    if (!readOnly) {
      enterWal(db, busyTimeoutMs);
      db.pragma('synchronous = FULL');
      shareSidecarFiles(path);
    }
  } catch (error) {
    // A refused file (not a ledger, a newer one, locked) is not held open until the handle is collected.
    db.close();
    throw asLedgerError(error, path);
  }
  return new SqliteEventStore(db, path, options.signer ?? null);
}

/**
 * Switches the file to WAL (a no-op once it is). While a new file is still in rollback mode, another process
 * opening it at the same moment can hold the lock the switch needs in a way SQLite answers with SQLITE_BUSY
 * at once rather than through the busy handler (it would otherwise deadlock), so the switch is tried again
 * every few milliseconds until the busy timeout.
 */
function enterWal(db: Database.Database, busyTimeoutMs: number): void {
  const until = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function checkOrCreateSchema(db: Database.Database, path: string, create: boolean, migrateOld: boolean, busyTimeoutMs: number): void {
  let tables: string[];
  try {
    tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((t) => t.name);
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new LedgerError('input.notALedger', `${path} is not a SQLite database, so not a runledger ledger; pass --db with a ledger file or a new path`);
    }
    throw error;
  }
  if (tables.length === 0) {
    if (!create) return;
    // WAL before the schema: the new ledger's WAL file is created, and its header and directory entry
    // synced, here and not in the first append's commit. (An existing file is never switched before it
    // has been recognised as a ledger.)
    enterWal(db, busyTimeoutMs);
    const created = db.transaction(() => {
      // Looked at again under the write lock: another process creating the same new ledger may have won it.
      if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table'`).get() !== undefined) return false;
      db.exec(SQLITE_SCHEMA);
      db.prepare(`INSERT INTO runledger_meta (key, value) VALUES ('format', 'runledger'), ('schemaVersion', ?)`).run(String(SQLITE_SCHEMA_VERSION));
      createSqliteReadModelTables(db);
      return true;
    }).immediate();
    // The file the other process wrote is checked like any existing one.
    if (!created) checkOrCreateSchema(db, path, create, migrateOld, busyTimeoutMs);
    return;
  }
  if (!tables.includes('runledger_meta') || !tables.includes('events')) {
    throw new LedgerError('input.notALedger', `${path} is a SQLite database but not a runledger ledger (no runledger_meta table); pass --db with a ledger file or a new path`);
  }
  const version = Number((db.prepare(`SELECT value FROM runledger_meta WHERE key = 'schemaVersion'`).get() as { value: string } | undefined)?.value);
  if (!Number.isInteger(version)) throw new LedgerError('input.notALedger', `${path} has no runledger schema version; it is not a ledger this tool wrote`);
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new LedgerError('input.newerLedger', `${path} is a runledger ledger of schema version ${version}, newer than this runledger understands (${SQLITE_SCHEMA_VERSION}); upgrade runledger`);
  }
  if (version < SQLITE_SCHEMA_VERSION && migrateOld) migrate(db, version);
}

/** Brings an older ledger up to this build's schema, in one transaction; a query command leaves it as it is. */
function migrate(db: Database.Database, from: number): void {
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated it meanwhile.
    const now = Number((db.prepare(`SELECT value FROM runledger_meta WHERE key = 'schemaVersion'`).get() as { value: string }).value);
    for (let version = Math.max(from, now) + 1; version <= SQLITE_SCHEMA_VERSION; version++) db.exec(SQLITE_MIGRATIONS.get(version) ?? '');
    db.prepare(`UPDATE runledger_meta SET value = ? WHERE key = 'schemaVersion'`).run(String(SQLITE_SCHEMA_VERSION));
  }).immediate();
}

function asLedgerError(error: unknown, path: string): unknown {
  if (error instanceof LedgerError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_NOTADB') return new LedgerError('input.notALedger', `${path} is not a SQLite database, so not a runledger ledger; pass --db with a ledger file or a new path`);
  if (code === 'SQLITE_CANTOPEN') return new LedgerError('input.cannotOpen', `cannot open ${path}: ${(error as Error).message}; check the path and its permissions`);
  if (code?.startsWith('SQLITE_READONLY')) return new LedgerError('input.readOnlyLedger', `cannot write to the ledger ${path}: it is read-only for this user (queries still work); ask its owner for write access to the file and its directory (a shared ledger: docs/catchup-and-sharing.md)`);
  if (code === 'SQLITE_BUSY') return new LedgerError('store.busy', `the ledger ${path} stayed locked by another writer; retry in a moment`);
  return error;
}

class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  readonly capabilities = { concurrentWriters: 'processes' as const, importsCheckedColumns: true as const };
  readonly consumers: ConsumerPositions;
  readonly schedulers: SchedulerHealthStore;
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #statements: Statements | null;
  readonly checkpoints?: CheckpointStore;
  readonly readModels?: SqliteReadModels;
  readonly #signer: EventSigner | null;
  /** The statements `read` has prepared, by their SQL (a handful of filter shapes). */
  readonly #reads = new Map<string, Database.Statement>();
  /** False for a version-1 ledger opened by a query command (not migrated): it has no signature column. */
  readonly #hasSignatureColumn: boolean;
  /** Tells whether anything was committed since the head was read (null: cannot tell; undefined: not looked at yet). */
  #walStamp: WalIndexStamp | null | undefined;
  /** The last head read, with the wal-index header read just before it. */
  #kept: { stamp: Buffer; head: ChainHead } | null = null;
  /** The appends waiting for this turn of the event loop to end (null: none committed yet in this turn). */
  #turn: QueuedAppend[] | null = null;
  /** The transaction that commits a turn's queued appends (made on first use). */
  #appendTurn: Database.Transaction<(items: QueuedAppend[]) => TurnOutcome[]> | undefined;

  constructor(db: Database.Database, path: string, signer: EventSigner | null) {
    this.#db = db;
    this.#path = path;
    this.#signer = signer;
    // A file opened without `create` may hold no schema yet: it then reads as an empty ledger.
    const hasSchema = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get() !== undefined;
    this.#hasSignatureColumn = hasSchema && (db.pragma('table_info(events)') as Array<{ name: string }>).some((c) => c.name === 'signature');
    this.#statements = hasSchema ? this.#prepare() : null;
    if (hasSchema) this.checkpoints = sqliteCheckpoints(db);
    if (this.#statements) this.readModels = this.#statements.readModels;
    this.consumers = sqliteConsumers(db);
    this.schedulers = sqliteSchedulers(db);
  }

  #prepare(): Statements {
    const db = this.#db;
    const signed = this.#hasSignatureColumn;
    const statements: Statements = preparedOnUse<Statements>({
      head: () => db.prepare('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1'),
      streamVersion: () => db.prepare('SELECT coalesce(max(stream_version), 0) AS v FROM events WHERE stream = ?').pluck(),
      // An append's first look-ups in one statement, as [head position, head hash, version of the stream]; no row on an empty ledger.
      headAndVersion: () => db.prepare('SELECT position, hash, (SELECT coalesce(max(stream_version), 0) FROM events WHERE stream = ?) FROM events ORDER BY position DESC LIMIT 1').raw(true),
      byEventId: () => db.prepare('SELECT position, payload, prev_hash, hash FROM events WHERE event_id = ?'),
      // Positional parameters, bound in `insertSealed`'s order: cheaper to bind than named ones.
      insert: () =>
        db.prepare(
          `INSERT INTO events (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash${signed ? ', signature' : ''})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${signed ? ', ?' : ''})`,
        ),
      findRun: () => db.prepare(`SELECT pipeline, stream FROM events WHERE run_id = ? AND type = 'RunStarted' LIMIT 1`),
      firstAfter: () => db.prepare('SELECT min(position) AS p FROM events WHERE recorded_at > ?'),
      readModels: () => sqliteReadModels(db),
      // Made once: better-sqlite3 builds a wrapper per transaction() call.
      append: () => db.transaction((requests: AppendRequest[], all: NewEvent[], checkIds: boolean) => appendIn(statements, this.#signer, signed, requests, all, checkIds)),
    });
    return statements;
  }

  #ready() {
    if (!this.#statements) throw new LedgerError('notFound.ledger', `${this.#path} holds no ledger yet; define a pipeline first`);
    return this.#statements;
  }

  /** A signing process must not append to a ledger that cannot store signatures (an old one a query command opened). */
  #signingReady(): void {
    if (this.#signer && !this.#hasSignatureColumn) {
      throw new LedgerError('input.newerLedger', `${this.#path} is a ledger of schema version 1, which cannot store signatures; open it once with a write command (e.g. \`runledger define\`) to migrate it`);
    }
  }

  async append(requests: AppendRequest[]): Promise<AppendResult> {
    const st = this.#ready();
    this.#signingReady();
    // One request (the common case) needs no copy of its events; one event cannot repeat an id.
    const all = requests.length === 1 ? (requests[0] as AppendRequest).events : requests.flatMap((r) => r.events);
    if (all.length > 1 && new Set(all.map((e) => e.eventId)).size !== all.length) {
      throw new LedgerError('input.eventIdReused', 'the same event id appears twice in one append; event ids must be unique per event');
    }
    // The first append of a turn of the event loop commits at once, as it always did. Those that come after it in
    // the same turn (a scheduler's runs starting and ending together) wait for the turn's end and commit together:
    // one transaction, so one fsync of the WAL (synchronous=FULL) for all of them, where each paid its own (~3 ms,
    // the main thread blocked meanwhile). Each keeps its own checks and result: its own savepoint inside it.
    if (this.#turn === null) {
      this.#turn = [];
      setImmediate(() => this.#flushTurn());
      return this.#appendNow(st, requests, all);
    }
    return new Promise<AppendResult>((resolve, reject) => (this.#turn as QueuedAppend[]).push({ requests, all, resolve, reject }));
  }

  /** Appends in a transaction of their own (or in a savepoint, inside the turn's transaction). */
  #appendNow(st: Statements, requests: AppendRequest[], all: NewEvent[]): AppendResult {
    // The common case first: new events at the expected versions, without looking each id up (the UNIQUE
    // event_id index refuses a stored one). A conflict or a stored id rolls it back, and the append runs
    // again looking ids up first, as it always did, so a retried append still reads as already appended.
    // A transaction that throws was rolled back: the read models forget the rows they wrote in it.
    let result: AppendResult | typeof RETRY_CHECKING_IDS;
    try {
      result = st.append.immediate(requests, all, false);
    } catch (error) {
      st.readModels.forget();
      if (error !== RETRY_CHECKING_IDS) throw asLedgerError(error, this.#path);
      result = RETRY_CHECKING_IDS;
    }
    if (result !== RETRY_CHECKING_IDS) return result;
    try {
      return st.append.immediate(requests, all, true) as AppendResult;
    } catch (error) {
      st.readModels.forget();
      throw asLedgerError(error, this.#path);
    }
  }

  /** Commits the appends queued in this turn of the event loop in one transaction, each in its own savepoint. */
  #flushTurn(): void {
    const queued = this.#turn ?? [];
    this.#turn = null;
    if (queued.length === 0) return;
    const st = this.#ready();
    if (queued.length === 1) {
      const q = queued[0] as QueuedAppend;
      try {
        q.resolve(this.#appendNow(st, q.requests, q.all));
      } catch (error) {
        q.reject(error);
      }
      return;
    }
    let outcomes: TurnOutcome[];
    try {
      this.#appendTurn ??= this.#db.transaction((items: QueuedAppend[]) => {
        const out: TurnOutcome[] = [];
        for (const q of items) {
          try {
            out.push({ ok: true, result: this.#appendNow(st, q.requests, q.all) });
          } catch (error) {
            // An error that ended the whole transaction (SQLite rolls back by itself on some I/O errors) fails every append of it.
            if (!this.#db.inTransaction) throw error;
            out.push({ ok: false, error });
          }
        }
        return out;
      });
      outcomes = this.#appendTurn.immediate(queued);
    } catch (error) {
      // Nothing of the turn was committed: every append of it failed, and the rows the read models kept are gone.
      st.readModels.forget();
      const why = asLedgerError(error, this.#path);
      for (const q of queued) q.reject(why);
      return;
    }
    queued.forEach((q, i) => {
      const outcome = outcomes[i] as TurnOutcome;
      if (outcome.ok) q.resolve(outcome.result);
      else q.reject(outcome.error);
    });
  }

  async importSealed(rows: RawEvent[] | AsyncIterable<RawEvent[]>): Promise<ChainHead> {
    const st = this.#ready();
    this.#signingReady();
    const db = this.#db;
    const { batchesOf, ChainUnsealer } = await import('../unseal-chain.js');
    // better-sqlite3's transaction() cannot span an await, and a streamed import awaits the file between
    // batches: the transaction is opened by hand. Nothing else uses this connection meanwhile (one
    // process, one import), and BEGIN IMMEDIATE keeps other processes' appends out until COMMIT.
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw asLedgerError(error, this.#path);
    }
    db.pragma(`cache_size = -${BULK_PAGE_CACHE_KIB}`);
    try {
      const head = headOf(st.head.get() as Row | undefined);
      if (head.position !== 0) {
        throw new LedgerError('ledger.notEmpty', `${this.#path} already holds ${head.position} events; import only into a new, empty ledger (pass another --db)`);
      }
      const unsealer = new ChainUnsealer(this.#signer);
      // Positional parameters: binding eleven named ones per row cost a fifth of the import.
      const signed = this.#hasSignatureColumn;
      const insert = db.prepare(
        `INSERT INTO events (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash${signed ? ', signature' : ''}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${signed ? ', ?' : ''})`,
      );
      // Only the stored columns are needed here, so rows checked in import's worker thread are not decoded again.
      // A plain function, not db.transaction(): inside the transaction opened above that would open a
      // SAVEPOINT per batch, and with one open SQLite copies each page it changes into a sub-journal (50
      // batches of 1,000 rows took ~280 ms of CPU to insert that way, ~233 ms without). A failed insert
      // rolls the whole import back below either way.
      const insertAll = (rows: Awaited<ReturnType<typeof unsealer.nextColumns>>): void => {
        for (const { row, columns: c, signature } of rows) {
          if (signed) insert.run(row.position, c.event_id, c.stream, c.stream_version, c.pipeline, c.run_id, c.type, c.recorded_at, row.payload, row.prevHash, row.hash, signature);
          else insert.run(row.position, c.event_id, c.stream, c.stream_version, c.pipeline, c.run_id, c.type, c.recorded_at, row.payload, row.prevHash, row.hash);
        }
      };
      for await (const batch of batchesOf(rows)) insertAll(await unsealer.nextColumns(batch));
      // The read models of the imported chain, in the same transaction: the ledger opens with them right.
      st.readModels.rebuildInTransaction();
      const last = headOf(st.head.get() as Row | undefined);
      db.exec('COMMIT');
      return last;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw asLedgerError(error, this.#path);
    } finally {
      // Back to the connection's own size: shrinking the cache frees the pages the import held.
      db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    }
  }

  async *read(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    const check = await readCheck(filter.validate);
    // Rows as arrays, as for readRaw: a row object per event built in the driver was a sixth of the store's time in a cold rebuild.
    for await (const rows of this.#rows(filter)) {
      yield rows.map((r) => decodeStoredRow({ position: r[0] as number, payload: r[1] as string, prevHash: r[2] as string, hash: r[3] as string }, check));
    }
  }

  async *readBackward(filter: ReadFilter = {}): AsyncIterable<RecordedEvent[]> {
    const check = await readCheck(filter.validate);
    for await (const rows of this.#rows(filter, false, true)) {
      yield rows.map((r) => decodeStoredRow({ position: r[0] as number, payload: r[1] as string, prevHash: r[2] as string, hash: r[3] as string }, check));
    }
  }

  async *readRaw(filter: ReadFilter = {}): AsyncIterable<RawEvent[]> {
    // Rows as arrays (better-sqlite3's raw mode): building twelve-key objects in the driver was a quarter of
    // verify's time on 50,000 events; the same objects built here cost a fraction of that.
    for await (const rows of this.#rows(filter, true)) {
      yield rows.map(rawEventOfArray);
    }
  }

  /** Rows in raw mode: the columns of the SELECT in order (position, payload, prev_hash, hash, then readRaw's). */
  async *#rows(filter: ReadFilter, withColumns = false, backward = false): AsyncIterable<unknown[][]> {
    if (!this.#statements) return;
    const where = ['position >= @from', 'position <= @to'];
    if (filter.pipeline !== undefined) where.push('pipeline = @pipeline');
    if (filter.stream !== undefined) where.push('stream = @stream');
    if (filter.runId !== undefined) where.push('run_id = @runId');
    // One parameter a type (a handful at most), so each length of list is one more shape of statement.
    const types: Record<string, string> = {};
    filter.types?.forEach((type, i) => (types[`type${i}`] = type));
    if (filter.types !== undefined) where.push(`type IN (${Object.keys(types).map((name) => `@${name}`).join(', ') || 'NULL'})`);
    const sql = `SELECT position, payload, prev_hash, hash${withColumns ? `, ${this.#hasSignatureColumn ? 'signature' : 'NULL AS signature'}, ${STORED_COLUMNS}` : ''} FROM events WHERE ${where.join(' AND ')} ORDER BY position${backward ? ' DESC' : ''} LIMIT @limit`;
    // Prepared once per shape of filter: a library calling start + succeed in a loop prepared one per read.
    let statement = this.#reads.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql).raw(true);
      this.#reads.set(sql, statement);
    }
    const limit = filter.batchSize ?? 1000;
    let from = filter.fromPosition ?? 1;
    let to = filter.toPosition ?? Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = statement.all({ from, to, limit, pipeline: filter.pipeline, stream: filter.stream, runId: filter.runId, ...types }) as unknown[][];
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < limit) return;
      const last = (rows.at(-1) as unknown[])[0] as number;
      if (backward) to = last - 1;
      else from = last + 1;
    }
  }

  async readMeta(): Promise<LedgerMeta> {
    if (!this.#statements) return { stored: [], expected: [] };
    const stored = this.#db.prepare('SELECT key, value FROM runledger_meta ORDER BY key').all() as MetaRow[];
    return { stored, expected: expectedMeta(this.#hasSignatureColumn ? SQLITE_SCHEMA_VERSION : 1) };
  }

  async findRun(runId: string): Promise<{ pipeline: string; stream: string } | null> {
    if (!this.#statements) return null;
    return (this.#statements.findRun.get(runId) as { pipeline: string; stream: string } | undefined) ?? null;
  }

  async head(): Promise<ChainHead> {
    if (!this.#statements) return { position: 0, hash: GENESIS_HASH };
    // A server asks for the head on every request (it keys its answers on it): while no commit has finished since
    // the last read, by this connection or any other process, that head is still the head, and one pread of the
    // wal-index header says so where the query costs a read transaction. The header is read before the query, so a
    // commit between the two leaves a newer head kept under an older header, which the next call reads again.
    // Inside this connection's own open transaction (an import) its uncommitted rows count: the query then.
    const stamp = this.#db.inTransaction ? null : this.#stampOf();
    const kept = this.#kept;
    if (stamp !== null && kept !== null && stamp.equals(kept.stamp)) return { ...kept.head };
    const head = headOf(this.#statements.head.get() as Row | undefined);
    this.#kept = stamp === null ? null : { stamp, head: { ...head } };
    return head;
  }

  /** The wal-index header now, or null when it cannot tell (no -shm: not in WAL mode, or in memory). */
  #stampOf(): Buffer | null {
    if (this.#walStamp === undefined) {
      const wal = this.#path !== ':memory:' && this.#db.pragma('journal_mode', { simple: true }) === 'wal';
      this.#walStamp = wal ? walIndexStamp(this.#path) : null;
    }
    return this.#walStamp?.read() ?? null;
  }

  async positionAt(instant: string): Promise<number> {
    if (!this.#statements) return 0;
    const first = (this.#statements.firstAfter.get(new Date(instant).toISOString()) as { p: number | null }).p;
    return first === null ? (await this.head()).position : first - 1;
  }

  async close(): Promise<void> {
    // Appends still waiting for their turn's commit are committed first.
    this.#flushTurn();
    this.#walStamp?.close();
    if (this.#db.open) this.#db.close();
  }
}

/** One append transaction; without `checkIds`, RETRY_CHECKING_IDS where looking ids up might answer otherwise. */
function appendIn(st: Omit<Statements, 'append'>, signer: EventSigner | null, signed: boolean, requests: AppendRequest[], all: NewEvent[], checkIds: boolean): AppendResult | typeof RETRY_CHECKING_IDS {
  if (checkIds) {
    const already = all.map((e) => st.byEventId.get(e.eventId) as Row | undefined);
    if (already.some((row) => row !== undefined)) {
      if (already.some((row) => row === undefined)) {
        throw new LedgerError('input.eventIdReused', 'some event ids of this append are already stored and some are not; event ids must be unique per event');
      }
      const events = (already as Row[]).map((row) => decodeRow(row));
      return { ok: true, events, head: headOf(st.head.get() as Row | undefined), alreadyAppended: true };
    }
  }
  // The head and the first stream's version in one look-up (read here, under the write lock); later streams one each.
  // An empty ledger has no head row, and every stream of it is at version 0.
  // (Indexed, not destructured: array destructuring runs the iterator protocol until the code is optimized.)
  const head = st.headAndVersion.get(requests[0]?.stream ?? null) as [number, string, number] | undefined;
  let position = head ? head[0] : 0;
  let hash = head ? head[1] : GENESIS_HASH;
  const firstVersion = head ? head[2] : 0;
  // Each request's stream version, all checked before anything is sealed. Versions as they stand after the
  // requests seen so far, so two requests for one stream chain up (a map only when there are two).
  const actuals: number[] = [];
  const versions = requests.length > 1 ? new Map<string, number>() : null;
  for (let r = 0; r < requests.length; r++) {
    const request = requests[r] as AppendRequest;
    const actual = r === 0 ? firstVersion : (versions?.get(request.stream) ?? (st.streamVersion.get(request.stream) as number));
    if (request.expectedVersion !== 'any' && request.expectedVersion !== actual) {
      if (!checkIds) return RETRY_CHECKING_IDS;
      return { ok: false, conflict: { stream: request.stream, expected: request.expectedVersion, actual } };
    }
    actuals.push(actual);
    versions?.set(request.stream, actual + request.events.length);
  }
  const sealed: SealedEvent[] = [];
  for (let r = 0; r < requests.length; r++) {
    const events = (requests[r] as AppendRequest).events;
    const actual = actuals[r] as number;
    for (let i = 0; i < events.length; i++) {
      const one = sealEvent(position + 1, hash, events[i] as NewEvent, actual + i + 1, signer);
      sealed.push(one);
      position = one.event.position;
      hash = one.event.hash;
    }
  }
  try {
    for (let i = 0; i < sealed.length; i++) insertSealed(st.insert, signed, sealed[i] as SealedEvent);
  } catch (error) {
    // Only a stored event id can collide here (versions and positions were read in this transaction).
    if (!checkIds && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw RETRY_CHECKING_IDS;
    throw error;
  }
  if (st.readModels.ready) {
    // The table writer folds the events as they were stored (decoded from their canonical payload, as every reader sees them).
    st.readModels.apply(
      sealed.map((s) => decodeStoredRow({ position: s.event.position, payload: s.payload, prevHash: s.event.prevHash, hash: s.event.hash })),
      head ? head[0] : 0,
    );
  }
  return { ok: true, events: sealed.map((s) => s.event), head: { position, hash }, alreadyAppended: false };
}

function insertSealed(insert: Database.Statement, signed: boolean, { event, payload, pipeline, runId, signature }: SealedEvent): void {
  const { position, eventId, stream, streamVersion, type, recordedAt, prevHash, hash } = event;
  if (signed) insert.run(position, eventId, stream, streamVersion, pipeline, runId, type, recordedAt, payload, prevHash, hash, signature);
  else insert.run(position, eventId, stream, streamVersion, pipeline, runId, type, recordedAt, payload, prevHash, hash);
}

/** What runledger writes into runledger_meta for a ledger of this schema version, and nothing else. */
function expectedMeta(version: number): MetaRow[] {
  return [
    { key: 'format', value: 'runledger' },
    { key: 'schemaVersion', value: String(version) },
  ];
}

/** A `readRaw` row in raw mode: the columns in the order of its SELECT (position, payload, prev_hash, hash, signature, STORED_COLUMNS). */
function rawEventOfArray(r: unknown[]): RawEvent {
  return {
    position: r[0] as number,
    payload: r[1] as string,
    prevHash: r[2] as string,
    hash: r[3] as string,
    signature: r[4] as string | null,
    columns: {
      event_id: r[5] as string,
      stream: r[6] as string,
      stream_version: r[7] as number,
      pipeline: r[8] as string,
      run_id: r[9] as string | null,
      type: r[10] as string,
      recorded_at: r[11] as string,
    },
  };
}

function headOf(row: Row | undefined): ChainHead {
  return row ? { position: row.position, hash: row.hash } : { position: 0, hash: GENESIS_HASH };
}

function decodeRow(row: Row, check?: EventCheck): RecordedEvent {
  return decodeStoredRow({ position: Number(row.position), payload: row.payload, prevHash: row.prev_hash, hash: row.hash }, check);
}
