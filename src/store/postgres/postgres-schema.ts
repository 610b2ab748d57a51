/**
 * The ledger schema version this build writes and understands on PostgreSQL. 2 added the nullable
 * `signature` column; a version-1 ledger is migrated when a write command opens it (`postgresMigrationSql`).
 */
export const POSTGRES_SCHEMA_VERSION = 2;

/**
 * The statements that bring a ledger in `schema` from version 1 to this build's version. Adding a nullable
 * column rewrites no row, so the immutability triggers (UPDATE, DELETE, TRUNCATE) are not involved.
 *
 * @example
 * await client.query(postgresMigrationSql('public'));
 */
export function postgresMigrationSql(schema: string): string {
  const s = quoteIdent(schema);
  return `ALTER TABLE ${s}.events ADD COLUMN IF NOT EXISTS signature text;
UPDATE ${s}.runledger_meta SET value = '${POSTGRES_SCHEMA_VERSION}' WHERE key = 'schemaVersion';`;
}

/**
 * Quotes a PostgreSQL identifier, so any schema name (even one from
 * `current_schema()` with odd characters) is safe inside generated SQL.
 *
 * @example
 * quoteIdent('rl_test"x') // '"rl_test""x"'
 */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Name of the transaction-level advisory lock every append takes first
 * (hashed to a bigint with `hashtextextended(name, 0)`). One lock per
 * ledger, i.e. per schema: appends to one ledger queue up so positions equal
 * commit order, while ledgers in other schemas of the same database never wait.
 *
 * @example
 * await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [appendLockName('public')]);
 */
export function appendLockName(schema: string): string {
  return `runledger.append:${schema}`;
}

/** The advisory lock that makes two processes creating the same ledger at once take turns. */
export function createLockName(schema: string): string {
  return `runledger.create:${schema}`;
}

/**
 * The DDL of one ledger in `schema`. Mirrors the SQLite schema column for
 * column; `payload` is `text`, not `jsonb`, because `jsonb` reorders keys and
 * drops whitespace, and the chain hashes the exact text. `recorded_at`
 * is `COLLATE "C"` so `positionAt` compares instants byte-wise, as SQLite
 * does, whatever the database's locale. The triggers are statement-level so
 * even an UPDATE or DELETE that matches no row is refused, and TRUNCATE,
 * which row triggers never see, is refused too. Triggers bind every role
 * but the tables' owner, who can drop them; a DBA who wants the ledger append-only
 * against the application role as well creates the ledger as another role and
 * runs `REVOKE UPDATE, DELETE, TRUNCATE ON <schema>.events, <schema>.runledger_meta FROM <app role>`.
 * The schema itself must exist (see `openPostgresStore`).
 *
 * @example
 * await client.query(postgresSchemaSql('public'));
 */
export function postgresSchemaSql(schema: string): string {
  const s = quoteIdent(schema);
  return `
CREATE TABLE ${s}.runledger_meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE ${s}.events (
  position       bigint  PRIMARY KEY CHECK (position >= 1),
  event_id       text    NOT NULL UNIQUE,
  stream         text    NOT NULL,
  stream_version integer NOT NULL,
  pipeline       text    NOT NULL,
  run_id         text,
  type           text    NOT NULL,
  recorded_at    text    COLLATE "C" NOT NULL,
  payload        text    NOT NULL,
  prev_hash      text    NOT NULL,
  hash           text    NOT NULL,
  signature      text,
  UNIQUE (stream, stream_version)
);
CREATE INDEX events_by_pipeline ON ${s}.events (pipeline, position);
CREATE INDEX events_by_run ON ${s}.events (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX events_by_recorded_at ON ${s}.events (recorded_at);
CREATE FUNCTION ${s}.runledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_TABLE_NAME = 'events' THEN
    RAISE EXCEPTION 'runledger events are immutable: % on %.events refused; append a new event instead (clear a date rather than deleting its events)', TG_OP, TG_TABLE_SCHEMA;
  END IF;
  RAISE EXCEPTION 'runledger_meta cannot be deleted or truncated: % on %.runledger_meta refused', TG_OP, TG_TABLE_SCHEMA;
END
$fn$;
CREATE TRIGGER events_are_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.runledger_refuse_change();
CREATE TRIGGER runledger_meta_is_fixed BEFORE DELETE OR TRUNCATE ON ${s}.runledger_meta
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.runledger_refuse_change();
INSERT INTO ${s}.runledger_meta (key, value) VALUES ('format', 'runledger'), ('schemaVersion', '${POSTGRES_SCHEMA_VERSION}');
`;
}
