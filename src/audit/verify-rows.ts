import type { RawEvent } from '../store/event-store.js';
import { storedColumnsAt } from './worker-protocol.js';

/**
 * `verify`'s batches as posted to its worker: per row its position, payload and the stored columns
 * event_id, stream, stream_version, pipeline, run_id, type, recorded_at (`undefined` in their place when
 * the row has none, which no database value is); flat, since cloning one array is cheaper than cloning an
 * object per row. `links`, only when the worker is to check the hashes too: per row prevHash and hash.
 */
export type VerifyRows = { values: unknown[]; links: string[] | null };

const ROW_VALUES = 9;

/**
 * The batch in the form of `VerifyRows`, or null when a value would not reach the worker as it is (a BLOB,
 * which better-sqlite3 reads as a Buffer and a worker receives as a plain Uint8Array): such a batch is
 * checked in this thread, so a row edited into a BLOB is reported with the same words.
 *
 * @example
 * worker.postMessage(verifyRows(batch, false));
 */
export function verifyRows(rows: readonly RawEvent[], withLinks: boolean): VerifyRows | null {
  const values: unknown[] = [];
  for (const row of rows) {
    const c = row.columns;
    values.push(row.position, row.payload);
    if (c) values.push(c.event_id, c.stream, c.stream_version, c.pipeline, c.run_id, c.type, c.recorded_at);
    else values.push(undefined, undefined, undefined, undefined, undefined, undefined, undefined);
  }
  for (const value of values) if (typeof value === 'object' && value !== null) return null;
  if (!withLinks) return { values, links: null };
  const links: string[] = [];
  for (const row of rows) {
    if (typeof row.prevHash !== 'string' || typeof row.hash !== 'string') return null;
    links.push(row.prevHash, row.hash);
  }
  return { values, links };
}

/**
 * The rows of a `VerifyRows` batch, as `readRaw` gave them (without their signatures, which the worker
 * does not check; and with empty hashes when it does not check those either).
 *
 * @example
 * firstPayloadProblem(rowsOfVerifyRows(message), check, sha256Hex)
 */
export function rowsOfVerifyRows({ values: v, links }: VerifyRows): RawEvent[] {
  const rows: RawEvent[] = new Array(v.length / ROW_VALUES);
  for (let i = 0, r = 0; i < v.length; i += ROW_VALUES, r++) {
    const row: RawEvent = { position: v[i] as number, payload: v[i + 1] as string, prevHash: links ? (links[2 * r] as string) : '', hash: links ? (links[2 * r + 1] as string) : '' };
    if (v[i + 2] !== undefined) {
      row.columns = storedColumnsAt(v, i + 2);
    }
    rows[r] = row;
  }
  return rows;
}
