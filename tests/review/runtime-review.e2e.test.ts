// Review of the runtime: the backfill runner with real processes, the PostgreSQL adapter, and audit (verify).
// Each test here failed before the fix it names. Runs the built binary (`npm run build` first).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { BIN, cli, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-05T01:00:00+07:00';

type Run = { code: number; stdout: string; stderr: string };

/** The binary with node flags in front and stderr optionally thrown away (a command may write a lot of it). */
function runBin(nodeArgs: string[], args: string[], options: { cwd: string; keepStderr?: boolean; closeStdoutAfterFirstChunk?: boolean }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, RUNLEDGER_ACTOR: 'tester', RUNLEDGER_NOW: NOW },
      stdio: ['ignore', 'pipe', options.keepStderr === false ? 'ignore' : 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const out = child.stdout as NonNullable<typeof child.stdout>;
    out.on('data', (d: Buffer) => {
      stdout += d.toString();
      // A reader that goes away early, like `runledger backfill … | head -1`.
      if (options.closeStdoutAfterFirstChunk) out.destroy();
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr }));
  });
}

function defineDaily(dir: string): string {
  const db = join(dir, 'ledger.db');
  const r = cli(['--db', db, '--now', NOW, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta']);
  expect(r.code, r.stderr).toBe(0);
  return db;
}

type DateState = { date: string; status: string; errorCode: string | null; metrics: unknown };
function statesOf(db: string): DateState[] {
  const r = cli(['--db', db, '--now', NOW, 'state', 'etl', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { dates: DateState[] }).dates;
}

describe('runner: command output', () => {
  test('when a command writes 100 MB of stderr with no newline then the runner keeps only its tail, in a 64 MB heap', async () => {
    const dir = tempDir();
    const db = defineDaily(dir);
    // Like a progress bar redrawn with \r for a long time, then an error.
    writeFileSync(
      join(dir, 'noisy.mjs'),
      `import { writeSync } from 'node:fs';
const chunk = 'y'.repeat(1 << 20);
for (let i = 0; i < 100; i++) writeSync(2, chunk);
writeSync(2, '\\rdisk full at the END');
process.exit(1);
`,
    );
    const r = await runBin(['--max-old-space-size=64'], ['--db', db, 'backfill', 'etl', '--from', '2026-11-02', '--to', '2026-11-02', '--json', '--', process.execPath, 'noisy.mjs'], {
      cwd: dir,
      keepStderr: false,
    });
    expect(r.code).toBe(6);
    const run = (JSON.parse(r.stdout) as { runs: Array<{ status: string; code: string; error: string }> }).runs[0];
    expect(run).toMatchObject({ status: 'failed', code: 'exit:1' });
    expect(run?.error).toMatch(/disk full at the END$/);
    expect(run?.error.length).toBeLessThan(5000);
    expect(statesOf(db).find((d) => d.date === '2026-11-02')?.status).toBe('failed');
  });

  test('when the reader of the runner\'s stdout goes away mid-backfill then every date is still recorded and none is left running', async () => {
    const dir = tempDir();
    const db = defineDaily(dir);
    const r = await runBin([], ['--db', db, 'backfill', 'etl', '--from', '2026-11-02', '--to', '2026-11-04', '--', 'sh', '-c', 'seq 1 20000; sleep 0.3'], {
      cwd: dir,
      closeStdoutAfterFirstChunk: true,
    });
    const states = statesOf(db).filter((d) => d.date >= '2026-11-02');
    expect(states.filter((d) => d.status === 'running')).toEqual([]);
    expect(states.map((d) => `${d.date} ${d.status}`)).toEqual(['2026-11-02 success', '2026-11-03 success', '2026-11-04 success']);
    expect(r.code).toBe(0);
  });
});

describe('runner: metrics JSON cannot hold', () => {
  test('when $RUNLEDGER_METRICS holds 1e999 (Infinity) then the run fails with invalidMetrics instead of crashing the runner', () => {
    const dir = tempDir();
    const db = defineDaily(dir);
    const r = cli(['--db', db, '--now', NOW, 'backfill', 'etl', '--from', '2026-11-02', '--to', '2026-11-03', '--continue-on-failure', '--json', '--', 'sh', '-c', 'printf \'{"rows":1e999}\' > "$RUNLEDGER_METRICS"']);
    expect(r.code, r.stderr).toBe(6);
    const summary = JSON.parse(r.stdout) as { runs: Array<{ date: string; status: string; code: string; error: string }> };
    expect(summary.runs.map((x) => `${x.date} ${x.status} ${x.code}`)).toEqual(['2026-11-02 failed invalidMetrics', '2026-11-03 failed invalidMetrics']);
    expect(summary.runs[0]?.error).toContain('rows');
    const states = statesOf(db).filter((d) => d.date >= '2026-11-02' && d.date <= '2026-11-03');
    expect(states.map((d) => `${d.status} ${d.errorCode}`)).toEqual(['failed invalidMetrics', 'failed invalidMetrics']);
  });

  describe('library', () => {
    const open: Ledger[] = [];
    afterEach(async () => {
      for (const ledger of open.splice(0)) await ledger.close();
    });

    test('when the run function returns NaN metrics then the run fails with invalidMetrics and the backfill goes on', async () => {
      const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => Date.parse(NOW), actor: 'tester' });
      open.push(ledger);
      await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
      const summary = await ledger.backfill({ pipeline: 'etl', from: '2026-11-02', to: '2026-11-03', continueOnFailure: true }, (run) =>
        run.date === '2026-11-02' ? { ratio: Number.NaN } : { rows: 1 },
      );
      expect(summary.runs.map((x) => `${x.date} ${x.status} ${x.code ?? ''}`.trim())).toEqual(['2026-11-02 failed invalidMetrics', '2026-11-03 success']);
      const state = await ledger.state({ pipeline: 'etl' });
      expect(state.dates.filter((d) => d.status === 'running')).toEqual([]);
    });

    test('when withRun\'s function returns Infinity metrics then the run is failed and withRun rejects instead of returning', async () => {
      const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => Date.parse(NOW), actor: 'tester' });
      open.push(ledger);
      await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
      await expect(ledger.withRun('etl', '2026-11-02', () => ({ rows: Number.POSITIVE_INFINITY }))).rejects.toMatchObject({ code: 'input.invalidMetrics' });
      const state = await ledger.state({ pipeline: 'etl' });
      expect(state.dates.find((d) => d.date === '2026-11-02')).toMatchObject({ status: 'failed', errorCode: 'invalidMetrics' });
    });
  });
});

