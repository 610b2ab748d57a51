import { accessSync, chmodSync, chownSync, closeSync, constants, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { LedgerError } from '../../errors.js';

/** An open SQLite ledger file, and whether this process can only read it. */
export type OpenedSqliteFile = { db: Database.Database; readOnly: boolean };

/**
 * Opens a ledger file the way this user may: read-write when the user can write the file and its directory,
 * else read-only, so every query works on a ledger the user can only read (a colleague's, a shared one).
 *
 * A WAL-mode ledger needs its `-wal` and `-shm` files beside it even to be read. When no writer has them open, the
 * file is read into memory (its header switched from WAL to rollback, which an in-memory database needs) and
 * queried there: with no `-wal` file, the main file holds every committed event, and this user leaves no file
 * behind. While a writer has them open, SQLite's own read-only open uses them. Both read-only forms refuse writes
 * (SQLITE_READONLY), so a write command still says the ledger is read-only instead of writing nowhere.
 *
 * @example
 * const { db, readOnly } = openSqliteFile('/srv/ledgers/etl.db');
 */
export function openSqliteFile(path: string): OpenedSqliteFile {
  if (path !== ':memory:' && !existsSync(path)) createWithUmask(path);
  if (path === ':memory:' || writable(path)) return { db: new Database(path, driverOptions()), readOnly: false };
  // No writer has the ledger open: read the file itself. A read-only SQLite open would create -wal and -shm files
  // owned by this user wherever the directory lets it, and the ledger's owner could then no longer write.
  if (!existsSync(`${path}-wal`) && !existsSync(`${path}-shm`)) return readImage(path);
  try {
    const db = new Database(path, { ...driverOptions(), readonly: true, fileMustExist: true });
    try {
      // Opening is lazy: the first read is what needs the -shm and -wal files.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      return { db, readOnly: true };
    } catch (error) {
      db.close();
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_READONLY') && !code.startsWith('SQLITE_CANTOPEN')) throw error;
    }
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_READONLY') && !code.startsWith('SQLITE_CANTOPEN')) throw error;
  }
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new LedgerError(
      'input.cannotOpen',
      `cannot read ${path}: a writer has commits in ${wal} that this user cannot open read-only; retry once it is idle, or ask the ledger's owner for group access (see docs/catchup-and-sharing.md)`,
    );
  }
  return readImage(path);
}

/** The ledger file read into a read-only in-memory database (with no -wal file, the file holds every commit). */
function readImage(path: string): OpenedSqliteFile {
  const image = readFileSync(path);
  // Bytes 18 and 19 are the file format's write and read versions: 2 is WAL, 1 rollback (what memory supports).
  if (image.length >= 20) {
    image[18] = 1;
    image[19] = 1;
  }
  return { db: new Database(image, { ...driverOptions(), readonly: true }), readOnly: true };
}

/**
 * Creates the new ledger file as an empty file (an empty SQLite database) with the mode the user's umask gives,
 * like every other tool's new file: SQLite itself creates it 0644 whatever the umask, so a team's `umask 002` would
 * never make a group-writable ledger.
 */
function createWithUmask(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o666));
  } catch (error) {
    // Created by another process meanwhile: SQLite opens that one. Anything else, SQLite reports when it opens.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
}

/** True when this user may write the ledger file and create files in its directory (its -wal and -shm). */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    accessSync(dirname(resolve(path)), constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Gives the `-wal` and `-shm` files this process created the ledger file's group and mode (read and write bits),
 * so that on a shared ledger the next user's write still works after this one's query. SQLite already copies the
 * mode when it creates them, but not the group: without a setgid directory they get this user's own group. Only
 * the owner of a file may change it, and only to a group it belongs to; anything else is left as it is.
 *
 * @example
 * shareSidecarFiles('/srv/ledgers/etl.db');
 */
export function shareSidecarFiles(path: string): void {
  if (path === ':memory:' || typeof process.getuid !== 'function') return;
  let ledger;
  try {
    ledger = statSync(path);
  } catch {
    return;
  }
  const uid = process.getuid();
  for (const file of [`${path}-wal`, `${path}-shm`]) {
    try {
      const info = statSync(file);
      if (info.uid !== uid) continue;
      if (info.gid !== ledger.gid) chownSync(file, uid, ledger.gid);
      const mode = ledger.mode & 0o666;
      if ((info.mode & 0o777) !== mode) chmodSync(file, mode);
    } catch {
      // Gone meanwhile (the last connection removed it), or a group this user is not in: nothing to share.
    }
  }
}

let binding: string | null | undefined;

/**
 * better-sqlite3's addon by its path where an npm install builds or downloads it: without one, the driver asks the
 * `bindings` package, which stats a dozen candidate paths and reads a stack trace to find its caller (7-12M
 * instructions of a cold `status`). Any other layout (no such file) is left to `bindings` as before.
 */
function driverOptions(): Database.Options {
  if (binding === undefined) binding = addonBeside(import.meta.dirname);
  return binding === null ? {} : { nativeBinding: binding };
}

/**
 * The addon of the better-sqlite3 package Node's resolution finds from `dir`, or null. The nearest `node_modules`
 * above `dir` that holds the package is where Node looks first, and looking there costs a third of the instructions
 * of asking Node (which parses this module's URL and reads package.json files); only when none does is Node asked
 * (NODE_PATH, the global folders).
 */
function addonBeside(dir: string): string | null {
  for (let at = dir; ; ) {
    const found = join(at, 'node_modules', 'better-sqlite3');
    if (existsSync(join(found, 'package.json'))) return addonIn(found);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  try {
    // node:module asked for only here: imported, it would be loaded at every start (5M instructions).
    return addonIn(dirname(process.getBuiltinModule('node:module').createRequire(import.meta.url).resolve('better-sqlite3/package.json')));
  } catch {
    // No resolvable package.json: the driver finds its addon itself.
    return null;
  }
}

function addonIn(packageDir: string): string | null {
  const file = join(packageDir, 'build', 'Release', 'better_sqlite3.node');
  return existsSync(file) ? file : null;
}
