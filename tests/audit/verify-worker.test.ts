import { join } from 'node:path';
import { BroadcastChannel, Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildFixture } from '../../bench/ledger-fixture.js';
import { WORKER_AFTER_BATCHES } from '../../src/audit/payload-checks.js';
import { VERIFY_BATCH_ROWS, verifyChain, type VerifyOptions } from '../../src/audit/verify-chain.js';
import type { SignatureChecker } from '../../src/store/event-signer.js';
import type { RawEvent, StoredColumns } from '../../src/store/event-store.js';
import { sha256Hex } from '../../src/store/seal-events.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { tempDir } from './cli-session.js';
import { sequentialVerify } from './sequential-verify.js';
import { propertyRuns } from '../support/property-runs.js';

// `verify` checks payloads in a worker thread, loaded from the compiled dist/ (`npm test` builds it first),
// while it reads and hashes; the in-process tests run from the TypeScript sources, where every check runs
// in this thread. Here both paths walk the same chains, intact and tampered every way, and must give the
// very report of the one-row-at-a-time walk `verify` did before (sequential-verify.ts).
const PROBE = new URL('./verify-worker-probe.mjs', import.meta.url);
const LIAR = new URL('./verify-worker-liar.mjs', import.meta.url);

/** Resolves when a worker started from PROBE or LIAR has loaded; `close` once the walk is over. */
function workerLoaded(name = 'verify-worker-loaded'): { loaded: Promise<void>; close(): void } {
  const channel = new BroadcastChannel(name);
  channel.unref();
  const loaded = new Promise<void>((resolve) => (channel.onmessage = () => resolve()));
  return { loaded, close: () => channel.close() };
}

/**
 * The rows in batches as `readRaw` gives them; the first batch after the worker started waits for `loaded`, so
 * it goes to the worker, and the batch after it for `answered` when given, so the worker's verdict is in by then.
 */
async function* batchesOf(rows: RawEvent[], loaded: Promise<void> | null, answered?: Promise<void>): AsyncGenerator<RawEvent[]> {
  for (let i = 0, n = 0; i < rows.length; i += VERIFY_BATCH_ROWS, n++) {
    if (n === WORKER_AFTER_BATCHES + 1 && loaded) await loaded;
    if (n === WORKER_AFTER_BATCHES + 2 && answered) await answered;
    yield rows.slice(i, i + VERIFY_BATCH_ROWS);
  }
}

/** The three reports on the same rows: the sequential walk's, the in-thread path's and the worker path's. */
async function reports(rows: RawEvent[], options: VerifyOptions): Promise<{ sequential: string; inThread: string; inWorker: string }> {
  const sequential = JSON.stringify(await sequentialVerify(batchesOf(rows, null), options));
  const inThread = JSON.stringify(await verifyChain(batchesOf(rows, null), { ...options, worker: null }));
  const probe = workerLoaded();
  try {
    const inWorker = JSON.stringify(await verifyChain(batchesOf(rows, probe.loaded), { ...options, worker: PROBE }));
    return { sequential, inThread, inWorker };
  } finally {
    probe.close();
  }
}

/** Each edit turns a payload into one that fails a different payload check (or none, for the columns to catch). */
const edits: Array<(payload: string, position: number) => string> = [
  (p) => p.slice(0, -1), // not JSON
  () => '[1]', // not an object
  (p, position) => p.replace(`"position":${position}`, `"position":${position + 1}`), // moved
  (p) => p.replace('"actor":"bench"', '"actor":""'), // metadata no valid event has
  (p) => p.replace('"type":"', '"type":"X'), // an unknown type
  (p) => p.replace('"schemaVersion":1', '"schemaVersion":9'), // a version newer than this runledger
  (p) => p.replace(/"pipeline":"[^"]*"/, '"pipeline":"elsewhere"'), // a valid event the stored columns disagree with
  (p) => p.replace('"eventId":"B', '"eventId":"C'), // the same, for event_id
];
const columnKeys: Array<keyof StoredColumns> = ['event_id', 'stream', 'stream_version', 'pipeline', 'run_id', 'type', 'recorded_at'];

