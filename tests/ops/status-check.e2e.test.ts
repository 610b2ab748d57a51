// Acceptance 1 and 3 of the operating issue, through the built binary on the demo's own ledger.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { BIN, cli, tempDir, servingAddress } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const LATER = '2026-11-07T01:00:00+07:00';
const dir = tempDir('runledger-status-');
const db = join(dir, 'demo', 'runledger.db');
const run = (...args: string[]) => cli(['--db', db, '--now', LATER, ...args]);

beforeAll(() => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('RUNLEDGER_')) delete env[key];
  const demo = spawnSync(process.execPath, [BIN, 'demo', '--dir', join(dir, 'demo')], { encoding: 'utf8', env });
  if (demo.status !== 0) throw new Error(`demo failed: ${demo.stderr}`);
});
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : null;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});

describe('status and check on the demo ledger two days later', () => {
  test('status shows etl_orders two days behind, with its failed date and the failure', () => {
    const r = run('status');
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^PIPELINE\s+SCHEDULE\s+WATERMARK\s+COMPLETE THROUGH\s+LAG\s+PENDING\s+RUNNING\s+STALLED\s+LAST FAILURE$/);
    expect(row).toMatch(/^etl_orders\s+@daily\s+2026-11-06\s+2026-11-04\s+2d 1h \(2 dates behind\)\s+1 \(1 failed\)\s+0\s+0\s+2026-11-05 at 2026-11-\d\dT\d\d:\d\d:\d\d\+07:00: exited with code 1: no raw partition for 2026-11-05/);
  });

  test('status --json gives the lag in seconds: now minus the end of 2026-11-04', () => {
    const r = run('status', '--json');
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout) as { pipelines: Array<Record<string, unknown>> };
    expect(view.pipelines).toHaveLength(1);
    expect(view.pipelines[0]).toMatchObject({
      pipeline: 'etl_orders',
      completeThrough: '2026-11-04',
      completeUntil: '2026-11-05T00:00:00+07:00',
      lagSeconds: 2 * 86_400 + 3600,
      pending: { total: 1, failed: 1, missing: 0, cleared: 0, stalled: 0 },
      lastFailure: { date: '2026-11-05' },
    });
  });

  test('check --max-lag 1d prints one line and exits 7; --max-lag 3d exits 0', () => {
    const late = run('check', '--max-lag', '1d');
    expect(late.code).toBe(7);
    expect(late.stderr).toBe('');
    expect(late.stdout.trimEnd().split('\n')).toEqual(['etl_orders: lag 2d 1h is over 1d (complete through 2026-11-04, 2 dates behind)']);
    const fine = run('check', '--max-lag', '3d');
    expect(fine.code).toBe(0);
    expect(fine.stdout).toBe('ok: 1 pipeline within every rule (etl_orders)\n');
  });

  test('--no-failed and --max-pending each add their own line', () => {
    const r = run('check', 'etl_orders', '--max-lag', '3d', '--max-pending', '0', '--no-failed', '--no-stalled', '--json');
    expect(r.code).toBe(7);
    const doc = JSON.parse(r.stdout) as { ok: boolean; violations: Array<{ rule: string }> };
    expect(doc.ok).toBe(false);
    expect(doc.violations.map((v) => v.rule)).toEqual(['pending', 'failed']);
  });

  test('define --freshness stores the default lag limit: check without options uses it, and the change is in the diff', () => {
    const dbCopy = join(dir, 'fresh.db');
    expect(cli(['--db', db, 'export', '--out', join(dir, 'demo.jsonl')]).code).toBe(0);
    expect(cli(['--db', dbCopy, 'import', join(dir, 'demo.jsonl')]).code).toBe(0);
    const copy = (...args: string[]) => cli(['--db', dbCopy, '--now', LATER, ...args]);
    expect(copy('check').code).toBe(2);
    const defined = copy('define', 'etl_orders', '--freshness', '1d12h');
    expect(defined.stdout).toContain('freshnessMs: none -> 1d 12h');
    const late = copy('check');
    expect(late.code).toBe(7);
    expect(late.stdout).toBe('etl_orders: lag 2d 1h is over its freshness 1d 12h (complete through 2026-11-04, 2 dates behind)\n');
    expect(copy('check', '--max-lag', '3d').code).toBe(0);
    expect(copy('define', 'etl_orders', '--freshness', '1d12h').stdout).toContain('nothing recorded');
    expect(copy('define', 'etl_orders', '--no-freshness').stdout).toContain('freshnessMs: 1d 12h -> none');
    expect(copy('check').code).toBe(2);
    expect(copy('verify').code).toBe(0);
  });

  test('bad input is one line, exit 2: a malformed --max-lag, an unknown pipeline is exit 4', () => {
    const bad = run('check', '--max-lag', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run('status', 'nope').code).toBe(4);
    expect(run('check', 'nope', '--max-lag', '1d').code).toBe(4);
  });
});

