/**
 * One measured task in a process of its own, so its peak RSS is its own and no
 * heap left by another task slows it: `node dist/bench/child.js <task> <args…>`
 * prints `{"ms":…,"maxRssMb":…}`.
 */
import { closeSync, copyFileSync, existsSync, openSync, rmSync, writeSync } from 'node:fs';
import { exportLedger } from '../src/audit/export-ledger.js';
import { importExportFile } from '../src/audit/import-ledger.js';
import { verifyLedger } from '../src/audit/verify-ledger.js';
import { rebuildCheckpoints } from '../src/ledger/projection-checkpoint.js';
import type { NewEvent, RawEvent } from '../src/store/event-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-event-store.js';
import { appendEvents } from './append-events.js';
import { loadEmmett } from './peer-emmett.js';
import { rawExport, rawInsertAll, rawRebuild, rawScan, rawVerify, readFullRows, readReadModelRows } from './raw-baselines.js';

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function timed(body: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await body();
  return ms(t);
}

async function run(task: string, args: string[]): Promise<number> {
  const [a = '', b = ''] = args;
  switch (task) {
    case 'rebuild': {
      // What `runledger rebuild` does: the read models dropped, every pipeline refolded and its rows written, one transaction.
      const store = openSqliteStore({ path: a, create: false });
      const models = store.readModels;
      if (models === undefined) throw new Error('bench: the ledger keeps no read models');
      const took = await timed(() => models.rebuild());
      await store.close();
      return took;
    }
    case 'rebuild-checkpoints': {
      const store = openSqliteStore({ path: a, create: false });
      const took = await timed(() => rebuildCheckpoints(store));
      await store.close();
      return took;
    }
    case 'raw-scan':
      return rawScan(a);
    case 'raw-rebuild': {
      // The rows the rebuild wrote, and a copy of the ledger to rebuild them in, made before the clock starts.
      const tables = readReadModelRows(a, ['rm_pipelines', 'rm_dates', 'rm_runs']);
      const remove = () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${b}${suffix}`, { force: true });
      };
      remove();
      try {
        copyFileSync(a, b);
        if (existsSync(`${a}-wal`)) copyFileSync(`${a}-wal`, `${b}-wal`);
        return rawRebuild(b, tables);
      } finally {
        remove();
      }
    }
    case 'verify': {
      // What `runledger verify` runs: the chain walk (payloads checked in its worker thread), then runledger_meta.
      const store = openSqliteStore({ path: a, create: false });
      let ok = false;
      const took = await timed(async () => {
        ok = (await verifyLedger(store, {})).ok;
      });
      await store.close();
      if (!ok) throw new Error('bench: verify failed');
      return took;
    }
    case 'raw-verify':
      return rawVerify(a);
    case 'export': {
      const store = openSqliteStore({ path: a, create: false });
      const fd = openSync(b, 'w');
      const took = await timed(async () => {
        for await (const chunk of exportLedger(store, { exportedAt: '2026-11-05T00:00:00.000Z', toolVersion: 'bench' })) writeSync(fd, chunk);
      });
      closeSync(fd);
      await store.close();
      return took;
    }
    case 'raw-export':
      return rawExport(a, b);
    case 'import': {
      // What `runledger import <file>` does, from an export file: every line read, parsed, hashed,
      // validated and inserted in one transaction (checkpoints are rebuilt after; see 'rebuild-checkpoints').
      const store = openSqliteStore({ path: b, create: true });
      const took = await timed(() => importExportFile(store, a));
      await store.close();
      return took;
    }
    case 'import-rows': {
      // The store's bulk insert alone, rows already in memory: the chain re-hashed and every event validated.
      const rows: RawEvent[] = readFullRows(a).map((r) => ({ position: r.position, payload: r.payload, prevHash: r.prev_hash, hash: r.hash }));
      const store = openSqliteStore({ path: b, create: true });
      const took = await timed(() => store.importSealed(rows));
      await store.close();
      return took;
    }
    case 'raw-import':
      return rawInsertAll(b, readFullRows(a));
    case 'pg-writer': {
      // One of the concurrent PostgreSQL writers: `count` durable single-event appends, each its own transaction.
      const { openPostgresStore } = await import('../src/store/postgres/postgres-event-store.js');
      const store = await openPostgresStore({ url: a, create: false, maxConnections: 1 });
      const count = Number(b);
      const writer = process.pid;
      // Connected and ready, the writer waits for the parent's go, so all writers append together (pgbench
      // likewise connects every client before it starts its clock): process start-up skew is not in the span.
      process.stdout.write('ready\n');
      await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
      process.stdin.pause();
      const t = process.hrtime.bigint();
      const startedAt = Date.now();
      for (let i = 0; i < count; i++) {
        const stream = `pg_bench/${writer}-${i}`;
        const event = {
          type: 'RunHeartbeat',
          schemaVersion: 1,
          data: { pipeline: 'pg_bench', date: `${writer}-${i}`, runId: `R${writer}-${i}`, leaseExpiresAt: '2026-11-05T01:00:00.000Z' },
          eventId: `P${writer}-${i}-${startedAt}`,
          stream,
          recordedAt: new Date().toISOString(),
          metadata: { actor: 'bench', toolVersion: 'bench' },
        } as NewEvent;
        const result = await store.append([{ stream, expectedVersion: 0, events: [event] }]);
        if (!result.ok) throw new Error('bench: unexpected conflict');
      }
      const took = ms(t);
      await store.close();
      process.stdout.write(`${JSON.stringify({ startedAt, endedAt: Date.now() })}\n`);
      return took;
    }
    case 'emmett': {
      // The peer, with its documented defaults: one appendToStream per event, then each stream read back.
      const peer = await loadEmmett();
      if ('missing' in peer) throw new Error(peer.missing);
      const store = peer.open(a);
      const events = appendEvents(Number(b), Number(args[2]));
      // Its default connection-per-operation issues `PRAGMA journal_mode = WAL` without waiting for it, so on
      // a loaded machine that statement can still be running when the append's COMMIT comes, which then fails
      // with SQLITE_BUSY ("SQL statements in progress") and is rolled back. Such an append is tried again,
      // and the time of the failed try stays in its figure; the retries are counted and reported.
      let retries = 0;
      const append = async (event: NewEvent): Promise<void> => {
        for (let attempt = 1; ; attempt++) {
          try {
            await store.appendToStream(`run-${event.stream}`, [{ type: event.type, data: event.data as Record<string, unknown> }]);
            return;
          } catch (error) {
            if (attempt >= 10 || !String((error as { code?: unknown }).code ?? (error as Error).message).includes('SQLITE_BUSY')) throw error;
            retries += 1;
          }
        }
      };
      const took = await timed(async () => {
        for (const event of events) await append(event);
      });
      const readMs = await timed(async () => {
        for (const event of events) if ((await store.readStream(`run-${event.stream}`)).events.length !== 1) throw new Error('bench: peer read');
      });
      process.stdout.write(`${JSON.stringify({ ms: took, readMs, retries })}\n`);
      return took;
    }
    case 'emmett-runs': {
      // The library figure's peer: per run, a start and a success appended to the run's own stream through
      // Emmett's appendToStream on one shared connection, date after date, after a warm-up on other streams.
      const peer = await loadEmmett();
      if ('missing' in peer) throw new Error(peer.missing);
      const store = await peer.openShared(a);
      const first = Number(b);
      const count = Number(args[2]);
      const runs = async (from: number, to: number, prefix: string) => {
        for (let i = from; i < to; i++) {
          const stream = `run-${prefix}library/d${i}`;
          await store.appendToStream(stream, [{ type: 'RunStarted', data: { pipeline: 'library', date: `d${i}`, runId: `R${i}`, attempt: 1, startedAt: '2026-11-05T00:00:00.000Z' } }]);
          await store.appendToStream(stream, [{ type: 'RunSucceeded', data: { pipeline: 'library', date: `d${i}`, runId: `R${i}`, finishedAt: '2026-11-05T00:00:01.000Z', metrics: { rows: i } } }]);
        }
      };
      await runs(0, 20, 'warm-');
      const took = await timed(() => runs(first, first + count, ''));
      const durability = await store.durability();
      store.close();
      process.stdout.write(`${JSON.stringify({ ms: took, durability })}\n`);
      return took;
    }
    default:
      throw new Error(`bench child: unknown task ${task}`);
  }
}

const [task = '', ...args] = process.argv.slice(2);
const took = await run(task, args);
process.stdout.write(`${JSON.stringify({ ms: took, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
