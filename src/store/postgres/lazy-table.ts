import type pg from 'pg';

type Query = <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>;

/**
 * A table beside `events` created on the first write (`ddl`, a `CREATE TABLE IF NOT EXISTS`), so ledgers made
 * before it need no migration: `ensure` before a write, `exists` before a read (a read of a ledger that never
 * wrote one finds nothing, without creating it).
 *
 * @example
 * const table = lazyTable(query, read, '"public".runledger_consumers', 'CREATE TABLE IF NOT EXISTS …');
 * if (await table.exists()) … ; await table.ensure();
 */
export function lazyTable(query: Query, read: Query, table: string, ddl: string): { ensure(): Promise<void>; exists(): Promise<boolean> } {
  let created = false;
  return {
    async ensure() {
      if (created) return;
      try {
        await query(ddl, []);
      } catch (error) {
        // Two first saves at once: IF NOT EXISTS is not atomic in PostgreSQL, and the loser sees the winner's table.
        if ((error as { code?: string }).code !== '23505' && (error as { code?: string }).code !== '42P07') throw error;
      }
      created = true;
    },
    async exists() {
      if (!created) created = Boolean((await read<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]))[0]?.t);
      return created;
    },
  };
}
