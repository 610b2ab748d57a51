/** The ledger schema version this build writes and understands. */
export const SQLITE_SCHEMA_VERSION = 1;

/**
 * `payload` holds the exact canonical text that was hashed; the other columns
 * are copies kept for indexes. The triggers make S1 hold for every client of
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
