import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/postgres-event-store.js';
import type { Figure } from './report.js';

type Options = { dir: string; childScript: string; writers: number; appendsPerWriter: number; pgbenchSeconds: number; log: (line: string) => void };

function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.toString();
}

/**
 * Runs `count` writer processes; each connects, says `ready`, and waits for the go sent to all at once.
 * Resolves to appends per second over the span from the go to the last writer's end.
 */
async function writers(options: Options, url: string): Promise<number> {
  let readyCount = 0;
  let allReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (allReady = resolve));
  const procs = Array.from({ length: options.writers }, () => spawn(process.execPath, [options.childScript, 'pg-writer', url, String(options.appendsPerWriter)], { stdio: ['pipe', 'pipe', 'pipe'] }));
  const runs = procs.map((proc) => new Promise<{ startedAt: number; endedAt: number }>((resolve, reject) => {
    let out = '';
    let err = '';
    let said = false;
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!said && out.startsWith('ready\n')) {
        said = true;
        out = out.slice('ready\n'.length);
        if (++readyCount === options.writers) allReady();
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench: a PostgreSQL writer exited ${code}: ${err}`));
      else resolve(JSON.parse(out.split('\n')[0] ?? '{}') as { startedAt: number; endedAt: number });
    });
  }));
  // A writer that fails before it is ready rejects its run; the race keeps the bench from waiting forever.
  await Promise.race([ready, Promise.all(runs)]);
  const go = Date.now();
  for (const proc of procs) proc.stdin.end('go\n');
  const spans = await Promise.all(runs);
  const span = Math.max(...spans.map((s) => s.endedAt)) - go;
  return (options.writers * options.appendsPerWriter * 1000) / span;
}

function pgbench(options: Options, url: string, schema: string): number {
  const table = `${pg.escapeIdentifier(schema)}.pgb_events`;
  const payload = JSON.stringify({ type: 'RunHeartbeat', schemaVersion: 1, data: { pipeline: 'pg_bench', date: 'x', runId: 'R', leaseExpiresAt: '2026-11-05T01:00:00.000Z' }, eventId: 'E', stream: 's', recordedAt: '2026-11-05T00:00:00.000Z', metadata: { actor: 'bench', toolVersion: 'bench' }, position: 1, streamVersion: 1 }).replaceAll("'", "''");
  const script = join(options.dir, 'pgbench.sql');
  writeFileSync(
    script,
    `INSERT INTO ${table} (event_id, stream, stream_version, pipeline, run_id, type, recorded_at, payload, prev_hash, hash) VALUES (md5(random()::text || clock_timestamp()::text), md5(random()::text || clock_timestamp()::text), 1, 'pg_bench', 'R', 'RunHeartbeat', '2026-11-05T00:00:00.000Z', '${payload}', '${'x'.repeat(64)}', '${'y'.repeat(64)}');\n`,
  );
  const server = new URL(url);
  server.searchParams.delete('schema');
  const result = spawnSync('pgbench', ['-n', '-c', String(options.writers), '-j', '2', '-T', String(options.pgbenchSeconds), '-f', script, server.toString()], { encoding: 'utf8' });
  const tps = /tps = ([\d.]+)/.exec(result.stdout)?.[1];
  if (result.status !== 0 || tps === undefined) throw new Error(`bench: pgbench failed: ${result.stderr}`);
  return Number(tps);
}

/**
 * PostgreSQL with 8 writer processes, each appending single events durably,
 * beside `pgbench -c 8` running one-row INSERT transactions into a table of
 * the same shape on the same server. Needs BENCH_PG_URL (or
 * RUNLEDGER_TEST_PG_URL) and pgbench on the PATH; otherwise says why not.
 */
export async function benchPostgres(options: Options): Promise<{ figure: Figure; versions: Record<string, string> } | { missing: string; versions?: undefined }> {
  const url = process.env['BENCH_PG_URL'] ?? process.env['RUNLEDGER_TEST_PG_URL'];
  if (url === undefined) return { missing: 'PostgreSQL not measured: set BENCH_PG_URL=postgres://user@host:5432/db (a server the bench may create and drop a schema on).' };
  const hasPgbench = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  if (hasPgbench.status !== 0) return { missing: 'PostgreSQL not measured: pgbench is not on the PATH (install the PostgreSQL client tools).' };
  const schema = `rl_bench_${process.pid}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const serverVersion = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
    await client.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
    const s = pg.escapeIdentifier(schema);
    await client.query(`CREATE SEQUENCE ${s}.pgb_seq;
      CREATE TABLE ${s}.pgb_events (position bigint PRIMARY KEY DEFAULT nextval('${schema}.pgb_seq'), event_id text NOT NULL UNIQUE, stream text NOT NULL, stream_version integer NOT NULL,
        pipeline text NOT NULL, run_id text, type text NOT NULL, recorded_at text COLLATE "C" NOT NULL, payload text NOT NULL, prev_hash text NOT NULL, hash text NOT NULL, UNIQUE (stream, stream_version));
      CREATE INDEX ON ${s}.pgb_events (pipeline, position); CREATE INDEX ON ${s}.pgb_events (run_id) WHERE run_id IS NOT NULL; CREATE INDEX ON ${s}.pgb_events (recorded_at);`);
    const ledgerUrl = withSchema(url, schema);
    const store = await openPostgresStore({ url: ledgerUrl, create: true });
    if (process.env['BENCH_PG_READ_MODELS'] !== '0') await store.readModels?.ensure();
    await store.close();
    options.log(`PostgreSQL: ${options.writers} writer processes × ${options.appendsPerWriter} durable appends, then pgbench -c ${options.writers} for ${options.pgbenchSeconds} s`);
    const ours = await writers(options, ledgerUrl);
    const theirs = pgbench(options, url, schema);
    return {
      figure: {
        id: 'postgres-writers',
        name: `PostgreSQL, ${options.writers} concurrent writer processes, durable single-event appends`,
        value: ours,
        unit: 'appends/s',
        baseline: { name: `pgbench -c ${options.writers}: one-row INSERT transactions into a table of the same shape`, value: theirs, unit: 'tps' },
        ratio: ours / theirs,
        ratioMeaning: '× pgbench',
        target: '≥ 1,000 appends/s',
        met: ours >= 1000,
      },
      versions: { postgresql: serverVersion, pgbench: hasPgbench.stdout.trim() },
    };
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`).catch(() => undefined);
    await client.end();
  }
}
