import type Database from 'better-sqlite3';
import type { ConsumerPositions } from '../event-store.js';

/**
 * Consumer positions in a table of their own beside `events`, created on the
 * first save, so ledgers written before consumers existed need no migration
 * and `verify`/`export` (which read `events` alone) are untouched.
 *
 * @example
 * const consumers = sqliteConsumers(db);
 * await consumers.save('alerts', 42, new Date().toISOString());
 */
export function sqliteConsumers(db: Database.Database): ConsumerPositions {
  const exists = () => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runledger_consumers'`).get() !== undefined;
  let created = exists();
  return {
    async get(name) {
      if (!created && !(created = exists())) return null;
      const row = db.prepare('SELECT position FROM runledger_consumers WHERE name = ?').get(name) as { position: number } | undefined;
      return row ? Number(row.position) : null;
    },
    async list() {
      if (!created && !(created = exists())) return [];
      const rows = db.prepare('SELECT name, position, updated_at FROM runledger_consumers ORDER BY name').all() as Array<{ name: string; position: number; updated_at: string }>;
      return rows.map((r) => ({ name: r.name, position: Number(r.position), updatedAt: r.updated_at }));
    },
    async save(name, position, at) {
      if (!created) {
        db.exec(`CREATE TABLE IF NOT EXISTS runledger_consumers (
          name       TEXT    PRIMARY KEY,
          position   INTEGER NOT NULL CHECK (position >= 0),
          updated_at TEXT    NOT NULL
        )`);
        created = true;
      }
      db.prepare(
        `INSERT INTO runledger_consumers (name, position, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET position = max(position, excluded.position), updated_at = excluded.updated_at`,
      ).run(name, position, at);
    },
  };
}