/** Drops the triggers of a SQLite ledger and runs SQL on it, as someone editing the file would. */
function tamperSqlite(db: string, sql: string): void {
  const file = new Database(db);
  try {
    file.exec('DROP TRIGGER IF EXISTS events_are_immutable; DROP TRIGGER IF EXISTS events_are_never_deleted;');
    file.exec(sql);
  } finally {
    file.close();
  }
}

/** A session with a success, a failure and a clear on 2026-11-03. */
function sessionLedger(db: string): void {
  const run = (...args: string[]) => {
    const r = cli(['--db', db, '--now', NOW, ...args]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  run('define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta');
  run('succeed', run('start', 'etl', '2026-11-02'), '--metrics', '{"rows":4}');
  run('fail', run('start', 'etl', '2026-11-03'), '--error', 'raw file missing');
  run('succeed', run('start', 'etl', '2026-11-03'), '--metrics', '{"rows":5}');
  run('clear', 'etl', '2026-11-03', '--reason', 'upstream resent the file');
}

type Verify = { ok: boolean; firstBadPosition: number | null; problem: string | null };

/** A copy of a SQLite ledger no process has open, its write-ahead log too if one was left. */
function copyLedger(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
}

describe('verify: the columns beside the hashed payload', () => {
  // The session is recorded once through the binary; each test edits a copy of it (nine CLI starts per test saved).
  let pristine: string;
  beforeAll(() => {
    pristine = join(tempDir(), 'ledger.db');
    sessionLedger(pristine);
  });

  // Queries select rows by these columns (pipeline, stream, run, type, time), so an edit to one changes
  // what `state` answers while the payload and its hash stay intact.
  test.each([
    { column: 'pipeline', sql: "UPDATE events SET pipeline = 'hidden' WHERE type = 'RunCleared'" },
    { column: 'stream', sql: "UPDATE events SET stream = 'hidden' WHERE type = 'RunCleared'" },
    { column: 'run_id', sql: "UPDATE events SET run_id = 'x' WHERE type = 'RunFailed'" },
    { column: 'type', sql: "UPDATE events SET type = 'RunHeartbeat' WHERE type = 'RunFailed'" },
    { column: 'recorded_at', sql: "UPDATE events SET recorded_at = '2030-01-01T00:00:00.000Z' WHERE type = 'RunFailed'" },
    { column: 'stream_version', sql: "UPDATE events SET stream_version = 99 WHERE type = 'RunCleared'" },
    { column: 'event_id', sql: "UPDATE events SET event_id = 'x' WHERE type = 'RunCleared'" },
  ])('when someone edits the $column column of a row on SQLite then verify exits 5 naming its position', ({ column, sql }) => {
    const db = join(tempDir(), 'ledger.db');
    copyLedger(pristine, db);
    const before = statesOf(db).find((d) => d.date === '2026-11-03')?.status;
    expect(before).toBe('cleared');
    tamperSqlite(db, sql);
    const r = cli(['--db', db, 'verify', '--json']);
    expect(r.code, r.stdout).toBe(5);
    const report = JSON.parse(r.stdout) as Verify;
    expect(report.ok).toBe(false);
    expect(report.problem).toContain(column);
    const plain = cli(['--db', db, 'verify']);
    expect(plain.code).toBe(5);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
  });
});

const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
afterAll(async () => {
  await schemas?.dropAll();
});

if (schemas === undefined) {
  const message = pgSkipMessage('the runtime review');
  console.warn(message);
  describe.skip(message, () => {
    test('PostgreSQL: a schema without a ledger, edited index columns', () => undefined);
  });
} else {
  const pgSchemasOfRun = schemas;
  describe('PostgreSQL', () => {
    test('when ?schema= names a schema that does not exist then verify, export and log exit 4 in one line instead of vouching for an empty ledger', async () => {
      const url = new URL(TEST_PG_URL as string);
      url.searchParams.set('schema', `${pgSchemasOfRun.prefix}_nosuch`);
      for (const args of [['verify'], ['verify', '--json'], ['export'], ['log'], ['pipelines']]) {
        const r = cli(['--db', url.toString(), ...args]);
        expect(r.code, `${args.join(' ')}: ${r.stdout}`).toBe(4);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain('no ledger');
      }
      // Nothing was created by those reads.
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [`${pgSchemasOfRun.prefix}_nosuch`]);
        expect(rowCount).toBe(0);
      } finally {
        await client.end();
      }
    });

    test('when ?schema= names a schema that does not exist then define creates it and the ledger verifies', async () => {
      const url = new URL(TEST_PG_URL as string);
      url.searchParams.set('schema', `${pgSchemasOfRun.prefix}_made_by_define`);
      const db = url.toString();
      expect(cli(['--db', db, 'verify']).code).toBe(4);
      const d = cli(['--db', db, '--now', NOW, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02']);
      expect(d.code, d.stderr).toBe(0);
      expect(cli(['--db', db, 'verify']).code).toBe(0);
    });

    test('when the table owner edits the pipeline column of a row then verify exits 5 naming its position', async () => {
      const db = await pgSchemasOfRun.fresh();
      sessionLedger(db);
      const schema = new URL(db).searchParams.get('schema') as string;
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      let position: number;
      try {
        const events = `${pg.escapeIdentifier(schema)}.events`;
        await client.query(`ALTER TABLE ${events} DISABLE TRIGGER events_are_immutable`);
        const { rows } = await client.query<{ position: string }>(`UPDATE ${events} SET pipeline = 'hidden' WHERE type = 'RunCleared' RETURNING position`);
        position = Number(rows[0]?.position);
      } finally {
        await client.end();
      }
      const r = cli(['--db', db, 'verify', '--json']);
      expect(r.code, r.stdout).toBe(5);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, firstBadPosition: position });
    });
  });
}
