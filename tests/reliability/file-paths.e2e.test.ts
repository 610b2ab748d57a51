import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { acceptanceLedger, NOW, tempDir } from '../audit/cli-session.js';
import { defineOrders } from '../runner/cli-helpers.js';
import { cli as runCli, type CliResult } from '../support/run-cli.js';

// Files the user names: --out/--html/--textfile write through symlinks and devices without replacing them, a
// full disk is one line with exit 1, and files read (--metrics @file, --tasks, --expect, ingest) are bounded.
// Devices are made with mknod inside a temporary directory, never the system's own /dev nodes.

const root = process.getuid?.() === 0;

/**
 * The built CLI with the clock at NOW, in the file's CLI server (a process as `bin/runledger.js` is, loaded once):
 * the files and devices are the subject here, not the process. An unbounded read of /dev/zero fails the test at the
 * server's two-minute hang guard.
 */
function cli(args: string[]): CliResult {
  return runCli(['--now', NOW, ...args]);
}

function oneLine(stderr: string): void {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
}

/** A 64 KiB tmpfs under `dir` holding `old` in each of `names`, then filled up; `use` gets its path; unmounted after. */
function withFullDisk(dir: string, names: string[], use: (disk: string) => void): void {
  const disk = join(dir, 'small');
  mkdirSync(disk);
  expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]).status).toBe(0);
  try {
    for (const name of names) writeFileSync(join(disk, name), 'old');
    spawnSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=4k']);
    use(disk);
  } finally {
    spawnSync('umount', [disk]);
  }
}

describe('writing --out, --html and --textfile', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    ({ dir, db } = await acceptanceLedger());
  }, 60_000);

  test('export --out a symlink writes its target and keeps the link and the target mode', () => {
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, '');
    chmodSync(target, 0o600);
    const link = join(dir, 'link.jsonl');
    symlinkSync(target, link);
    const r = cli(['--db', db, 'export', '--out', link]);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('runledger-export-end');
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  test.skipIf(!root)('export --out a full device is one line naming ENOSPC, exit 1, and the device stays a device', () => {
    const full = join(dir, 'full');
    expect(spawnSync('mknod', [full, 'c', '1', '7']).status).toBe(0);
    const r = cli(['--db', db, 'export', '--out', full]);
    expect(r.code).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/^runledger: cannot write the output to .*full \(ENOSPC, no space left on the device\)/);
    expect(r.stderr).not.toContain('exported');
    expect(statSync(full).isCharacterDevice()).toBe(true);
  });

  test.skipIf(!root)('export --out, report --html and metrics --textfile on a full disk are one line, exit 1, and keep the old file', () => {
    const cases: Array<[string, string[]]> = [
      ['out.jsonl', ['export', '--out']],
      ['out.html', ['report', '--html']],
      ['out.prom', ['metrics', '--textfile']],
    ];
    withFullDisk(dir, cases.map(([name]) => name), (disk) => {
      for (const [name, args] of cases) {
        const file = join(disk, name);
        const r = cli(['--db', db, ...args, file]);
        expect(r.code, `${name}: ${r.stderr}`).toBe(1);
        oneLine(r.stderr);
        expect(r.stderr).toContain('(ENOSPC, no space left on the device); nothing was replaced');
        expect(readFileSync(file, 'utf8')).toBe('old');
      }
      expect(readdirSync(disk).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });
  });

  test.each([
    ['report --html', ['report', '--html'], 'report.html'],
    ['metrics --textfile', ['metrics', '--textfile'], 'runledger.prom'],
  ])('%s over a 0600 file keeps its mode', (_label, args, name) => {
    const file = join(dir, name);
    writeFileSync(file, 'old');
    chmodSync(file, 0o600);
    const r = cli(['--db', db, ...args, file]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toBe('old');
  });

  test('metrics --textfile in a missing directory is still exit 2', () => {
    const r = cli(['--db', db, 'metrics', '--textfile', join(dir, 'nowhere', 'x.prom')]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
  });
});

describe('reading files the user names', () => {
  let dir: string;
  let db: string;
  let zero: string;

  beforeAll(async () => {
    ({ dir, db } = await acceptanceLedger());
    zero = join(dir, 'zero');
    // Reading never changes the device; the link is what a user would pass.
    symlinkSync('/dev/zero', zero);
  }, 60_000);

  test('succeed --metrics @/dev/zero is refused at once, exit 2, nothing recorded', () => {
    const id = cli(['--db', db, 'start', 'etl_orders', '2026-11-05']).stdout.trim();
    const r = cli(['--db', db, 'succeed', id, '--metrics', `@${zero}`]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain('not a regular file');
    expect(cli(['--db', db, 'state', 'etl_orders', '--json']).stdout).not.toMatch(/"date":"2026-11-05","status":"success"/);
  });

  test('--metrics @file larger than 16 MiB is refused, exit 2', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 17 * 1024 * 1024);
    const id = cli(['--db', db, 'start', 'etl_orders', '2026-11-06']).stdout.trim();
    const r = cli(['--db', db, 'succeed', id, '--metrics', `@${big}`]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain('is larger than the 16 MB runledger reads');
  });

  test.each([
    ['define --tasks', (file: string) => ['define', 'other', '--schedule', '@daily', '--start', '2026-11-02', '--tasks', file]],
    ['ingest', (file: string) => ['ingest', 'openlineage', file]],
    ['replay --expect', (file: string) => ['replay', join(dir, 'export.jsonl'), '--expect', file]],
  ])('%s of /dev/zero is refused at once, exit 2', (_label, args) => {
    writeFileSync(join(dir, 'export.jsonl'), cli(['--db', db, 'export']).stdout);
    const r = cli(['--db', db, ...args(zero)]);
    expect(r.code, r.stderr).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain('not a regular file');
  });
});

describe('backfill --logs', () => {
  test.each([
    ['a 0644 file', 0o644],
    ['an executable file', 0o755],
  ])('naming %s is refused before any run: "is not a directory", exit 2', async (_label, mode) => {
    const dir = tempDir();
    await defineOrders(dir);
    const file = join(dir, 'logs');
    writeFileSync(file, '');
    chmodSync(file, mode);
    const r = cli(['--db', join(dir, 'runledger.db'), 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-03', '--logs', file, '--', 'true']);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain(`${file} is not a directory`);
    expect(existsSync(join(dir, 'runledger.db'))).toBe(true);
    expect(cli(['--db', join(dir, 'runledger.db'), 'log', 'etl_orders', '--type', 'RunStarted', '--json']).stdout).not.toContain('RunStarted"');
  });
});
