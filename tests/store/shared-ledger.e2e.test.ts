// A ledger several Unix users share. Needs root to create the users (useradd) and run commands as them
// (runuser); skipped visibly otherwise. Every user and group it creates is removed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';

vi.setConfig({ testTimeout: 60_000 });

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/runledger.js');
const NOW = '2026-11-05T00:00:00Z';
/** True when other users can enter `dir` (every directory up to / has its x bit for others). */
function reachable(dir: string): boolean {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (dirname(at) === at) return true;
  }
}

const isRoot = process.getuid?.() === 0 && spawnSync('which', ['useradd', 'runuser']).status === 0;
// The other users run this checkout's CLI, so they must be able to enter it: a clone inside a 0700 temp
// directory (`mktemp -d`) is out of their reach.
const SKIP = !isRoot
  ? 'needs root with useradd and runuser to act as other Unix users'
  : !reachable(ROOT)
    ? `other users cannot enter the checkout at ${ROOT} (a directory above it lacks the x bit for others)`
    : false;
if (SKIP) console.warn(`skipped: shared-ledger tests: ${SKIP}`);

const tag = `rl${process.pid % 100000}`;
const GROUP = `${tag}g`;
const A = `${tag}a`;
const B = `${tag}b`;
const READER = `${tag}r`;
let base = '';

