import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, cli, eventCount, tempDir, servingAddress } from '../support/run-cli.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/openlineage');
/** The docs' example events, shipped in the package. */
const AIRFLOW_ORDERS = resolve(import.meta.dirname, '../../examples/openlineage/airflow-orders.jsonl');
const NOW = { RUNLEDGER_NOW: '2026-11-05T12:00:00Z' };
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

function lines(name: string): string[] {
  return readFileSync(name === 'airflow-orders.jsonl' ? AIRFLOW_ORDERS : join(FIXTURES, name), 'utf8').trim().split('\n');
}

function defineOrders(db: string) {
  const r = cli(['--db', db, 'define', 'airflow_orders', '--schedule', '0 0 * * *', '--start', '2026-11-02', '--openlineage', 'default/airflow_orders'], NOW);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

async function serve(db: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NOW } });
  children.push(child);
  return servingAddress(child);
}

describe('acceptance (the built binary)', () => {
  test('1–3: events posted with the write token fill the ledger; without it 401 and nothing written; ingest of the same file gives the same state', async () => {
    const dir = tempDir();
    const db = join(dir, 'served.db');
    expect(defineOrders(db).stdout).toContain('filled from OpenLineage job default/airflow_orders');
    const address = await serve(db, ['--write-token', 's3cret-0123456789']);
    const post = (line: string, headers: Record<string, string>) => fetch(`${address}/api/v1/lineage`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: line });

    for (const line of lines('airflow-orders.jsonl')) expect((await post(line, {})).status).toBe(401);
    expect(eventCount(db)).toBe(1);
    for (const line of lines('airflow-orders.jsonl')) expect((await post(line, { authorization: 'Bearer s3cret-0123456789' })).status).toBe(200);

    const pending = cli(['--db', db, 'pending', 'airflow_orders', '--json'], NOW);
    expect(JSON.parse(pending.stdout).pending).toEqual([
      expect.objectContaining({ date: '2026-11-04', reason: 'failed', error: 'extract_orders failed: upstream file orders_2026-11-04.csv is missing' }),
    ]);
    const table = cli(['--db', db, 'pending', 'airflow_orders'], NOW).stdout.trim().split('\n');
    expect(table).toHaveLength(2);
    expect(table[1]).toMatch(/^2026-11-04\s+failed\s+.*extract_orders failed: upstream file orders_2026-11-04.csv is missing$/);

    const fresh = join(dir, 'ingested.db');
    defineOrders(fresh);
    const ingest = cli(['--db', fresh, 'ingest', 'openlineage', AIRFLOW_ORDERS], NOW);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toContain('6 events: 6 recorded, 0 already recorded, 0 ignored, 0 refused; 6 ledger events written');
    const served = JSON.parse(cli(['--db', db, 'state', 'airflow_orders', '--json'], NOW).stdout);
    const ingested = JSON.parse(cli(['--db', fresh, 'state', 'airflow_orders', '--json'], NOW).stdout);
    expect(ingested).toEqual(served);
  });
});

