import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Where `npm run bench:peers` installs the peers: a package of its own, never a runledger dependency. */
const PEERS = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bench', 'peers', 'node_modules');
const PACKAGE = join(PEERS, '@event-driven-io', 'emmett-sqlite');

type EmmettEvent = { type: string; data: Record<string, unknown> };
type EmmettStore = {
  appendToStream(stream: string, events: EmmettEvent[]): Promise<unknown>;
  readStream(stream: string): Promise<{ events: unknown[] }>;
};

/** Emmett's store over one connection the caller keeps open, as an application that holds its event store would. */
export type SharedEmmettStore = EmmettStore & {
  /** `PRAGMA journal_mode` and `PRAGMA synchronous` on that connection: the durability each append gets. */
  durability(): Promise<string>;
  close(): void;
};

export type Peer = { name: string; version: string; open(fileName: string): EmmettStore; openShared(fileName: string): Promise<SharedEmmettStore> };

type SQLiteConnection = { close(): void; querySingle<T>(sql: string): Promise<T | null> };
type EmmettModule = {
  getSQLiteEventStore(options: { fileName: string }): EmmettStore;
  sqliteConnection(options: { fileName: string }): SQLiteConnection;
  createEventStoreSchema(connection: SQLiteConnection): Promise<void>;
  appendToStream(connection: SQLiteConnection, stream: string, streamType: string, events: EmmettEvent[]): Promise<{ success: boolean }>;
  readStream(connection: SQLiteConnection, stream: string): Promise<{ events: unknown[] }>;
};

/**
 * Emmett 0.38's `getSQLiteEventStore` opens and closes a connection per operation for a file; its
 * shared-connection option (`connectionOptions: { singleton: true, connection }`) came in 0.42, whose core
 * package this registry does not have. This is what that option does, from the same exported parts:
 * one `sqliteConnection`, the schema created once, and each append through Emmett's own `appendToStream`
 * (its transaction, stream-position check and inserts), the stream type taken from the name as its store does.
 */
async function openShared(module: EmmettModule, fileName: string): Promise<SharedEmmettStore> {
  const connection = module.sqliteConnection({ fileName });
  await module.createEventStoreSchema(connection);
  return {
    async appendToStream(stream, events) {
      const [first, ...rest] = stream.split('-');
      const result = await module.appendToStream(connection, stream, first !== undefined && first !== '' && rest.length > 0 ? first : 'emt:unknown', events);
      if (!result.success) throw new Error(`bench: Emmett refused an append to ${stream}`);
      return result;
    },
    readStream: (stream) => module.readStream(connection, stream),
    async durability() {
      const mode = await connection.querySingle<{ journal_mode: string }>('PRAGMA journal_mode');
      const sync = await connection.querySingle<{ synchronous: number }>('PRAGMA synchronous');
      return `journal_mode=${mode?.journal_mode ?? '?'}, synchronous=${['OFF', 'NORMAL', 'FULL', 'EXTRA'][sync?.synchronous ?? -1] ?? '?'}`;
    },
    close: () => connection.close(),
  };
}

/**
 * Emmett's SQLite event store with its documented defaults
 * (`getSQLiteEventStore({ fileName })`: WAL, SQLite's default synchronous,
 * a connection per operation), or the reason it cannot be measured.
 */
export async function loadEmmett(): Promise<Peer | { missing: string }> {
  if (!existsSync(join(PACKAGE, 'package.json'))) {
    return { missing: "Emmett's SQLite event store is not installed: run `npm run bench:peers` (it installs bench/peers, never a runledger dependency)" };
  }
  // Its sqlite3 driver is a native addon: a broken build fails as the process loads it, so try that in a child first.
  const probe = spawnSync(process.execPath, ['-e', 'require("sqlite3")'], { cwd: join(PEERS, '..'), encoding: 'utf8' });
  if (probe.status !== 0) {
    return { missing: "Emmett's SQLite event store is installed but its sqlite3 native driver does not load; reinstall it with `npm run bench:peers`" };
  }
  try {
    const version = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
    const module = (await import(pathToFileURL(join(PACKAGE, 'dist', 'index.js')).href)) as EmmettModule;
    return { name: '@event-driven-io/emmett-sqlite', version, open: (fileName) => module.getSQLiteEventStore({ fileName }), openShared: (fileName) => openShared(module, fileName) };
  } catch (error) {
    return { missing: `Emmett's SQLite event store did not load (${(error as Error).message.split('\n')[0]}); reinstall it with \`npm run bench:peers\`` };
  }
}
