import type pg from 'pg';
import type { SchedulerHealthStore } from '../event-store.js';
import { lazyTable } from './lazy-table.js';
import { quoteIdent } from './postgres-schema.js';

type Query = <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>;

/**
 * The schedulers' health rows in `<schema>.runledger_schedulers`, created on the first save, beside `events`
 * and outside the chain (as the consumers' positions are).
 *
 * @example
 * const schedulers = postgresSchedulers(query, 'public', read);
 */
export function postgresSchedulers(query: Query, schema: string, read: Query): SchedulerHealthStore {
  const table = `${quoteIdent(schema)}.runledger_schedulers`;
  const lazy = lazyTable(query, read, table, `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, updated_at text NOT NULL, body text NOT NULL)`);
  return {
    async save(row) {
      await lazy.ensure();
      await query(`INSERT INTO ${table} (id, updated_at, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body`, [row.id, row.updatedAt, row.body]);
    },
    async list() {
      if (!(await lazy.exists())) return [];
      const rows = await read<{ id: string; updated_at: string; body: string }>(`SELECT id, updated_at, body FROM ${table} ORDER BY id COLLATE "C"`, []);
      return rows.map((r) => ({ id: r.id, updatedAt: r.updated_at, body: r.body }));
    },
    async remove(ids) {
      if (ids.length === 0 || !(await lazy.exists())) return;
      await query(`DELETE FROM ${table} WHERE id = ANY($1::text[])`, [ids]);
    },
  };
}
