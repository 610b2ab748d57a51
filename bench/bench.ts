/**
 * `npm run bench`: runledger against baselines measured in the same process
 * run, reported as ratios (DESIGN §7). Nothing here asserts a threshold; it
 * reports what it saw. Sizes: BENCH_APPENDS (default 2000), BENCH_EVENTS
 * (default 200000; 1000000 for the full-size ledger).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LedgerEvent } from '../events/ledger-event.js';
import { runStream } from '../events/recorded-event.js';
import { Ledger } from '../src/ledger/ledger.js';
import type { NewEvent } from '../src/store/event-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-event-store.js';
import { SQLITE_SCHEMA } from '../src/store/sqlite/sqlite-schema.js';

const APPENDS = Number(process.env['BENCH_APPENDS'] ?? 2000);
const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), 'runledger-bench-'));
const meta = { actor: 'bench', toolVersion: 'bench' };
const P = 'bench';
const NOW = Date.parse('2026-11-05T00:00:00Z');

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function day(i: number): string {
  return new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
}

const definition: LedgerEvent = {
  type: 'PipelineDefined',
  schemaVersion: 1,
  data: { pipeline: P, schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2000-01-01T00:00:00+00:00', end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 },
};

/** The events of one date: a run, heartbeats, success, a clear, and a second attempt. `n` events in all. */
function dateEvents(i: number, n: number): LedgerEvent[] {
  const date = day(i);
  const start = `${date}T00:00:00+00:00`;
  const end = `${day(i + 1)}T00:00:00+00:00`;
  const ref = { pipeline: P, date };
  const out: LedgerEvent[] = [];
  let attempt = 0;
  while (out.length < n) {
    attempt += 1;
    const runId = `R${i}-${attempt}`;
    out.push({ type: 'RunStarted', schemaVersion: 1, data: { ...ref, runId, attempt, runType: 'backfill', logicalDate: start, dataInterval: { start, end }, runAfter: end, leaseExpiresAt: '2026-11-05T01:00:00.000Z', force: attempt > 1, offSchedule: false, takeoverOf: null } });
    for (let h = 0; h < 6 && out.length < n - 2; h++) out.push({ type: 'RunHeartbeat', schemaVersion: 1, data: { ...ref, runId, leaseExpiresAt: '2026-11-05T01:00:00.000Z' } });
    out.push({ type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, runId, metrics: { rows: 1000 + i, rejected: i % 7, revenue: 843000 }, outputs: [`gold/${date}.csv`] } });
    if (out.length < n) out.push({ type: 'RunCleared', schemaVersion: 1, data: { ...ref, runId, previousStatus: 'success' } });
  }
  return out.slice(0, n);
}

function asNew(event: LedgerEvent, k: number): NewEvent {
  const data = event.data as { pipeline: string; date?: string };
  const stream = data.date === undefined ? data.pipeline : runStream(data.pipeline, data.date);
  return { ...event, eventId: `B${String(k).padStart(25, '0')}`, stream, recordedAt: '2026-11-05T00:00:00.000Z', metadata: meta } as NewEvent;
}

/** Raw better-sqlite3: the same table, pragmas and one transaction per row: the physical limit here. */
function rawAppends(path: string, payloads: string[]): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SQLITE_SCHEMA);
  const insert = db.prepare(
    'INSERT INTO events (position, event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const one = db.transaction((i: number, payload: string) => insert.run(i + 1, `E${i}`, `${P}/${day(i)}`, 1, P, `R${i}`, 'RunStarted', '2026-11-05T00:00:00.000Z', payload, 'x'.repeat(64), 'y'.repeat(64)));
  const t = process.hrtime.bigint();
  payloads.forEach((payload, i) => one.immediate(i, payload));
  const took = ms(t);
  db.close();
  return took;
}

async function ledgerAppends(path: string, events: NewEvent[]): Promise<number> {
  const store = openSqliteStore({ path, create: true });
  const t = process.hrtime.bigint();
  for (const event of events) {
    const result = await store.append([{ stream: event.stream, expectedVersion: 0, events: [event] }]);
    if (!result.ok) throw new Error('bench: unexpected conflict');
  }
  const took = ms(t);
  await store.close();
  return took;
}

async function buildLedger(path: string, total: number): Promise<void> {
  const store = openSqliteStore({ path, create: true });
  await store.append([{ stream: P, expectedVersion: 0, events: [asNew(definition, 0)] }]);
  const perDate = 22;
  let k = 1;
  for (let i = 0; k < total; i++) {
    const events = dateEvents(i, Math.min(perDate, total - k)).map((e) => asNew(e, k++));
    await store.append([{ stream: events[0]?.stream ?? '', expectedVersion: 'any', events }]);
  }
  await store.close();
}

