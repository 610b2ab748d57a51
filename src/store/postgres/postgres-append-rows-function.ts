import { APPEND_FUNCTION } from './postgres-append-function.js';
import { appendLockName, quoteIdent } from './postgres-schema.js';

/**
 * The append with its read-model rows folded ahead of the lock. The client reads the rows its events
 * touch, the head and the streams' versions, and folds without holding anything, with the positions the
 * events would take if no other append came first. One call of this function then takes the append lock,
 * checks that what the fold read still stands, appends (`runledger_append_v1`), writes the folded rows and
 * commits: the lock is held for one server-side call, as without read models, never across a round trip
 * or the client's fold. When anything read has changed it appends nothing and says `stale`; the client
 * then appends the slow way, folding under the lock.
 *
 * What "still stands" means:
 * - the read models hold every event (their position is the head) and have this build's stamp;
 * - each stream the events continue is at the version the fold gave them;
 * - each date and run row read is byte for byte as read (or still missing);
 * - each pipeline summary is as read apart from its `position`, the last event folded into it: another
 *   append to the pipeline moves it, and the fold does not look at it (it only sets it). Where the
 *   summary's complete-through or slot tally was settled from other date rows of the pipeline, its
 *   position must not have moved either, as no event of the pipeline can then have changed those rows.
 *
 * Positions are only copied and compared by the fold, never computed with, and every position the events
 * take is above every stored one, so a fold at guessed positions equals the fold at the real ones once each
 * position it wrote is moved by the same distance: the function moves every value at or above the first
 * guessed position in the position columns (`positionColumns`) by the difference. The client folds ahead
 * only when no other field carries one of the new positions (see `foldAhead`).
 */

/** The start of the function's name; the read models' stamp follows it. */
export const APPEND_ROWS_FUNCTION = 'runledger_append_rows_v';

/** The function's name, with the read models' stamp in it: tables of another shape have a function of their own. */
export function appendRowsFunctionName(stamp: string): string {
  return `${APPEND_ROWS_FUNCTION}${stamp.replaceAll('.', '_')}`;
}

const APPEND_PARAMS = 'text[], text[], text[], int[], text[], text[], text[], text[], text[], text[], text[], text[], int[]';

/** The full signature, for `to_regprocedure`. */
export function appendRowsFunctionSignature(schema: string, stamp: string): string {
  return `${quoteIdent(schema)}.${appendRowsFunctionName(stamp)}(${APPEND_PARAMS}, jsonb)`;
}

/** A date or run row's fingerprint, read before the lock and again under it. */
export function rowHashSql(alias: string): string {
  return `encode(sha256(convert_to(${alias}::text, 'UTF8')), 'hex')`;
}

/** A summary row's fingerprint without its `position`. */
export function summaryHashSql(alias: string): string {
  return `encode(sha256(convert_to((to_jsonb(${alias}) - 'position')::text, 'UTF8')), 'hex')`;
}

/**
 * `JOIN <rm_runs> <run> ON …`: the row of the run an event (`event`) of its pipeline started, as the run's row is keyed by
 * its pipeline and the position of its start (`seq`). With `event.run_id = …`, the events' index of runs finds it.
 */
export function runOfEventJoin(quotedSchema: string, event: string, run: string): string {
  return `JOIN ${quotedSchema}.rm_runs ${run} ON ${run}.pipeline = ${event}.pipeline AND ${run}.seq = ${event}.position AND ${run}.run_id = ${event}.run_id`;
}

/** The columns of one read-model table, in table order, and which of them hold event positions. */
export type TableColumns = { table: string; key: string; columns: readonly string[]; positions: readonly string[] };

/**
 * The function, for the read-model tables `dates`, `runs` and `summaries` as they are in the database.
 * `p_ahead` is `{ first, stamp, bases: [[stream, version]], summaries: [[pipeline, hash|null, position|null]],
 * dates: [[pipeline, date, hash|null]], runs: [[pipeline, runId, hash|null]], write: { dates, runs, summaries } }`.
 */
