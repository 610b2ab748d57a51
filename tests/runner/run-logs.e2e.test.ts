import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { cli, cliAsync, defineOrders, inProcess, NOW, tempDir, waitForFile } from './cli-helpers.js';

// Per-run log files: with several dates running at once their output interleaves on the terminal, so each run's
// stdout and stderr also go to a file of its own, whose path and sha256 the run's outcome event records.

const DATES = ['2026-11-02', '2026-11-03', '2026-11-04'];
const SECRET = 'hunter2-not-for-logs';

// Each command waits until all three have started (so their output really interleaves), then writes lines of
// its own on stdout and stderr, and a secret known to runledger (its variable is named like a token).
const SCRIPT =
  'touch started.{date}; n=0; while [ "$(ls started.* | wc -l)" -lt 3 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done; [ "$(ls started.* | wc -l)" -ge 3 ] || exit 9; ' +
  'for i in 1 2 3; do echo "{date} out $i"; echo "{date} err $i" >&2; sleep 0.02; done; echo "{date} token $API_TOKEN"';

type Outcome = { type: string; data: { date: string; runId: string; log?: { path: string; sha256: string } } };

async function outcomes(dir: string): Promise<Outcome[]> {
  const r = await inProcess(dir, ['log', 'etl_orders', '--type', 'RunSucceeded,RunFailed,RunInterrupted', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { events: Outcome[] }).events;
}

function backfill(dir: string, extra: string[] = []) {
  return cli(dir, ['--db', join(dir, 'runledger.db'), '--now', NOW, 'backfill', 'etl_orders', '--from', DATES[0] ?? '', '--to', DATES[2] ?? '', '--max-active-runs', '3', ...extra, '--', 'sh', '-c', SCRIPT], {
    API_TOKEN: SECRET,
  });
}

describe('per-run log files', () => {
  test('three dates run at once: each log file holds only its own lines, and its outcome records the path and sha256', async () => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '3']);
    const r = backfill(dir);
    expect(r.code, r.stderr).toBe(0);

    const events = await outcomes(dir);
    expect(events.map((e) => [e.type, e.data.date]).sort()).toEqual(DATES.map((d) => ['RunSucceeded', d]));
    for (const event of events) {
      const { date, runId, log } = event.data;
      expect(log, `${date} records its log`).toBeDefined();
      if (!log) continue;
      expect(log.path).toBe(join(dir, 'runledger.db.logs', 'etl_orders', `${date}_${runId}.log`));
      const bytes = readFileSync(log.path);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(log.sha256);
      expect(statSync(log.path).mode & 0o777).toBe(0o600);
      const lines = bytes.toString('utf8').trimEnd().split('\n');
      // Every line of stdout and stderr, and none of another date's.
      expect([...lines].sort()).toEqual([`${date} err 1`, `${date} err 2`, `${date} err 3`, `${date} out 1`, `${date} out 2`, `${date} out 3`, `${date} token [redacted]`]);
      expect(bytes.toString('utf8')).not.toContain(SECRET);

      const printed = await inProcess(dir, ['runs', 'etl_orders', '--run', runId, '--logs']);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toBe(bytes.toString('utf8'));

      // The readable timeline of the run names its log file too, not only --json.
      const timeline = await inProcess(dir, ['log', 'etl_orders', '--run', runId]);
      expect(timeline.code, timeline.stderr).toBe(0);
      expect(timeline.stdout).toMatch(new RegExp(`succeeded etl_orders ${date} run ${runId}.* log=${log.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    expect(statSync(join(dir, 'runledger.db.logs')).mode & 0o777).toBe(0o700);

    // `runs --json` carries each run's log file as its outcome recorded it.
    const listed = await inProcess(dir, ['runs', 'etl_orders', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string; log?: { path: string; sha256: string } }> }).runs;
    expect(runs.map((r) => [r.runId, r.log]).sort()).toEqual(events.map((e) => [e.data.runId, e.data.log]).sort());
  });

  test('a log file changed since its run is refused (exit 5), a missing one too (exit 4), and nothing of it is printed', async () => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '3']);
    expect(backfill(dir).code).toBe(0);
    const [first, second] = (await outcomes(dir)).map((e) => e.data);
    if (!first?.log || !second?.log) throw new Error('no log recorded');

    appendFileSync(first.log.path, 'a line added later\n');
    const changed = await inProcess(dir, ['runs', 'etl_orders', '--run', first.runId, '--logs']);
    expect(changed.code).toBe(5);
    expect(changed.stdout).toBe('');
    expect(changed.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(changed.stderr).toContain('no longer matches the sha256');

    rmSync(second.log.path);
    const missing = await inProcess(dir, ['runs', 'etl_orders', '--run', second.runId, '--logs']);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('is missing');
  });

  test('--logs <dir> puts the files there; --no-logs keeps none, and asking for its log says it has none', async () => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '3']);
    const logs = join(dir, 'elsewhere', 'logs');
    expect(backfill(dir, ['--logs', logs]).code).toBe(0);
    for (const { data } of await outcomes(dir)) expect(data.log?.path.startsWith(join(logs, 'etl_orders'))).toBe(true);
    expect(existsSync(join(dir, 'runledger.db.logs'))).toBe(false);

    const bare = tempDir();
    await defineOrders(bare, ['--max-active-runs', '3']);
    expect(backfill(bare, ['--no-logs']).code).toBe(0);
    expect(existsSync(join(bare, 'runledger.db.logs'))).toBe(false);
    const [run] = (await outcomes(bare)).map((e) => e.data);
    expect(run?.log).toBeUndefined();
    const none = await inProcess(bare, ['runs', 'etl_orders', '--run', run?.runId ?? '', '--logs']);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('recorded no log file');
  });

  test('a log directory that cannot be written is refused before any run starts (exit 2)', async () => {
    const dir = tempDir();
    await defineOrders(dir, ['--max-active-runs', '3']);
    const file = join(dir, 'not-a-dir');
    appendFileSync(file, '');
    const r = backfill(dir, ['--logs', join(file, 'logs')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot write run log files');
    expect(existsSync(join(dir, 'started.2026-11-02'))).toBe(false);
  });
});

describe('the log of a failed run', () => {
  test('a failing command records its log with the RunFailed, beside the stderr tail it always kept', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = cli(dir, ['--db', join(dir, 'runledger.db'), '--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', 'echo loading; echo "raw file missing" >&2; exit 3']);
    expect(r.code).toBe(6);
    const [failed] = await outcomes(dir);
    expect(failed?.type).toBe('RunFailed');
    expect((failed?.data as { error?: string }).error).toContain('raw file missing');
    expect(readFileSync(failed?.data.log?.path ?? '', 'utf8')).toBe('loading\nraw file missing\n');
    const timeline = await inProcess(dir, ['log', 'etl_orders', '--run', failed?.data.runId ?? '']);
    expect(timeline.stdout).toContain(`(exit:3) log=${failed?.data.log?.path}`);
  });
});

describe('the log of an interrupted run', () => {
  test('a run stopped by SIGINT records its log with the RunInterrupted', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const { child, done } = cliAsync(dir, ['--db', join(dir, 'runledger.db'), '--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', 'echo working; touch started; sleep 30']);
    await waitForFile(join(dir, 'started'), 20_000);
    child.kill('SIGINT');
    expect((await done).code).toBe(130);
    const [interrupted] = await outcomes(dir);
    expect(interrupted?.type).toBe('RunInterrupted');
    expect(readFileSync(interrupted?.data.log?.path ?? '', 'utf8')).toBe('working\n');
  });
});

describe.skipIf(TEST_PG_URL === undefined)('per-run log files with a PostgreSQL ledger', () => {
  const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
  afterAll(async () => schemas?.dropAll());
  test('without --logs they go to ./runledger-logs in the current directory', async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const dir = tempDir();
    expect(cli(dir, ['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta']).code).toBe(0);
    const r = cli(dir, ['--db', db, '--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', 'echo on postgres {date}']);
    expect(r.code, r.stderr).toBe(0);
    const log = cli(dir, ['--db', db, 'log', 'etl_orders', '--type', 'RunSucceeded', '--json']);
    const [event] = (JSON.parse(log.stdout) as { events: Outcome[] }).events;
    expect(event?.data.log?.path.startsWith(join(dir, 'runledger-logs', 'etl_orders'))).toBe(true);
    const printed = cli(dir, ['--db', db, 'runs', 'etl_orders', '--run', event?.data.runId ?? '', '--logs']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe('on postgres 2026-11-02\n');
  });
});
if (TEST_PG_URL === undefined) console.log(pgSkipMessage('per-run log files on PostgreSQL'));