function rawScan(path: string): number {
  const db = new Database(path, { readonly: true });
  const t = process.hrtime.bigint();
  let n = 0;
  for (const row of db.prepare('SELECT payload FROM events WHERE pipeline = ? ORDER BY position').iterate(P) as Iterable<{ payload: string }>) {
    n += (JSON.parse(row.payload) as { position: number }).position > 0 ? 1 : 0;
  }
  const took = ms(t);
  db.close();
  if (n === 0) throw new Error('bench: empty scan');
  return took;
}

async function timed<T>(body: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const value = await body();
  return [ms(t), value];
}

function row(name: string, value: string, baseline: string, ratio: string): string {
  return `| ${name} | ${value} | ${baseline} | ${ratio} |`;
}

async function main(): Promise<void> {
  console.log(`runledger bench: ${APPENDS} durable appends, a ${EVENTS.toLocaleString('en')}-event ledger (temp dir ${dir})\n`);
  const events = Array.from({ length: APPENDS }, (_, i) => asNew((dateEvents(i, 1)[0] as LedgerEvent), i + 1));
  const payloads = events.map((e) => JSON.stringify({ ...e, position: 1 }));
  // Warm both paths once so JIT and file creation costs do not land on either side.
  rawAppends(join(dir, 'warm-raw.db'), payloads.slice(0, 50));
  await ledgerAppends(join(dir, 'warm-ledger.db'), events.slice(0, 50));
  // Interleaved rounds: fsync cost drifts over a run, and measuring one side after the other would charge the drift to one side.
  const ROUNDS = 16;
  const per = Math.ceil(APPENDS / ROUNDS);
  let raw = 0;
  let ours = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const slice = [r * per, Math.min(APPENDS, (r + 1) * per)] as const;
    const first = r % 2 === 0;
    if (first) raw += rawAppends(join(dir, `raw-${r}.db`), payloads.slice(...slice));
    ours += await ledgerAppends(join(dir, `ledger-${r}.db`), events.slice(...slice));
    if (!first) raw += rawAppends(join(dir, `raw-${r}.db`), payloads.slice(...slice));
  }

  const big = join(dir, 'big.db');
  const [buildMs] = await timed(() => buildLedger(big, EVENTS));
  rawScan(big);
  const scan = rawScan(big);
  const clock = () => NOW;
  const [coldState, state] = await timed(async () => {
    const ledger = new Ledger(openSqliteStore({ path: big, create: false }), clock, 'bench');
    const view = await ledger.state({ pipeline: P, from: '2026-01-01', to: '2026-01-31' });
    await ledger.close();
    return view;
  });
  const warm = new Ledger(openSqliteStore({ path: big, create: false }), clock, 'bench');
  await warm.state({ pipeline: P });
  const [warmState] = await timed(() => warm.state({ pipeline: P, from: '2026-01-01', to: '2026-01-31' }));
  const [warmPending] = await timed(() => warm.pending({ pipeline: P }));
  await warm.close();

  console.log('| measure | runledger | baseline | ratio |');
  console.log('|---|---|---|---|');
  console.log(row(`durable appends (${APPENDS}, one per transaction)`, `${(ours / APPENDS).toFixed(3)} ms/append`, `raw better-sqlite3 insert: ${(raw / APPENDS).toFixed(3)} ms`, `${(ours / raw).toFixed(2)}× the raw time`));
  console.log(row(`full rebuild, cold (${EVENTS.toLocaleString('en')} events → state)`, `${coldState.toFixed(0)} ms`, `raw scan + JSON.parse: ${scan.toFixed(0)} ms`, `${(scan / coldState).toFixed(2)}× raw speed`));
  console.log(row('state, warm ledger (incremental)', `${warmState.toFixed(2)} ms`, '-', '-'));
  console.log(row('pending, warm ledger (incremental)', `${warmPending.toFixed(2)} ms`, '-', '-'));
  console.log(`\nbuilding the ${EVENTS.toLocaleString('en')}-event ledger took ${(buildMs / 1000).toFixed(1)} s; state covered ${state.dates.length} dates.`);
  console.log('Not measured here: a peer event store (Emmett\'s SQLite store is not installed on this machine).');
  console.log('A cold `state` re-folds the whole pipeline; a persisted projection checkpoint would make it independent of history length.');
  if (process.env['BENCH_KEEP']) console.log(`kept ${big} (BENCH_KEEP)`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();