function sh(command: string, args: string[]): void {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${r.stderr}`);
}

/** A user's uid (`u`) or a group's gid (`g`), from the system's databases. */
function idOf(kind: 'u' | 'g', name: string): number {
  const entry = spawnSync('getent', [kind === 'u' ? 'passwd' : 'group', name], { encoding: 'utf8' }).stdout.split(':');
  const id = Number(entry[2]);
  if (!Number.isInteger(id)) throw new Error(`no ${kind === 'u' ? 'user' : 'group'} ${name}`);
  return id;
}

beforeAll(() => {
  if (SKIP) return;
  sh('groupadd', [GROUP]);
  sh('useradd', ['-M', '-N', '-g', 'nogroup', '-G', GROUP, '-s', '/bin/sh', A]);
  sh('useradd', ['-M', '-N', '-g', 'nogroup', '-G', GROUP, '-s', '/bin/sh', B]);
  sh('useradd', ['-M', '-N', '-g', 'nogroup', '-s', '/bin/sh', READER]);
  base = mkdtempSync(join(reachableTmp(), 'runledger-shared-'));
  chmodSync(base, 0o755);
});

afterAll(() => {
  if (SKIP) return;
  if (base) rmSync(base, { recursive: true, force: true });
  for (const user of [A, B, READER]) spawnSync('userdel', [user]);
  spawnSync('groupdel', [GROUP]);
});

/**
 * The temp dir, when other users can reach what is made in it; else /tmp. `TMPDIR=$(mktemp -d) npm test` gives
 * a 0700 directory that no other user may enter (this file removes what it makes either way).
 */
function reachableTmp(): string {
  return reachable(tmpdir()) ? tmpdir() : '/tmp';
}

type Result = { code: number; stdout: string; stderr: string };

/** The CLI as `user`, with its own umask. */
function as(user: string, umask: string, args: string[]): Result {
  const r = spawnSync('runuser', ['-u', user, '--', 'sh', '-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, BIN, '--now', NOW, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: '/' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('a user queries a ledger in a directory it cannot write', { skip: Boolean(SKIP) }, () => {
  test('pending, state, watermark, log and verify answer, leave no file, and a write says the ledger is read-only', () => {
    const dir = join(base, 'owned-by-root');
    sh('mkdir', ['-m', '755', dir]);
    const db = join(dir, 'runledger.db');
    expect(spawnSync(process.execPath, [BIN, '--db', db, '--now', NOW, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01'], { encoding: 'utf8' }).status).toBe(0);
    expect(readdirSync(dir)).toEqual(['runledger.db']);

    const pending = as(READER, '022', ['--db', db, 'pending', 'p', '--json']);
    expect(pending).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(pending.stdout).pending.map((s: { date: string }) => s.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
    for (const query of [['state', 'p'], ['watermark', 'p'], ['log', 'p'], ['verify'], ['status']]) {
      const r = as(READER, '022', ['--db', db, ...query]);
      expect({ query, code: r.code }).toEqual({ query, code: 0 });
      expect(r.stderr).not.toMatch(/runledger: (cannot|.*read-only|.*query command)/);
    }
    expect(readdirSync(dir)).toEqual(['runledger.db']);

    const write = as(READER, '022', ['--db', db, 'start', 'p', '2026-11-02']);
    expect(write.code).toBe(2);
    expect(write.stderr).toMatch(/^runledger: cannot write to the ledger .* it is read-only for this user \(queries still work\); ask its owner for write access/);
    expect(write.stderr).not.toMatch(/use a query command/);
  });
});

describe('two users of one group share a ledger', { skip: Boolean(SKIP) }, () => {
  function sharedDir(name: string): string {
    const dir = join(base, name);
    sh('mkdir', ['-m', '2775', dir]);
    chownSync(dir, 0, idOf('g', GROUP));
    return dir;
  }

  test("user B's query does not stop user A's next write, whatever B's umask", () => {
    const db = join(sharedDir('setgid'), 'runledger.db');
    expect(as(A, "002", ["--db", db, "define", "p", "--schedule", "@daily", "--start", "2026-11-01"])).toMatchObject({ code: 0 });
    // The setgid directory gives it the group, A's umask 002 the group's write bit.
    expect({ gid: statSync(db).gid, mode: statSync(db).mode & 0o777 }).toEqual({ gid: idOf('g', GROUP), mode: 0o664 });
    expect(as(B, '077', ['--db', db, 'pending', 'p']).code).toBe(0);
    expect(as(B, '077', ['--db', db, 'start', 'p', '2026-11-01']).code).toBe(0);
    expect(as(A, '002', ['--db', db, 'start', 'p', '2026-11-02']).code).toBe(0);
  });

  test('-wal and -shm files B creates while it holds the ledger open take the ledger’s group and mode, so A writes beside it', async () => {
    const dir = sharedDir('held');
    // Not setgid: new files would get B's own group.
    chmodSync(dir, 0o775);
    const db = join(dir, 'runledger.db');
    expect(as(A, "002", ["--db", db, "define", "p", "--schedule", "@daily", "--start", "2026-11-01"])).toMatchObject({ code: 0 });
    chownSync(db, idOf('u', A), idOf('g', GROUP));
    chmodSync(db, 0o660);
    const holder = `const { openLedger } = await import(${JSON.stringify(join(ROOT, 'dist/src/index.js'))});
      const ledger = await openLedger({ db: ${JSON.stringify(db)}, create: false });
      await ledger.pending({ pipeline: 'p' });
      console.log('open');
      await new Promise((r) => process.stdin.on('end', r).resume());
      await ledger.close();`;
    const child = spawn('runuser', ['-u', B, '--', 'sh', '-c', 'umask 077; exec "$0" "$@"', process.execPath, '--input-type=module', '-e', holder], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    try {
      await new Promise<void>((done, fail) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('open') && done());
        child.on('exit', (code) => fail(new Error(`holder exited ${code}`)));
      });
      for (const sidecar of [`${db}-wal`, `${db}-shm`]) {
        expect(existsSync(sidecar)).toBe(true);
        const info = statSync(sidecar);
        expect({ sidecar, uid: info.uid, gid: info.gid, mode: info.mode & 0o777 }).toEqual({ sidecar, uid: idOf('u', B), gid: idOf('g', GROUP), mode: 0o660 });
      }
      expect(as(A, '002', ['--db', db, 'start', 'p', '2026-11-02']).code).toBe(0);
    } finally {
      child.stdin.end();
      await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r(null)));
    }
  });
});
