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

export type Peer = { name: string; version: string; open(fileName: string): EmmettStore };

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
    const module = (await import(pathToFileURL(join(PACKAGE, 'dist', 'index.js')).href)) as { getSQLiteEventStore(options: { fileName: string }): EmmettStore };
    return { name: '@event-driven-io/emmett-sqlite', version, open: (fileName) => module.getSQLiteEventStore({ fileName }) };
  } catch (error) {
    return { missing: `Emmett's SQLite event store did not load (${(error as Error).message.split('\n')[0]}); reinstall it with \`npm run bench:peers\`` };
  }
}
