import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

// pg is an optional peer dependency: an install without it serves SQLite ledgers, and a postgres:// URL says what
// to install. The installed copy below has runledger's compiled files and every dependency except pg.

const ROOT = resolve(import.meta.dirname, '../..');
const installed = mkdtempSync(join(tmpdir(), 'runledger-without-pg-'));
afterAll(() => rmSync(installed, { recursive: true, force: true }));
for (const name of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, name), join(installed, name), { recursive: true });
mkdirSync(join(installed, 'node_modules'));
for (const name of readdirSync(join(ROOT, 'node_modules'))) {
  if (name !== 'pg' && name !== '.bin') symlinkSync(join(ROOT, 'node_modules', name), join(installed, 'node_modules', name));
}

function runledger(...args: string[]) {
  const r = spawnSync(process.execPath, [join(installed, 'bin/runledger.js'), ...args], {
    cwd: installed,
    encoding: 'utf8',
    env: { ...process.env, RUNLEDGER_NOW: '2026-11-05T01:00:00+07:00', RUNLEDGER_ACTOR: 'tester' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('without pg installed', () => {
  test('a SQLite ledger works', () => {
    const db = join(installed, 'ledger.db');
    expect(runledger('--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02').code).toBe(0);
    expect(runledger('--db', db, 'pending', 'etl').code).toBe(0);
  });

  test('a postgres:// URL is one line saying to npm install pg, exit 2', () => {
    const r = runledger('--db', 'postgres://app:secret@127.0.0.1:1/ops', 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/npm install pg/);
    expect(r.stderr).not.toMatch(/secret/);
  });
});
