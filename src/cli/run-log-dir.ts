import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LedgerError } from '../errors.js';
import { isPostgresUrl } from '../store/open-store.js';

/** Where run logs go without --logs: beside a SQLite ledger file (`<file>.logs`); for PostgreSQL, ./runledger-logs. */
export function defaultLogDir(db: string): string {
  return isPostgresUrl(db) ? resolve('runledger-logs') : resolve(`${db}.logs`);
}

/**
 * Refuses before any run starts when the log directory cannot be written: it, or the nearest directory above it
 * that exists, must be a writable directory. Nothing is created here; each run's file creates what it needs.
 */
export async function checkLogDir(dir: string, named: boolean): Promise<void> {
  const fix = named ? 'pass a writable --logs <dir>, or --no-logs' : 'pass --logs <dir> to keep them elsewhere, or --no-logs';
  let at = resolve(dir);
  for (;;) {
    // A file where the directory (or one above it) should be: each run would fail to create its log (ENOTDIR).
    let info;
    try {
      info = await stat(at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = dirname(at);
      if (code === 'ENOENT' && parent !== at) {
        at = parent;
        continue;
      }
      throw new LedgerError('input.unwritablePath', `cannot write run log files under ${dir} (${code ?? (error as Error).message} at ${at}); ${fix}`);
    }
    if (!info.isDirectory()) throw new LedgerError('input.unwritablePath', `cannot write run log files under ${dir}: ${at} is not a directory; ${fix}`);
    try {
      await access(at, constants.W_OK | constants.X_OK);
      return;
    } catch (error) {
      throw new LedgerError('input.unwritablePath', `cannot write run log files under ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message} at ${at}); ${fix}`);
    }
  }
}
