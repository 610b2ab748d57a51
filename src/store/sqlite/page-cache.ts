import type Database from 'better-sqlite3';

/** The page cache of a connection, in KiB (`PRAGMA cache_size` takes it negative). */
export const PAGE_CACHE_KIB = 2000;

/**
 * The page cache of one long transaction that writes a whole table's worth of rows (an import, a rebuild of the
 * read models), in KiB. An import's rows go into indexes with an insertion point per pipeline, run and stream (a
 * thousand pipelines keep thousands of leaf pages hot), and read models are folded from pages just written: in 2 MB
 * those pages were written out to the WAL and read back again and again (200,000 events: 638,552 pwrite and
 * 604,905 pread calls, against 306,699 and 267,979 in 64 MB). A rebuild of 1,000,000 events spent 7.0 s in the
 * kernel with 2 MB and 3.8 s with 64 MB (`/usr/bin/time`; user time 26.6 s and 25.1 s).
 */
export const BULK_PAGE_CACHE_KIB = 65_536;

/**
 * Runs `body` with the connection's page cache at `BULK_PAGE_CACHE_KIB`, then shrinks it back to `PAGE_CACHE_KIB`,
 * which frees the pages the work held.
 *
 * @example
 * const result = withBulkPageCache(db, () => rebuildInTransaction());
 */
export function withBulkPageCache<T>(db: Database.Database, body: () => T): T {
  db.pragma(`cache_size = -${BULK_PAGE_CACHE_KIB}`);
  try {
    return body();
  } finally {
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  }
}