export function appendRowsFunctionSql(schema: string, stamp: string, tables: { dates: TableColumns; runs: TableColumns; summaries: TableColumns }): string {
  const s = quoteIdent(schema);
  const lock = `'${appendLockName(schema).replaceAll("'", "''")}'`;
  const upsert = (t: TableColumns, part: string) => {
    const cols = t.columns.map(quoteIdent);
    const values = t.columns.map((c) => (t.positions.includes(c) ? `CASE WHEN r.${quoteIdent(c)} >= g THEN r.${quoteIdent(c)} + shift ELSE r.${quoteIdent(c)} END` : `r.${quoteIdent(c)}`));
    return `IF jsonb_array_length(p_ahead->'write'->'${part}') > 0 THEN
    INSERT INTO ${s}.${t.table} (${cols.join(', ')})
      SELECT ${values.join(', ')} FROM jsonb_populate_recordset(null::${s}.${t.table}, p_ahead->'write'->'${part}') r
      ON CONFLICT (${t.key}) DO UPDATE SET (${cols.join(', ')}) = (${cols.map((c) => `EXCLUDED.${c}`).join(', ')});
  END IF;`;
  };
  return `
CREATE OR REPLACE FUNCTION ${s}.${appendRowsFunctionName(stamp)}(
  p_ids text[], p_streams text[], p_event_streams text[], p_offsets int[], p_pipelines text[], p_run_ids text[], p_types text[], p_recorded_at text[],
  p_before text[], p_between text[], p_after text[], p_check_streams text[], p_check_bases int[], p_ahead jsonb
) RETURNS json LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  head bigint;
  reply json;
  g bigint := (p_ahead->>'first')::bigint;
  shift bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(${lock}, 0));
  SELECT coalesce((SELECT h.position FROM ${s}.events h ORDER BY h.position DESC LIMIT 1), 0) INTO head;
  IF (SELECT value FROM ${s}.rm_meta WHERE key = 'position') IS DISTINCT FROM head::text
     OR (SELECT value FROM ${s}.rm_meta WHERE key = 'stamp') IS DISTINCT FROM p_ahead->>'stamp' THEN
    RETURN json_build_object('stale', 'position');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_ahead->'bases') b
      WHERE coalesce((SELECT max(e.stream_version) FROM ${s}.events e WHERE e.stream = b->>0), 0) <> (b->>1)::int) THEN
    RETURN json_build_object('stale', 'versions');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_ahead->'summaries') k LEFT JOIN ${s}.rm_pipelines p ON p.pipeline = k->>0
      WHERE (CASE WHEN p.pipeline IS NULL THEN NULL ELSE ${summaryHashSql('p')} END) IS DISTINCT FROM k->>1
         OR (k->>2 IS NOT NULL AND p.position IS DISTINCT FROM (k->>2)::bigint)) THEN
    RETURN json_build_object('stale', 'summaries');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_ahead->'dates') k LEFT JOIN ${s}.rm_dates d ON d.pipeline = k->>0 AND d.date = k->>1
      WHERE (CASE WHEN d.pipeline IS NULL THEN NULL ELSE ${rowHashSql('d')} END) IS DISTINCT FROM k->>2) THEN
    RETURN json_build_object('stale', 'dates');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_ahead->'runs') k
      LEFT JOIN LATERAL (SELECT r.* FROM ${s}.events e ${runOfEventJoin(s, 'e', 'r')} WHERE e.run_id = k->>1 AND e.pipeline = k->>0 ORDER BY e.position LIMIT 1) r ON true
      WHERE (CASE WHEN r.pipeline IS NULL THEN NULL ELSE ${rowHashSql('r')} END) IS DISTINCT FROM k->>2) THEN
    RETURN json_build_object('stale', 'runs');
  END IF;
  reply := ${s}.${APPEND_FUNCTION}(p_ids, p_streams, p_event_streams, p_offsets, p_pipelines, p_run_ids, p_types, p_recorded_at, p_before, p_between, p_after, p_check_streams, p_check_bases);
  IF reply->>'first' IS NULL THEN
    RETURN reply;
  END IF;
  shift := (reply->>'first')::bigint - g;
  ${upsert(tables.dates, 'dates')}
  ${upsert(tables.runs, 'runs')}
  ${upsert(tables.summaries, 'summaries')}
  UPDATE ${s}.rm_meta SET value = ((reply->>'first')::bigint + cardinality(p_ids) - 1)::text WHERE key = 'position';
  RETURN reply;
END
$fn$;
`;
}
