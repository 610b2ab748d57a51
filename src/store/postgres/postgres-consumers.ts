import pg from 'pg';
import type { ConsumerPositions } from '../event-store.js';
import { lazyTable } from './lazy-table.js';
import { quoteIdent } from './postgres-schema.js';

type Query = <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>;

/**
 * Consumer positions in `<schema>.runledger_consumers`, created on the first
 * save (ledgers made before consumers existed need no migration). The table
 * sits beside `events`, so the chain, `verify` and `export` never see it.
 *
 * @example
 * const consumers = postgresConsumers(query, 'public', (sql, params) => withReadRetry(target, () => query(sql, params)));
 */
export function postgresConsumers(query: Query, schema: string, read: Query): ConsumerPositions {
  const table = `${quoteIdent(schema)}.runledger_consumers`;
  const lazy = lazyTable(query, read, table, `CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, position bigint NOT NULL CHECK (position >= 0), updated_at text NOT NULL)`);
  return {
    async list() {
      if (!(await lazy.exists())) return [];
      const rows = await read<{ name: string; position: string; updated_at: string }>(`SELECT name, position, updated_at FROM ${table} ORDER BY name COLLATE "C"`, []);
      return rows.map((r) => ({ name: r.name, position: Number(r.position), updatedAt: r.updated_at }));
    },
    async get(name) {
      if (!(await lazy.exists())) return null;
      const rows = await read<{ position: string }>(`SELECT position FROM ${table} WHERE name = $1`, [name]);
      return rows[0] ? Number(rows[0].position) : null;
    },
    async save(name, position, at) {
      await lazy.ensure();
      await query(
        `INSERT INTO ${table} (name, position, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET position = GREATEST(${table}.position, excluded.position), updated_at = excluded.updated_at`,
        [name, position, at],
      );
    },
  };
}

/**
 * The NOTIFY channel of one ledger (one per schema). PostgreSQL cuts channel
 * names at 63 bytes; two long schema names sharing a prefix only wake each
 * other's listeners, who then find nothing new.
 *
 * @example
 * appendChannel('public') // 'runledger_append:public'
 */
export function appendChannel(schema: string): string {
  return `runledger_append:${schema}`.slice(0, 63);
}

/**
 * Listens on the ledger's channel with a connection of its own (a pooled one
 * would be handed to other queries). A dropped connection is re-opened after
 * a pause; the caller polls slowly as well, so nothing is missed meanwhile.
 *
 * @example
 * const stop = await listenForAppends(connectionString, 'public', () => wake());
 */
export async function listenForAppends(connectionString: string, schema: string, onAppend: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    if (stopped) return;
    const next = new pg.Client({ connectionString, application_name: 'runledger-listen' });
    next.on('notification', () => onAppend());
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${quoteIdent(appendChannel(schema))}`);
      client = next;
      // Anything appended while there was no listener is found by this wake-up.
      onAppend();
    } catch {
      reconnect(next);
    }
  };
  const reconnect = (broken: pg.Client) => {
    if (stopped || (client !== null && client !== broken) || retry) return;
    client = null;
    broken.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
