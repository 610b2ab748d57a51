// `runledger demo`, the README's first command, through the built binary: the figures, exactly.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

const BIN = resolve(import.meta.dirname, '../../bin/runledger.js');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function runDemo(dir: string, cwd = tmpdir()) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('RUNLEDGER_')) delete env[key];
  // From another directory, as a user would: the demo must find its examples from the package, not the cwd.
  const r = spawnSync(process.execPath, [BIN, 'demo', '--dir', dir], { cwd, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('runledger demo', () => {
  const parent = mkdtempSync(join(tmpdir(), 'runledger-demo-test-'));
  dirs.push(parent);
  const dir = join(parent, 'demo');
  let result: ReturnType<typeof runDemo>;
  let lines: string[] = [];
  const count = (line: string) => lines.filter((l) => l === line).length;
  beforeAll(() => {
    result = runDemo(dir);
    lines = result.stdout.split('\n');
  });

  test('it exits 0 and says that its clock is fixed', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('the clock is fixed at 2026-11-05T01:00:00+07:00');
  });

  test('the three pending dates are shown before the backfill', () => {
    const pendingAt = result.stdout.indexOf('three dates pending');
    const table = result.stdout.slice(pendingAt, result.stdout.indexOf('== 3.'));
    expect(table.match(/^2026-11-0[234] {2}missing/gm)).toHaveLength(3);
  });

  test.each([
    '2026-11-02: 7 raw → 4 valid, 2 rejected, 1 duplicate; 3 cities; revenue Rp843,000',
    '2026-11-03: 5 raw → 4 valid, 1 rejected, 0 duplicates; 4 cities; revenue Rp605,500',
    '2026-11-04: 3 raw → 3 valid, 0 rejected, 0 duplicates; 3 cities; revenue Rp674,000',
  ])('the ETL prints "%s" for the backfill and again for the forced reprocess', (line) => {
    expect(count(line)).toBe(2);
  });

  test('a re-run does nothing and a forced one writes byte-identical gold files', () => {
    expect(result.stdout).toContain('nothing to backfill for etl_orders from 2026-11-02 to 2026-11-04');
    expect(result.stdout).toContain('all 3 gold files are byte-identical');
    expect(lines.filter((l) => /^revenue-by-city-2026-11-0[234]\.csv\s+\w{12}\s+\w{12}\s+yes$/.test(l))).toHaveLength(3);
  });

  test('a missing partition stops the default backfill; --continue-on-failure carries on', () => {
    expect(result.stdout).toMatch(/^2026-11-05 {2}missing {2}failed .*no raw partition for 2026-11-05/m);
    expect(result.stdout).toMatch(/^2026-11-06 {2}missing {2}skipped .*not started/m);
    expect(result.stdout).toContain('exit 6; still pending:');
    expect(count('2026-11-06: 3 raw → 3 valid, 0 rejected, 0 duplicates; 3 cities; revenue Rp674,000')).toBe(1);
    expect(result.stdout).toMatch(/^2026-11-06 {2}missing {2}success/m);
  });

  test('it ends with the state table, the watermark and the ledger path', () => {
    expect(result.stdout).toMatch(/^2026-11-02 {2}success {2}2 +backfill .* {2}cities=3 duplicates=1 rawRows=7 rejected=2 revenueIdr=843000 valid=4$/m);
    expect(result.stdout).toMatch(/^2026-11-05 {2}failed /m);
    expect(result.stdout).toContain('watermark: 2026-11-06');
    expect(result.stdout).toContain('complete through: 2026-11-04');
    const db = join(dir, 'runledger.db');
    expect(result.stdout).toContain(`ledger: ${db}`);
    expect(result.stdout).toContain(`\n  npx runledger --db ${db} --now 2026-11-07T01:00:00+07:00 state etl_orders\n`);
    expect(existsSync(db)).toBe(true);
  });

  test('its closing lines say how to run runledger as the README does, in its section "Outside the clone"', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Outside the clone\n'), readme.indexOf('\n## ', readme.indexOf('\n## Outside the clone\n') + 1));
    expect(section.length).toBeGreaterThan(100);
    const closing = result.stdout.trimEnd().split('\n').slice(-2).join(' ');
    expect(closing).toContain('(see "Outside the clone" in the README)');
    // Every command and fact the demo's closing lines state is the README's.
    for (const said of ['works in the clone', "ends in npm's E404 until runledger is installed", '`npm link` in the clone puts', 'on your PATH']) {
      expect(closing, said).toContain(said);
      expect(section.replaceAll('\n', ' '), said).toContain(said);
    }
  });

  test('its transcript is what the commands really print: define, pending and state as the CLI shows them', () => {
    const db = join(dir, 'runledger.db');
    const real = (...args: string[]) => spawnSync(process.execPath, [BIN, '--db', db, ...args], { encoding: 'utf8', env: { ...process.env, RUNLEDGER_ACTOR: 'tester' } }).stdout;
    const after = (command: string) => {
      const start = result.stdout.indexOf(`$ runledger ${command}\n`);
      expect(start, command).toBeGreaterThan(-1);
      return result.stdout.slice(start + `$ runledger ${command}\n`.length);
    };
    expect(after('define etl_orders --schedule @daily --start 2026-11-02 --tz Asia/Jakarta')).toMatch(/^defined etl_orders: @daily \(interval\) in Asia\/Jakarta from 2026-11-02T00:00:00\+07:00, catchup on\n/);
    const pending = real('--now', '2026-11-05T01:00:00+07:00', 'pending', 'etl_orders', '--as-of', '1');
    expect(pending).toMatch(/^DATE +REASON +RUN AFTER +DATA INTERVAL\n/);
    expect(after('pending etl_orders').startsWith(pending)).toBe(true);
    const state = real('--now', '2026-11-07T01:00:00+07:00', 'state', 'etl_orders');
    expect(after('state etl_orders').startsWith(state)).toBe(true);
  });

  test('the ledger it leaves behind answers the CLI the same way', () => {
    const r = spawnSync(process.execPath, [BIN, '--db', join(dir, 'runledger.db'), '--now', '2026-11-07T01:00:00+07:00', 'watermark', 'etl_orders', '--json'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout)).toEqual({ pipeline: 'etl_orders', watermark: '2026-11-06', completeThrough: '2026-11-04' });
  });

  test('when --dir is not empty then it refuses with exit 2 and touches nothing', () => {
    const busy = join(parent, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'keep.txt'), 'mine');
    const r = runDemo(busy);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not empty');
    expect(existsSync(join(busy, 'runledger.db'))).toBe(false);
  });

  test('a relative --dir works: the files land under the current directory and every date succeeds', () => {
    const r = runDemo('relative-demo', parent);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`working in ${join(parent, 'relative-demo')}`);
    expect(existsSync(join(parent, 'relative-demo', 'runledger.db'))).toBe(true);
    expect(existsSync(join(parent, 'relative-demo', 'gold', 'revenue-by-city-2026-11-02.csv'))).toBe(true);
  });
});
