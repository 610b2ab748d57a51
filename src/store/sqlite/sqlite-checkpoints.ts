import type Database from 'better-sqlite3';
import { loadedCheckpoint, type CheckpointRow } from '../checkpoint-row.js';
import type { CheckpointStore, StoredCheckpoint } from '../event-store.js';

/** Outside the hash chain and outside the schema version: a ledger without this table is a ledger without checkpoints. */
export const SQLITE_CHECKPOINT_TABLE = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  pipeline           TEXT    PRIMARY KEY,
  position           INTEGER NOT NULL,
  event_hash         TEXT    NOT NULL,
  projection_version INTEGER NOT NULL,
  state              TEXT    NOT NULL
);`;

type Row = CheckpointRow;

const SELECT = `SELECT c.pipeline, c.position, c.event_hash, c.projection_version, c.state, e.hash AS hash_at_position
  FROM projection_checkpoints c LEFT JOIN events e ON e.position = c.position`;

/**
 * Checkpoints in the SQLite file. Saving is best effort: it never waits for
 * another writer's lock (a query must not queue behind a long append) and a
 * read-only file simply keeps no checkpoints.
 *
 * @example
 * const checkpoints = sqliteCheckpoints(db);
 * await checkpoints.load('etl_orders');
 */
export function sqliteCheckpoints(db: Database.Database): CheckpointStore {
  const hasTable = (): boolean => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projection_checkpoints'`).get() !== undefined;
  return {
    async load(pipeline) {
      if (!hasTable()) return null;
      const row = db.prepare(`${SELECT} WHERE c.pipeline = ?`).get(pipeline) as Row | undefined;
      return row === undefined ? null : loadedCheckpoint(row);
    },
    async list() {
      if (!hasTable()) return [];
      return (db.prepare(`${SELECT} ORDER BY c.pipeline`).all() as Row[]).map(loadedCheckpoint);
    },
    async save(checkpoint: StoredCheckpoint) {
      const timeout = db.pragma('busy_timeout', { simple: true }) as number;
      db.pragma('busy_timeout = 0');
      try {
        db.exec(SQLITE_CHECKPOINT_TABLE);
        db.prepare(
          `INSERT INTO projection_checkpoints (pipeline, position, event_hash, projection_version, state) VALUES (@pipeline, @position, @eventHash, @projectionVersion, @state)
           ON CONFLICT (pipeline) DO UPDATE SET position = excluded.position, event_hash = excluded.event_hash, projection_version = excluded.projection_version, state = excluded.state
           WHERE excluded.position > projection_checkpoints.position OR excluded.projection_version <> projection_checkpoints.projection_version`,
        ).run(checkpoint);
      } finally {
        db.pragma(`busy_timeout = ${timeout}`);
      }
    },
    async pipelines() {
      return (db.prepare('SELECT DISTINCT pipeline FROM events ORDER BY pipeline').all() as Array<{ pipeline: string }>).map((r) => r.pipeline);
    },
    async discard(pipeline) {
      if (!hasTable()) return;
      if (pipeline === undefined) db.prepare('DELETE FROM projection_checkpoints').run();
      else db.prepare('DELETE FROM projection_checkpoints WHERE pipeline = ?').run(pipeline);
    },
  };
}
