import pg from 'pg';
import { canonicalJsonWithHoles } from '../../../events/canonical-json.js';
import type { AppendRequest, ExpectedVersion, NewEvent } from '../event-store.js';
import { appendChannel } from './postgres-consumers.js';
import { appendLockName, quoteIdent } from './postgres-schema.js';

/**
 * The name of the server-side append function, with its version: a release
 * that changes what it does gives it a new name, so an older process never
 * calls a body it does not expect.
 */
export const APPEND_FUNCTION = 'runledger_append_v1';

const PARAMS = 'text[], text[], text[], int[], text[], text[], text[], text[], text[], text[], text[], text[], int[]';

/** The function's full signature, for `to_regprocedure` and DROP. */
export function appendFunctionSignature(schema: string): string {
  return `${quoteIdent(schema)}.${APPEND_FUNCTION}(${PARAMS})`;
}

/**
 * The call of the append function with its arguments written in as literals, for a query string that
 * sends more than one statement (which takes no parameters).
 */
export function appendFunctionCallSql(schema: string, args: unknown[]): string {
  const types = PARAMS.split(', ');
  const values = args.map((arg, i) => {
    const type = types[i] as string;
    const items = (arg as unknown[]).map((item) => {
      if (item === null) return 'NULL';
      if (typeof item === 'number' && Number.isInteger(item)) return String(item);
      if (typeof item === 'string') return pg.escapeLiteral(item);
      throw new TypeError(`append function argument ${i + 1} holds ${typeof item}, not an integer or a string; this is a bug`);
    });
    return `ARRAY[${items.join(', ')}]::${type}`;
  });
  return `SELECT ${quoteIdent(schema)}.${APPEND_FUNCTION}(${values.join(', ')}) AS r`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The append as one server-side call, so an append is one round trip and
 * the ledger-wide lock is held only while the server works and commits,
 * never across a client's round trips. It does what the client-side append
 * does, in the same order: take the append lock, return the stored rows when
 * the event ids are already there (an idempotent retry), check expected
 * stream versions, read the head, then build each payload from the text the
 * client canonicalised around the two numbers only the server knows
 * (position, stream version), hash it onto the chain with the same formula
 * (`sha256(prevHash ‖ payload)` over UTF-8, hex), insert, and NOTIFY.
 * Each statement of a plpgsql function takes a fresh snapshot under READ
 * COMMITTED, so the head read after the lock sees every append that
 * committed before the lock was granted.
 */
export function appendFunctionSql(schema: string): string {
  const s = quoteIdent(schema);
  const events = `${s}.events`;
  return `
CREATE OR REPLACE FUNCTION ${s}.${APPEND_FUNCTION}(
  p_ids text[], p_streams text[], p_event_streams text[], p_offsets int[], p_pipelines text[], p_run_ids text[], p_types text[], p_recorded_at text[],
  p_before text[], p_between text[], p_after text[], p_check_streams text[], p_check_bases int[]
) RETURNS json LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  found_count int;
  found_rows json;
  names text[];
  bases int[];
  base int;
  pos bigint;
  prev text;
  v int;
  payload text;
  positions bigint[] := '{}';
  versions int[] := '{}';
  payloads text[] := '{}';
  prevs text[] := '{}';
  hashes text[] := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(${literal(appendLockName(schema))}, 0));
  SELECT count(*)::int, coalesce(json_agg(json_build_array(e.event_id, e.position::text, e.payload, e.prev_hash, e.hash)), '[]')
    INTO found_count, found_rows FROM ${events} e WHERE e.event_id = ANY(p_ids);
  IF found_count > 0 THEN
    RETURN json_build_object('stored', found_rows, 'head', (SELECT json_build_array(h.position::text, h.hash) FROM ${events} h ORDER BY h.position DESC LIMIT 1));
  END IF;
  SELECT coalesce(array_agg(s.stream), '{}'), coalesce(array_agg(coalesce((SELECT max(e.stream_version) FROM ${events} e WHERE e.stream = s.stream), 0)), '{}')
    INTO names, bases FROM (SELECT DISTINCT unnest(p_streams || p_check_streams) AS stream) s;
  FOR i IN 1 .. coalesce(cardinality(p_check_streams), 0) LOOP
    base := bases[array_position(names, p_check_streams[i])];
    IF base <> p_check_bases[i] THEN
      RETURN json_build_object('conflict', i, 'base', base);
    END IF;
  END LOOP;
  SELECT h.position, h.hash INTO pos, prev FROM ${events} h ORDER BY h.position DESC LIMIT 1;
  IF NOT FOUND THEN
    pos := 0;
    prev := repeat('0', 64);
  END IF;
  IF n = 0 THEN
    RETURN json_build_object('head', json_build_array(pos::text, prev));
  END IF;
  FOR i IN 1 .. n LOOP
    pos := pos + 1;
    v := bases[array_position(names, p_streams[i])] + p_offsets[i];
    payload := p_before[i] || pos::text || p_between[i] || v::text || p_after[i];
    prevs := prevs || prev;
    prev := encode(sha256(convert_to(prev || payload, 'UTF8')), 'hex');
    positions := positions || pos;
    versions := versions || v;
    payloads := payloads || payload;
    hashes := hashes || prev;
  END LOOP;
  INSERT INTO ${events} (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash)
    SELECT * FROM unnest(positions, p_ids, p_event_streams, versions, p_pipelines, p_run_ids, p_types, p_recorded_at, payloads, prevs, hashes);
  -- Delivered at COMMIT, and never for an append that rolls back.
  PERFORM pg_notify(${literal(appendChannel(schema))}, pos::text);
  RETURN json_build_object('first', positions[1]::text, 'prevs', prevs, 'hashes', hashes, 'versions', versions);
END
$fn$;
`;
}

/** What the function answered, as `pg` parses its json. */
export type AppendFunctionReply =
  | { stored: Array<[eventId: string, position: string, payload: string, prevHash: string, hash: string]>; head: [string, string] | null }
  | { conflict: number; base: number }
  | { head: [string, string] }
  | { first: string; prevs: string[]; hashes: string[]; versions: number[] };

/** The hashed fields of a new event without its position and stream version: what the client canonicalises. */
function templateOf(event: NewEvent): string[] {
  const { eventId, stream, type, schemaVersion, recordedAt, data, metadata } = event;
  return canonicalJsonWithHoles({ eventId, stream, type, schemaVersion, recordedAt, data, metadata }, ['position', 'streamVersion']);
}

/** One expected-version check: the stream must stand at `base` before this append (`expected` minus the events earlier requests add to it). */
export type VersionCheck = { request: AppendRequest; expected: ExpectedVersion; earlier: number };

/**
 * The function's arguments for an append: one entry per event (the request's
 * stream, whose version it continues, the event's own stream, its stream
 * version as an offset from that stream's version before the append), and
 * one check per request that expects a version.
 */
export function appendFunctionArgs(requests: AppendRequest[]): { args: unknown[]; checks: VersionCheck[] } {
  const all = requests.flatMap((r) => r.events);
  const added = new Map<string, number>();
  const offsets: number[] = [];
  const checks: VersionCheck[] = [];
  for (const request of requests) {
    const earlier = added.get(request.stream) ?? 0;
    if (request.expectedVersion !== 'any') checks.push({ request, expected: request.expectedVersion, earlier });
    request.events.forEach((_, i) => offsets.push(earlier + i + 1));
    added.set(request.stream, earlier + request.events.length);
  }
  const templates = all.map(templateOf);
  const args = [
    all.map((e) => e.eventId),
    requests.flatMap((r) => r.events.map(() => r.stream)),
    all.map((e) => e.stream),
    offsets,
    all.map((e) => e.data.pipeline),
    all.map((e) => ('runId' in e.data ? e.data.runId : null)),
    all.map((e) => e.type),
    all.map((e) => e.recordedAt),
    templates.map((t) => t[0]),
    templates.map((t) => t[1]),
    templates.map((t) => t[2]),
    checks.map((c) => c.request.stream),
    checks.map((c) => (c.expected as number) - c.earlier),
  ];
  return { args, checks };
}
