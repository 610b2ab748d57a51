// Acceptance 1 of the operating issue, through the built binary on the demo's own ledger.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { BIN, cli, tempDir } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 90_000 });

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
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('status and check on the demo ledger two days later', () => {
  test('status shows etl_orders two days behind, with its failed date and the failure', () => {
    const r = run('status');
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^PIPELINE\s+SCHEDULE\s+WATERMARK\s+COMPLETE THROUGH\s+LAG\s+PENDING\s+RUNNING\s+STALLED\s+LAST FAILURE$/);
    expect(row).toMatch(/^etl_orders\s+@daily\s+2026-11-06\s+2026-11-04\s+2d 1h \(2 dates behind\)\s+1 \(1 failed\)\s+0\s+0\s+2026-11-05 at \S+: exited with code 1: no raw partition for 2026-11-05/);
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
