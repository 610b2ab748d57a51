import type pg from 'pg';
import { loadedCheckpoint, type CheckpointRow } from '../checkpoint-row.js';
import type { CheckpointStore, StoredCheckpoint } from '../event-store.js';
import { quoteIdent } from './postgres-schema.js';

type Row = CheckpointRow;

/** 42P01: the table is not there, which for checkpoints means "none yet". */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: string }).code === '42P01';
}

/** Runs one read statement, again on a new connection if its connection is lost (`withReadRetry`). */
type RetryRead = <T>(read: () => Promise<T>) => Promise<T>;

/**
 * Checkpoints in a `projection_checkpoints` table of the ledger's schema,
 * created on the first save (an existing ledger needs no migration; a role
 * that may not create tables simply keeps none). Outside the hash chain.
 *
 * @example
 * const checkpoints = postgresCheckpoints(pool, 'public', (read) => withReadRetry(target, read));
 */
export function postgresCheckpoints(pool: pg.Pool, schema: string, retryRead: RetryRead): CheckpointStore {
  const table = `${quoteIdent(schema)}.projection_checkpoints`;
  const select = `SELECT c.pipeline, c.position, c.event_hash, c.projection_version, c.state, e.hash AS hash_at_position
    FROM ${table} c LEFT JOIN ${quoteIdent(schema)}.events e ON e.position = c.position`;
  let created = false;
  async function rows(where: string, params: unknown[]): Promise<Row[]> {
    try {
      return (await retryRead(() => pool.query<Row>(`${select} ${where}`, params))).rows;
    } catch (error) {
      if (isMissingTable(error)) return [];
      throw error;
    }
  }
  return {
    async load(pipeline) {
      const row = (await rows('WHERE c.pipeline = $1', [pipeline]))[0];
      return row === undefined ? null : loadedCheckpoint(row);
    },
    async list() {
      return (await rows('ORDER BY c.pipeline', [])).map(loadedCheckpoint);
    },
    async save(checkpoint: StoredCheckpoint) {
      if (!created) {
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${table} (pipeline text PRIMARY KEY, position bigint NOT NULL, event_hash text NOT NULL, projection_version integer NOT NULL, state text NOT NULL)`,
        );
        created = true;
      }
      await pool.query(
        `INSERT INTO ${table} AS c (pipeline, position, event_hash, projection_version, state) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (pipeline) DO UPDATE SET position = excluded.position, event_hash = excluded.event_hash, projection_version = excluded.projection_version, state = excluded.state
         WHERE excluded.position > c.position OR excluded.projection_version <> c.projection_version`,
        [checkpoint.pipeline, checkpoint.position, checkpoint.eventHash, checkpoint.projectionVersion, checkpoint.state],
      );
    },
    async pipelines() {
      return (await retryRead(() => pool.query<{ pipeline: string }>(`SELECT DISTINCT pipeline FROM ${quoteIdent(schema)}.events ORDER BY pipeline`))).rows.map((r) => r.pipeline);
    },
    async discard(pipeline) {
      try {
        if (pipeline === undefined) await pool.query(`DELETE FROM ${table}`);
        else await pool.query(`DELETE FROM ${table} WHERE pipeline = $1`, [pipeline]);
      } catch (error) {
        if (!isMissingTable(error)) throw error;
      }
    },
  };
}