describe('metrics from the CLI and from serve', () => {
  const lagOf = (text: string) => {
    const lag = parsePrometheusTextFormat(text).find((f) => f.name === 'runledger_pipeline_lag_seconds');
    return lag?.metrics.find((m) => m.labels?.['pipeline'] === 'etl_orders')?.value;
  };

  test('metrics --textfile writes the file whole (no temporary file left beside it) and a parser reads it', () => {
    const target = join(dir, 'collector', 'runledger.prom');
    spawnSync('mkdir', ['-p', join(dir, 'collector')]);
    const r = run('metrics', '--textfile', target);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readdirSync(join(dir, 'collector'))).toEqual(['runledger.prom']);
    const text = readFileSync(target, 'utf8');
    expect(lagOf(text)).toBe(String(2 * 86_400 + 3600));
    const verified = parsePrometheusTextFormat(text).find((f) => f.name === 'runledger_ledger_verify_ok');
    expect(verified?.metrics[0]?.value).toBe('1');
    const again = run('metrics', '--textfile', target);
    expect(again.code).toBe(0);
    expect(readdirSync(join(dir, 'collector'))).toEqual(['runledger.prom']);
  });

  test('metrics --textfile into a directory that does not exist is one line, exit 2', () => {
    const r = run('metrics', '--textfile', join(dir, 'nowhere', 'runledger.prom'));
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('cannot write --textfile');
  });

  test('GET /metrics during serve shows runledger_pipeline_lag_seconds{pipeline="etl_orders"}', async () => {
    const child = spawn(process.execPath, [BIN, '--db', db, '--now', LATER, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const address = await servingAddress(child);
      const res = await fetch(`${address}/metrics`);
      expect(res.status).toBe(200);
      expect(lagOf(await res.text())).toBe(String(2 * 86_400 + 3600));
      const status = (await (await fetch(`${address}/api/status`)).json()) as unknown;
      expect(status).toEqual(JSON.parse(run('status', '--json').stdout));
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe.skipIf(schemas === null)('status, check and metrics on PostgreSQL', () => {
  test('the demo ledger imported into PostgreSQL answers as on SQLite', async () => {
    const url = await (schemas as NonNullable<typeof schemas>).fresh();
    const file = join(dir, 'to-postgres.jsonl');
    expect(cli(['--db', db, 'export', '--out', file]).code).toBe(0);
    expect(cli(['--db', url, 'import', file]).code).toBe(0);
    const onPg = (...args: string[]) => cli(['--db', url, '--now', LATER, ...args]);
    expect(JSON.parse(onPg('status', '--json').stdout)).toEqual(JSON.parse(run('status', '--json').stdout));
    const late = onPg('check', '--max-lag', '1d');
    expect(late.code).toBe(7);
    expect(late.stdout).toBe('etl_orders: lag 2d 1h is over 1d (complete through 2026-11-04, 2 dates behind)\n');
    expect(onPg('check', '--max-lag', '3d').code).toBe(0);
    const metrics = onPg('metrics');
    expect(metrics.code).toBe(0);
    const lag = parsePrometheusTextFormat(metrics.stdout).find((f) => f.name === 'runledger_pipeline_lag_seconds');
    expect(lag?.metrics.find((m) => m.labels?.['pipeline'] === 'etl_orders')?.value).toBe(String(2 * 86_400 + 3600));
  });
});
if (schemas === null) console.log(pgSkipMessage('status and check'));