/** A tampering of the row at `at` (modulo the rows): `n` picks the edit, the column or the byte. */
type Tampering = { kind: 'byte' | 'hash' | 'delete' | 'duplicate' | 'swap' | 'prevHash' | 'rehash' | 'rechain' | 'column' | 'blob'; at: number; n: number };

const tampering: fc.Arbitrary<Tampering> = fc.record({
  kind: fc.constantFrom<Tampering['kind']>('byte', 'hash', 'delete', 'duplicate', 'swap', 'prevHash', 'rehash', 'rechain', 'column', 'blob'),
  at: fc.nat(),
  n: fc.nat(),
});

/** The hashes of rows `from` on recomputed over their payloads, each prevHash the hash before it: a forger's chain. */
function rechain(rows: RawEvent[], from: number): void {
  for (let i = from; i < rows.length; i++) {
    const row = rows[i] as RawEvent;
    const prevHash = i === 0 ? row.prevHash : (rows[i - 1] as RawEvent).hash;
    rows[i] = { ...row, prevHash, hash: sha256Hex(prevHash + row.payload) };
  }
}

function tampered(pristine: RawEvent[], tamperings: Tampering[]): RawEvent[] {
  const rows = [...pristine];
  for (const t of tamperings) {
    const at = t.at % rows.length;
    const row = rows[at] as RawEvent;
    switch (t.kind) {
      case 'byte': {
        const offset = t.n % row.payload.length;
        rows[at] = { ...row, payload: `${row.payload.slice(0, offset)}${row.payload[offset] === '1' ? '2' : '1'}${row.payload.slice(offset + 1)}` };
        break;
      }
      case 'hash':
        rows[at] = { ...row, hash: sha256Hex(row.hash) };
        break;
      case 'delete':
        rows.splice(at, 1);
        break;
      case 'duplicate':
        rows.splice(at, 0, row);
        break;
      case 'swap':
        if (at + 1 < rows.length) [rows[at], rows[at + 1]] = [rows[at + 1] as RawEvent, row];
        break;
      case 'prevHash':
        rows[at] = { ...row, prevHash: 'f'.repeat(64) };
        break;
      case 'rehash':
      case 'rechain': {
        const payload = (edits[t.n % edits.length] as (typeof edits)[number])(row.payload, row.position);
        rows[at] = { ...row, payload, hash: sha256Hex(row.prevHash + payload) };
        if (t.kind === 'rechain') rechain(rows, at + 1);
        break;
      }
      case 'column':
      case 'blob': {
        const key = columnKeys[t.n % columnKeys.length] as keyof StoredColumns;
        const value = t.kind === 'blob' ? Buffer.from('x') : (['x', 99, null] as const)[t.n % 3];
        rows[at] = { ...row, columns: { ...(row.columns as StoredColumns), [key]: value } as StoredColumns };
        break;
      }
    }
  }
  return rows;
}

/** A signature check that fails the events whose hash starts with `prefix` (the rows carry no signatures). */
function checker(prefix: string): SignatureChecker {
  return { scheme: 'hmac-sha256', problem: (hash) => (hash.startsWith(prefix) ? 'its signature does not match its hash' : null) };
}

const options = fc.record({
  expectHead: fc.option(fc.record({ at: fc.nat(), right: fc.boolean() }), { nil: undefined }),
  signatures: fc.option(fc.record({ prefix: fc.constantFrom('0', '00', '000'), signedFrom: fc.nat() }), { nil: undefined }),
});

function optionsFor(rows: RawEvent[], chosen: { expectHead: { at: number; right: boolean } | undefined; signatures: { prefix: string; signedFrom: number } | undefined }): VerifyOptions {
  const { expectHead, signatures } = chosen;
  // A head inside the chain (its own hash or another), or one past its end.
  const head = expectHead && (expectHead.at % (rows.length + 2)) + 1;
  return {
    sha256: sha256Hex,
    ...(expectHead && head ? { expectHead: { position: head, hash: expectHead.right ? (rows[head - 1]?.hash ?? 'e'.repeat(64)) : 'e'.repeat(64) } } : {}),
    ...(signatures ? { signatures: checker(signatures.prefix), signedFrom: (signatures.signedFrom % rows.length) + 1 } : {}),
  };
}