describe('runledger serve --openlineage-auto', () => {
  test('defines an unbound Airflow DAG from the first event posted, then fills it', async () => {
    const db = join(tempDir(), 'auto.db');
    cli(['--db', db, 'define', 'unrelated', '--schedule', '@daily', '--start', '2026-11-02'], NOW);
    const address = await serve(db, ['--write-token', 's3cret-0123456789', '--openlineage-auto']);
    const res = await fetch(`${address}/api/v1/lineage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret-0123456789' },
      body: `[${lines('airflow-orders.jsonl').join(',')}]`,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 6, recorded: 6 });
    expect(JSON.parse(cli(['--db', db, 'pending', 'airflow_orders', '--json'], NOW).stdout).pending.map((p: { date: string }) => p.date)).toEqual(['2026-11-04']);
  });
});

describe('runledger ingest openlineage', () => {
  test("pending, state and log after ingest equal what the CLI records for the same runs (but the run ids, their origin, and the producer's own times)", () => {
    const dir = tempDir();
    const ingested = join(dir, 'ingested.db');
    defineOrders(ingested);
    expect(cli(['--db', ingested, 'ingest', 'openlineage', AIRFLOW_ORDERS], NOW).code).toBe(0);
    const byHand = join(dir, 'cli.db');
    defineOrders(byHand);
    for (const [date, outcome] of [['2026-11-02', 'succeed'], ['2026-11-03', 'succeed'], ['2026-11-04', 'fail']] as const) {
      const run = cli(['--db', byHand, 'start', 'airflow_orders', date], NOW).stdout.trim();
      const args = outcome === 'succeed' ? ['succeed', run] : ['fail', run, '--error', 'extract_orders failed: upstream file orders_2026-11-04.csv is missing'];
      expect(cli(['--db', byHand, ...args], NOW).code).toBe(0);
    }
    const doc = (db: string, args: string[]) => JSON.parse(cli(['--db', db, ...args, '--json'], NOW).stdout) as Record<string, unknown>;
    const runIds = (db: string) => (doc(db, ['runs', 'airflow_orders']).runs as Array<{ runId: string }>).map((r) => r.runId);
    const normalise = (db: string, value: unknown) => {
      let text = JSON.stringify(value);
      runIds(db).forEach((id, i) => (text = text.replaceAll(id, `run-${i + 1}`)));
      return JSON.parse(text) as unknown;
    };
    const withoutTimes = (value: unknown) => JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'startedAt' || key === 'finishedAt' ? undefined : v))) as unknown;
    for (const args of [['pending', 'airflow_orders'], ['state', 'airflow_orders']]) {
      expect(withoutTimes(normalise(ingested, doc(ingested, args)))).toEqual(withoutTimes(normalise(byHand, doc(byHand, args))));
    }
    // The ingested runs started and ended when Airflow said they did, not when the file was read.
    const times = (doc(ingested, ['state', 'airflow_orders']).dates as Array<{ startedAt: string; finishedAt: string }>).map((d) => [d.startedAt, d.finishedAt]);
    expect(times).toEqual([
      ['2026-11-03T00:00:05.120Z', '2026-11-03T00:14:31.007Z'],
      ['2026-11-04T00:00:05.120Z', '2026-11-04T00:14:31.007Z'],
      ['2026-11-05T00:00:05.120Z', '2026-11-05T00:14:31.007Z'],
    ]);
    const log = (db: string) =>
      (normalise(db, doc(db, ['log', 'airflow_orders'])) as { events: Array<{ type: string; data: Record<string, unknown> }> }).events.map((e) => {
        const { openlineage: _origin, at: _at, ...data } = e.data;
        return { type: e.type, data };
      });
    expect(log(ingested)).toEqual(log(byHand));
  });

  test('a dbt invocation without nominal time lands on the latest slot due at its eventTime; its model events are ignored with the reason', () => {
    const db = join(tempDir(), 'l.db');
    cli(['--db', db, 'define', 'jaffle_shop', '--schedule', '@daily', '--start', '2026-11-01', '--openlineage', 'dbt-test-namespace/dbt-run-jaffle_shop'], NOW);
    const r = cli(['--db', db, 'ingest', 'openlineage', join(FIXTURES, 'dbt-invocation.jsonl'), '--json'], { RUNLEDGER_NOW: '2026-11-07T00:00:00Z' });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ received: 8, recorded: 4, ignored: 4, refused: 0 });
    const state = JSON.parse(cli(['--db', db, 'state', 'jaffle_shop', '--json'], { RUNLEDGER_NOW: '2026-11-07T00:00:00Z' }).stdout);
    const byDate = Object.fromEntries(state.dates.map((d: { date: string; status: string; error: string | null }) => [d.date, [d.status, d.error]]));
    expect(byDate).toMatchObject({
      '2026-11-04': ['success', null],
      '2026-11-05': ['failed', 'Database Error in model orders: syntax error at or near "lkjlkjkj"'],
      '2026-11-06': ['missing', null],
    });
  });

  test('--dry-run shows the mapping and writes nothing', () => {
    const db = join(tempDir(), 'l.db');
    defineOrders(db);
    const r = cli(['--db', db, 'ingest', 'openlineage', join(FIXTURES, 'airflow-daily-stream.jsonl'), '--dry-run'], { RUNLEDGER_NOW: '2026-11-10T00:00:00Z' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/RunStarted\s+airflow_orders\s+2026-11-04\s+0193a000-0000-7000-8000-000000000010\s+attempt 3/);
    expect(r.stdout).toContain('line 12: START default/airflow_orders → recorded: started airflow_orders 2026-11-06 attempt 1 (scheduled)');
    expect(r.stdout).toContain('line 16: FAIL default/airflow_orders → duplicate: the FAIL of run 0193a000-0000-7000-8000-00000000000f at 2026-11-07T09:02:00+00:00 (airflow_orders 2026-11-04) is already in the ledger');
    expect(r.stdout).toContain('dry run, nothing written');
    expect(eventCount(db)).toBe(1);
  });

  test('stdin, and JSON arrays as well as JSON Lines', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    defineOrders(db);
    const array = join(dir, 'events.json');
    writeFileSync(array, JSON.stringify(lines('airflow-orders.jsonl').map((l) => JSON.parse(l) as unknown)));
    expect(cli(['--db', db, 'ingest', 'openlineage', array], NOW).stdout).toContain('6 recorded');
    const again = spawnWithStdin(['--db', db, 'ingest', 'openlineage', '-'], readFileSync(AIRFLOW_ORDERS, 'utf8'));
    expect(again).toContain('0 recorded, 6 already recorded');
  });

  test('a file with bad lines records every valid event and names each refused line with its number and reason, exit 2', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    defineOrders(db);
    const file = join(dir, 'bad.jsonl');
    const events = lines('airflow-orders.jsonl');
    const zoneless = events[2]?.replace('"eventTime":"2026-11-04T00:00:05.120Z"', '"eventTime":"2026-11-04T00:00:05.120"');
    const noSchemaUrl = JSON.stringify({ ...(JSON.parse(events[0] as string) as Record<string, unknown>), schemaURL: undefined });
    writeFileSync(file, [events[0], events[1]?.replace('"runId":"0193a000-0000-7000-8000-000000000001"', '"runId":"run-1"'), '{"eventType": "START",', zoneless, noSchemaUrl].join('\n'));
    const r = cli(['--db', db, 'ingest', 'openlineage', file, '--json'], NOW);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { recorded: number; refused: number; duplicates: number; results: Array<{ outcome: string; message: string }> };
    expect(report).toMatchObject({ recorded: 1, refused: 3, duplicates: 1 });
    expect(report.results.map((x) => x.outcome)).toEqual(['recorded', 'refused', 'refused', 'refused', 'duplicate']);
    expect(report.results[4]?.message).toContain('(the event has no schemaURL; read as OpenLineage 2-0-2)');
    const other = join(dir, 'other.db');
    defineOrders(other);
    const text = cli(['--db', other, 'ingest', 'openlineage', file], NOW);
    expect(text.stderr).toContain('line 2 (event) refused: breaks the OpenLineage schema at run.runId: must be a UUID');
    expect(text.stderr).toContain('line 3 (event) refused: is not JSON');
    expect(text.stderr).toContain("line 4 (event) refused: breaks the OpenLineage schema at eventTime: '2026-11-04T00:00:05.120' has no zone");
    expect(eventCount(db)).toBe(2);
  });

  test('--all-or-nothing: one bad line refuses the whole file, one line naming line and path, exit 2, nothing written', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    defineOrders(db);
    const file = join(dir, 'bad.jsonl');
    const events = lines('airflow-orders.jsonl');
    writeFileSync(file, [events[0], events[1]?.replace('"runId":"0193a000-0000-7000-8000-000000000001"', '"runId":"run-1"')].join('\n'));
    const r = cli(['--db', db, 'ingest', 'openlineage', file, '--all-or-nothing'], NOW);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('line 2 breaks the OpenLineage schema at run.runId: must be a UUID');
    expect(eventCount(db)).toBe(1);
  });

  test('--all-or-nothing: an event refused by a rule writes nothing either', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    defineOrders(db);
    const file = join(dir, 'stale.jsonl');
    const events = lines('airflow-orders.jsonl');
    // 2026-11-02 at a time that is no slot of the daily timetable: refused by a rule (409, exit 3).
    writeFileSync(file, [events[0], events[2]?.replaceAll('2026-11-03T00:00:00+00:00', '2026-11-03T06:00:00+00:00')].join('\n'));
    const r = cli(['--db', db, 'ingest', 'openlineage', file, '--all-or-nothing'], NOW);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('--all-or-nothing, so nothing was written');
    expect(eventCount(db)).toBe(1);
  });

  test('--openlineage-auto into a new ledger defines the DAG from its dag facet and records its runs', () => {
    const db = join(tempDir(), 'new.db');
    const r = cli(['--db', db, 'ingest', 'openlineage', AIRFLOW_ORDERS, '--openlineage-auto'], NOW);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('6 recorded');
    const pipelines = JSON.parse(cli(['--db', db, 'pipelines', '--json'], NOW).stdout);
    expect(pipelines.pipelines).toEqual([expect.objectContaining({ pipeline: 'airflow_orders', schedule: '0 0 * * *', timezone: 'UTC', openlineage: { namespace: 'default', job: 'airflow_orders' } })]);
    expect(JSON.parse(cli(['--db', db, 'pending', 'airflow_orders', '--json'], NOW).stdout).pending.map((p: { date: string }) => p.date)).toEqual(['2026-11-04']);
  });

  test('events of an unbound job are ignored with the reason; with --strict they are named on stderr and the exit code is 4', () => {
    const db = join(tempDir(), 'l.db');
    cli(['--db', db, 'define', 'other', '--schedule', '@daily', '--start', '2026-11-02'], NOW);
    const lenient = cli(['--db', db, 'ingest', 'openlineage', AIRFLOW_ORDERS], NOW);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout).toContain('6 events: 0 recorded, 0 already recorded, 6 ignored, 0 refused');
    const r = cli(['--db', db, 'ingest', 'openlineage', AIRFLOW_ORDERS, '--strict'], NOW);
    expect(r.code).toBe(4);
    expect(r.stderr.trim().split('\n')).toHaveLength(6);
    expect(r.stderr).toContain('no pipeline is bound to the OpenLineage job default/airflow_orders');
  });

  test('define refuses a job already bound to another pipeline, and --no-openlineage unbinds', () => {
    const db = join(tempDir(), 'l.db');
    defineOrders(db);
    const taken = cli(['--db', db, 'define', 'copy', '--schedule', '@daily', '--start', '2026-11-02', '--openlineage', 'default/airflow_orders'], NOW);
    expect(taken.code).toBe(3);
    expect(taken.stderr).toContain('already bound to pipeline airflow_orders');
    expect(cli(['--db', db, 'pipelines'], NOW).stdout).toMatch(/OPENLINEAGE JOB\n.*default\/airflow_orders/);
    const unbind = cli(['--db', db, 'define', 'airflow_orders', '--no-openlineage'], NOW);
    expect(unbind.stdout).toContain('openlineage: default/airflow_orders -> none');
    expect(cli(['--db', db, 'define', 'airflow_orders', '--openlineage', 'nojob'], NOW).code).toBe(2);
  });
});

function spawnWithStdin(args: string[], input: string): string {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', env: { ...process.env, ...NOW } });
  return r.stdout + r.stderr;
}

describe('runledger export --format openlineage', () => {
  test("writes the runs as OpenLineage events with nominalTime; ingested into a fresh ledger they give the same dates, attempts, types and errors", () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    cli(['--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02'], NOW);
    const run = (args: string[]) => cli(['--db', db, 'start', 'etl', ...args], NOW).stdout.trim();
    cli(['--db', db, 'succeed', run(['2026-11-02'])], NOW);
    cli(['--db', db, 'fail', run(['2026-11-03']), '--error', 'raw file missing'], NOW);
    cli(['--db', db, 'succeed', run(['2026-11-03'])], NOW);
    const manual = run(['2026-11-04', '--type', 'manual']);
    expect(manual).not.toBe('');
    const out = join(dir, 'etl.openlineage.jsonl');
    const exported = cli(['--db', db, 'export', '--format', 'openlineage', '--out', out], NOW);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('exported 7 OpenLineage events');
    const events = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { eventType: string; job: { namespace: string; name: string }; run: { facets: Record<string, Record<string, unknown>> } });
    expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE', 'START', 'FAIL', 'START', 'COMPLETE', 'START']);
    expect(events[0]?.job).toMatchObject({ namespace: 'runledger', name: 'etl' });
    expect(events[0]?.run.facets['nominalTime']).toMatchObject({ nominalStartTime: '2026-11-02T00:00:00+00:00', nominalEndTime: '2026-11-03T00:00:00+00:00' });
    expect(events[3]?.run.facets['errorMessage']).toMatchObject({ message: 'raw file missing' });

    const fresh = join(dir, 'fresh.db');
    cli(['--db', fresh, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--openlineage', 'runledger/etl'], NOW);
    const ingest = cli(['--db', fresh, 'ingest', 'openlineage', out], NOW);
    expect(ingest.code, ingest.stderr).toBe(0);
    const summary = (path: string) =>
      (JSON.parse(cli(['--db', path, 'state', 'etl', '--json'], NOW).stdout) as { dates: Array<Record<string, unknown>> }).dates.map((d) => [d['date'], d['status'], d['attempt'], d['attempts'], d['runType'], d['error']]);
    expect(summary(fresh)).toEqual(summary(db));
  });
});
