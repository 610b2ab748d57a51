import { closeSync, openSync, readSync, realpathSync } from 'node:fs';

/** The wal-index header's two 48-byte copies at the start of the `-shm` file (https://www.sqlite.org/walformat.html). */
const HEADER_BYTES = 96;
const COPY_BYTES = 48;

/** Reads the wal-index header of one WAL-mode SQLite file; see `walIndexStamp`. */
export type WalIndexStamp = {
  /** The header's bytes now, or null while a writer is rewriting it (its two copies differ). */
  read(): Buffer | null;
  close(): void;
};

/**
 * The wal-index header of a WAL-mode SQLite file, read from its `-shm` file with one `pread` and no lock, so a
 * reader can tell that nothing was committed since an earlier read without starting a read transaction (two lock
 * calls and a stat, about 12 µs each time on a loaded machine). Every commit, by any process or connection, and
 * every WAL reset after a checkpoint rewrites that header (its change counter `iChange` goes up), second copy
 * first; a reader that sees both copies equal to the bytes it saw before knows no commit finished meanwhile, which
 * is SQLite's own test for whether its cached view of the file is still good. The file's layout is fixed because
 * processes built with different SQLite versions share it. Null when the file has no `-shm` (not in WAL mode, in
 * memory): the caller then reads as before. The `-shm` is where SQLite puts it: beside the file its path resolves
 * to, symbolic links followed.
 *
 * @example
 * const stamp = walIndexStamp('/srv/ledger.db');
 * const before = stamp?.read();
 * // … later: nothing was committed when the bytes are the same
 * const unchanged = before != null && stamp?.read()?.equals(before) === true;
 */
export function walIndexStamp(path: string): WalIndexStamp | null {
  let fd: number;
  try {
    fd = openSync(`${realpathSync(path)}-shm`, 'r');
  } catch {
    return null;
  }
  let open = true;
  return {
    read() {
      if (!open) return null;
      const bytes = Buffer.allocUnsafe(HEADER_BYTES);
      if (readSync(fd, bytes, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return null;
      return bytes.compare(bytes, COPY_BYTES, HEADER_BYTES, 0, COPY_BYTES) === 0 ? bytes : null;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