describe('verify with its payload checks in a worker thread', () => {
  let rows: RawEvent[];

  beforeAll(async () => {
    // Ten batches: the first five are checked in this thread (the worker starts at the fifth), the rest in the worker.
    const store = openSqliteStore({ path: join(tempDir(), 'ledger.db'), create: true });
    await buildFixture(store, { pipelines: WORKER_AFTER_BATCHES + 6, dates: 1000, eventsPerPipeline: 1000 });
    rows = [];
    for await (const batch of store.readRaw({ batchSize: VERIFY_BATCH_ROWS })) rows.push(...batch);
    await store.close();
  }, 120_000);

  test('an intact chain gives the same report on every path', async () => {
    const { sequential, inThread, inWorker } = await reports(rows, { sha256: sha256Hex });
    expect(JSON.parse(sequential)).toMatchObject({ ok: true, events: rows.length, head: { position: rows.length } });
    expect(inThread).toBe(sequential);
    expect(inWorker).toBe(sequential);
  }, 60_000);

  test('the batches read once the worker has loaded are judged there', async () => {
    const liar = workerLoaded();
    const answer = workerLoaded('verify-worker-answered');
    try {
      const report = await verifyChain(batchesOf(rows, liar.loaded, answer.loaded), { sha256: sha256Hex, worker: LIAR });
      const first = (WORKER_AFTER_BATCHES + 1) * VERIFY_BATCH_ROWS;
      expect(report).toMatchObject({ ok: false, events: first, firstBadPosition: first + 1, problem: 'judged in the worker' });
    } finally {
      liar.close();
      answer.close();
    }
  }, 60_000);

  test('when no worker thread can be started then every batch is checked in this thread and the report is the same', async () => {
    // Node refuses a worker module that is not a file synchronously, as it refuses any worker under --permission.
    const unstartable = new URL('http://127.0.0.1/verify-worker.js');
    expect(() => new Worker(unstartable)).toThrow();
    const sequential = JSON.stringify(await sequentialVerify(batchesOf(rows, null), { sha256: sha256Hex }));
    expect(JSON.stringify(await verifyChain(batchesOf(rows, null), { sha256: sha256Hex, worker: unstartable }))).toBe(sequential);
  }, 60_000);

  test('every kind of tampering, alone or with others, gives the same report in the worker as one row at a time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tampering, { minLength: 1, maxLength: 3 }), options, async (tamperings, chosen) => {
        const chain = tampered(rows, tamperings);
        const { sequential, inThread, inWorker } = await reports(chain, optionsFor(chain, chosen));
        expect(inThread).toBe(sequential);
        expect(inWorker).toBe(sequential);
      }),
      propertyRuns(20),
    );
  }, 300_000);

  test('the in-thread path gives the same report as one row at a time, over many more tamperings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tampering, { minLength: 1, maxLength: 3 }), options, async (tamperings, chosen) => {
        const chain = tampered(rows, tamperings);
        const opts = optionsFor(chain, chosen);
        expect(JSON.stringify(await verifyChain(batchesOf(chain, null), { ...opts, worker: null }))).toBe(JSON.stringify(await sequentialVerify(batchesOf(chain, null), opts)));
      }),
      propertyRuns(100),
    );
  }, 300_000);

  test('verify finds its compiled worker beside its compiled module', async () => {
    const compiled = (await import(new URL('../../dist/src/audit/compiled-worker.js', import.meta.url).href)) as { compiledWorker(file: string): URL | null };
    expect(compiled.compiledWorker('verify-worker.js')?.href).toBe(new URL('../../dist/src/audit/verify-worker.js', import.meta.url).href);
  });
});
