import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the PostgreSQL half of the looped suites runs against; unset → those halves are skipped, visibly. */
export const TEST_PG_URL: string | undefined = process.env['RUNLEDGER_TEST_PG_URL'] || undefined;

/** The one line a skipped PostgreSQL half prints, so a green run without a server is never mistaken for a full one. */
export function pgSkipMessage(suite: string): string {
  return `${suite} against PostgreSQL skipped: set RUNLEDGER_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test`;
}

/**
 * Fresh, throw-away ledgers on one PostgreSQL database: each `fresh()` is a
 * `--db` URL naming a new schema `rl_test_<run>_<n>` (runledger's own
 * `?schema=` parameter, which the adapter strips before `pg` sees the URL),
 * created here with `pg` directly; `dropAll()` drops every schema of this
 * run, so parallel test files and earlier crashed runs never share a ledger.
 *
 * @example
 * const schemas = pgSchemas(TEST_PG_URL);
 * const db = await schemas.fresh(); // postgres://…/test?schema=rl_test_1a2b3c4d_1
 * afterAll(() => schemas.dropAll());
 */
export function pgSchemas(baseUrl: string): { fresh(): Promise<string>; dropAll(): Promise<void>; prefix: string } {
  const prefix = `rl_test_${randomBytes(4).toString('hex')}`;
  let n = 0;
  return {
    prefix,
    async fresh() {
      const schema = `${prefix}_${++n}`;
      await withClient(baseUrl, (client) => client.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`));
      const url = new URL(baseUrl);
      url.searchParams.set('schema', schema);
      return url.toString();
    },
    async dropAll() {
      await withClient(baseUrl, async (client) => {
        const { rows } = await client.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1', [`${prefix}\\_%`]);
        for (const { name } of rows) await client.query(`DROP SCHEMA ${pg.escapeIdentifier(name)} CASCADE`);
      });
    },
  };
}

/** How many events the ledger in a `?schema=` URL holds, read on a connection of its own. */
export async function pgEventCount(url: string): Promise<number> {
  const server = new URL(url);
  const schema = server.searchParams.get('schema') ?? 'public';
  server.searchParams.delete('schema');
  return withClient(server.toString(), async (client) => {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema)}.events`);
    return Number(rows[0]?.n ?? 0);
  });
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
