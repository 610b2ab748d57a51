import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { BULK_PAGE_CACHE_KIB, PAGE_CACHE_KIB, withBulkPageCache } from '../../src/store/sqlite/page-cache.js';

// A rebuild runs in the bulk page cache and hands the connection back at its own size, whether it finished or threw.

const cacheSize = (db: Database.Database) => db.pragma('cache_size', { simple: true }) as number;

test('the bulk page cache holds while the work runs and the connection gets its own size back after', () => {
  const db = new Database(':memory:');
  try {
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    expect(withBulkPageCache(db, () => cacheSize(db))).toBe(-BULK_PAGE_CACHE_KIB);
    expect(cacheSize(db)).toBe(-PAGE_CACHE_KIB);
    expect(() =>
      withBulkPageCache(db, () => {
        throw new Error('the rebuild failed');
      }),
    ).toThrow('the rebuild failed');
    expect(cacheSize(db)).toBe(-PAGE_CACHE_KIB);
  } finally {
    db.close();
  }
});
