/**
 * The ledger schema version this build writes and understands. 2 added the nullable `signature`
 * column (see `SQLITE_MIGRATIONS`); a version-1 ledger is migrated when a write command opens it.
 */
export const SQLITE_SCHEMA_VERSION = 2;

/** The statements that bring a ledger from the version before each key up to that version. */
export const SQLITE_MIGRATIONS: ReadonlyMap<number, string> = new Map([[2, 'ALTER TABLE events ADD COLUMN signature TEXT;']]);

/**
 * `payload` holds the exact canonical text that was hashed; the other columns
 * are copies kept for indexes. `signature` is the signature of `hash` when the
 * ledger signs its appends (`RUNLEDGER_SIGNING_KEY`), null otherwise. The triggers keep the ledger append-only (no UPDATE, no DELETE) for every client of
 * the file, not only for runledger.
 */
export const SQLITE_SCHEMA = `
CREATE TABLE runledger_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE events (
  position       INTEGER PRIMARY KEY,
  event_id       TEXT    NOT NULL UNIQUE,
  stream         TEXT    NOT NULL,
  stream_version INTEGER NOT NULL,
  pipeline       TEXT    NOT NULL,
  run_id         TEXT,
  type           TEXT    NOT NULL,
  recorded_at    TEXT    NOT NULL,
  payload        TEXT    NOT NULL,
  prev_hash      TEXT    NOT NULL,
  hash           TEXT    NOT NULL,
  signature      TEXT,
  UNIQUE (stream, stream_version)
);
CREATE INDEX events_by_pipeline ON events (pipeline, position);
CREATE INDEX events_by_run ON events (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX events_by_recorded_at ON events (recorded_at);
CREATE TRIGGER events_are_immutable BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'runledger events are immutable: append a new event instead of updating one'); END;
CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'runledger events are immutable: clear a date instead of deleting its events'); END;
CREATE TRIGGER runledger_meta_is_fixed BEFORE DELETE ON runledger_meta
BEGIN SELECT RAISE(ABORT, 'runledger_meta cannot be deleted'); END;
`;
