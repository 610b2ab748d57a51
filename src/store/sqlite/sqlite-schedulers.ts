import type Database from 'better-sqlite3';
import type { SchedulerHealthStore } from '../event-store.js';

/**
 * The schedulers' health rows in `runledger_schedulers` beside `events`, created on the first save (ledgers made
 * before it need no migration; `verify` and `export` read `events` alone).
 *
 * @example
 * await sqliteSchedulers(db).save({ id: '01M…', updatedAt: '2026-11-05T01:00:00.000Z', body: '{…}' });
 */
export function sqliteSchedulers(db: Database.Database): SchedulerHealthStore {
  const exists = () => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runledger_schedulers'`).get() !== undefined;
  let created = exists();
  return {
    async save(row) {
      if (!created) {
        db.exec('CREATE TABLE IF NOT EXISTS runledger_schedulers (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, body TEXT NOT NULL)');
        created = true;
      }
      db.prepare('INSERT INTO runledger_schedulers (id, updated_at, body) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body').run(row.id, row.updatedAt, row.body);
    },
    async list() {
      if (!created && !(created = exists())) return [];
      const rows = db.prepare('SELECT id, updated_at, body FROM runledger_schedulers ORDER BY id').all() as Array<{ id: string; updated_at: string; body: string }>;
      return rows.map((r) => ({ id: r.id, updatedAt: r.updated_at, body: r.body }));
    },
    async remove(ids) {
      if (ids.length === 0 || (!created && !(created = exists()))) return;
      const remove = db.prepare('DELETE FROM runledger_schedulers WHERE id = ?');
      db.transaction(() => {
        for (const id of ids) remove.run(id);
      })();
    },
  };
}
