// bin/runledger.js starts the CLI with a V8 code cache (Node 20: its own, kept per chunk and command; Node 22 and
// later: Node's). The cache may only ever make a start cheaper: a first start, a start from the cache, a start from a
// cache that is garbage, truncated or in a folder it cannot write must all print the same bytes and exit the same.
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, mkdirSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-05T01:00:00+07:00';
/** Whether this Node caches through its own compile cache (its files are not ours to read). */
const nodeCaches = Number(process.versions.node.split('.')[0]) >= 22;

function run(args: string[], cacheDir: string, extra: Record<string, string> = {}, nodeArgs: string[] = []): { code: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), RUNLEDGER_ACTOR: 'tester', NODE_COMPILE_CACHE: cacheDir, ...extra };
  delete env['NODE_DISABLE_COMPILE_CACHE'];
  const r = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the code cache never changes what a command does', () => {
  const dir = tempDir('runledger-compile-cache-');
  const db = join(dir, 'ledger.db');
  const status = ['--db', db, '--now', NOW, 'status'];

  test('a first start writes it, later starts read it, and all print the same', () => {
    const cache = join(dir, 'cache');
    expect(run(['--db', db, '--now', NOW, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02'], cache).code).toBe(0);
    const first = run(status, cache);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('etl_orders');
    if (!nodeCaches) expect(readdirSync(cache).filter((name) => name.startsWith('core-') && name.includes('-status-'))).toHaveLength(1);
    expect(run(status, cache)).toEqual(first);
    expect(run(status, cache, { NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual(first);
    // A typo's suggestion and exit code, through the cache too.
    const typo = run(['stat'], cache);
    expect(typo.code).toBe(2);
    expect(run(['stat'], cache)).toEqual(typo);
  });

  test.skipIf(nodeCaches)('a start that stops early writes no cache (it would hold too little); one that succeeds, or whose check does not hold, does', () => {
    const cache = join(dir, 'failed-first');
    const missing = run(['--db', join(dir, 'no-such-ledger.db'), '--now', NOW, 'status'], cache);
    expect(missing.code).toBe(4);
    expect(readdirSync(cache).filter((name) => name.includes('-status-'))).toEqual([]);
    const ok = run(status, cache);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(cache).filter((name) => name.startsWith('core-') && name.includes('-status-'))).toHaveLength(1);
    // A check that does not hold (exit 7) did all its work, and may fail from cron for days: it writes its cache.
    expect(run(['--db', db, '--now', NOW, 'define', 'etl_late', '--schedule', '@daily', '--start', '2026-10-01'], cache).code).toBe(0);
    const failing = run(['--db', db, '--now', NOW, 'check', '--max-pending', '0'], cache);
    expect(failing.code, failing.stderr).toBe(7);
    expect(readdirSync(cache).filter((name) => name.startsWith('core-') && name.includes('-check-'))).toHaveLength(1);
  });

  test.skipIf(nodeCaches)('a cache that is garbage or cut short is compiled past and written again', () => {
    const cache = join(dir, 'broken');
    const first = run(status, cache);
    expect(first.code, first.stderr).toBe(0);
    const files = readdirSync(cache).map((name) => join(cache, name));
    expect(files.length).toBeGreaterThan(0);
    for (const [i, file] of files.entries()) {
      const data = readFileSync(file);
      writeFileSync(file, i % 2 === 0 ? data.subarray(0, data.length >> 1) : Buffer.alloc(data.length, 0x5a));
    }
    expect(run(status, cache)).toEqual(first);
    // Written again whole: the next start reads it.
    for (const file of files) expect(readFileSync(file).length).toBeGreaterThan(64);
    expect(run(status, cache)).toEqual(first);
  });

  test.skipIf(nodeCaches)('a cache of the right length whose bytes went bad is refused by its checksum, not run', () => {
    // Zeroed blocks with the length intact (a crash after the rename, a disk error): V8 checks the header and lengths
    // but, in a release build, the payload's checksum only when asked; run as it was, such a cache crashed with SIGSEGV.
    const cache = join(dir, 'zeroed');
    const first = run(status, cache);
    expect(first.code, first.stderr).toBe(0);
    const files = readdirSync(cache).map((name) => join(cache, name));
    for (const file of files) {
      const data = readFileSync(file);
      data.fill(0, Math.floor(data.length / 3));
      writeFileSync(file, data);
    }
    expect(run(status, cache)).toEqual(first);
    expect(run(status, cache)).toEqual(first);
  });

  test.skipIf(nodeCaches)("an earlier build's caches of this install are removed when a start writes one; another install's stay", () => {
    const cache = join(dir, 'pruned');
    const first = run(status, cache);
    expect(first.code, first.stderr).toBe(0);
    const written = readdirSync(cache);
    // core-<hash>-<install>-status-<node>-<arch>.v8cache: this install's tag from the core chunk's file.
    const core = written.find((name) => name.startsWith('core-') && name.includes('-status-')) as string;
    const install = /^core-[\w-]{8}-([0-9a-f]{8})-status-/.exec(core)?.[1] as string;
    expect(install).toMatch(/^[0-9a-f]{8}$/);
    const suffix = `status-${process.version}-${process.arch}.v8cache`;
    const stale = [`core-OLDBUILD-${install}-${suffix}`, `status-commands-OLDBUILD-${install}-${suffix}`];
    const others = [`core-OLDBUILD-0badcafe-${suffix}`, 'notes.txt'];
    for (const name of [...stale, ...others]) writeFileSync(join(cache, name), 'x');
    // A start that reads every cache writes none, and leaves the folder as it is.
    expect(run(status, cache)).toEqual(first);
    expect(readdirSync(cache)).toEqual(expect.arrayContaining(stale));
    // A start that writes one (another command word: its first start) prunes this install's stale files only.
    expect(run(['--db', db, '--now', NOW, 'pipelines'], cache).code).toBe(0);
    const after = readdirSync(cache);
    for (const name of stale) expect(after).not.toContain(name);
    for (const name of [...others, ...written]) expect(after).toContain(name);
    expect(run(status, cache)).toEqual(first);
  });

  test('a cache folder that cannot be written, or is open to others, leaves the CLI running without one', () => {
    const locked = join(dir, 'locked');
    expect(run(status, join(locked, 'cache')).code).toBe(0);
    chmodSync(locked, 0o500);
    const open = join(dir, 'open');
    expect(run(status, open).code).toBe(0);
    chmodSync(open, 0o777);
    try {
      const expected = run(status, join(dir, 'fresh'));
      expect(run(status, join(locked, 'elsewhere'))).toEqual(expected);
      expect(run(status, open)).toEqual(expected);
    } finally {
      chmodSync(locked, 0o700);
      chmodSync(open, 0o700);
    }
  });

  test("Node 22's own compile cache is turned on only in a folder that is this user's alone", () => {
    // Node 22's module.enableCompileCache, stood in for on any Node by a preload that notes the folders it is handed.
    const preload = join(dir, 'fake-enable-compile-cache.cjs');
    const calls = join(dir, 'enable-calls.txt');
    writeFileSync(preload, `require('node:module').enableCompileCache = (d) => { require('node:fs').appendFileSync(${JSON.stringify(calls)}, d + '\\n'); return { status: 0 }; };\n`);
    const own = join(dir, 'node22-own');
    const shared = join(dir, 'node22-shared');
    mkdirSync(shared, { mode: 0o700 });
    chmodSync(shared, 0o777);
    try {
      const expected = run(status, own, {}, ['--require', preload]);
      expect(expected.code, expected.stderr).toBe(0);
      expect(run(status, shared, {}, ['--require', preload])).toEqual(expected);
    } finally {
      chmodSync(shared, 0o700);
    }
    expect(readFileSync(calls, 'utf8')).toBe(`${own}\n`);
  });
});

describe('installs that share a cache folder', () => {
  // V8 keeps a script's file name in its code cache: read by another install of the same build, a cache would name the
  // first install's files in every stack trace of the second.
  test('each names its own files in a stack trace', () => {
    const dir = tempDir('runledger-two-installs-');
    const cache = join(dir, 'cache');
    const root = resolve(BIN, '../..');
    const installs = ['one', 'two'].map((name) => {
      const at = join(dir, name);
      for (const part of ['package.json', 'bin', 'dist/cli']) cpSync(join(root, part), join(at, part), { recursive: true });
      symlinkSync(join(root, 'node_modules'), join(at, 'node_modules'));
      return at;
    });
    // The stack of the CLI's first write to stdout, from inside its bundle (preloaded, so the bundle takes this writeSync).
    const preload = join(dir, 'stack-of-first-write.cjs');
    writeFileSync(preload, "const fs = require('node:fs'); const write = fs.writeSync; let told = false;\nfs.writeSync = function (fd, ...rest) { if (fd === 1 && !told) { told = true; write.call(fs, 2, `${new Error('stack').stack}\\n`); } return write.call(fs, fd, ...rest); };\n");
    const stackOf = (install: string) => {
      // Into a file: the CLI writes a file with fs.writeSync (a pipe from spawnSync is a socket, written by its stream).
      const out = openSync(join(dir, 'out.txt'), 'w');
      const r = spawnSync(process.execPath, ['-r', preload, join(install, 'bin/runledger.js'), '--db', join(dir, 'l.db'), '--now', NOW, 'status'], {
        encoding: 'utf8',
        stdio: ['ignore', out, 'pipe'],
        env: { ...(process.env as Record<string, string>), NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '' },
      });
      closeSync(out);
      expect(r.status, r.stderr).toBe(0);
      return r.stderr.split('\n').filter((line) => line.includes('/dist/cli/'));
    };
    const [one, two] = installs as [string, string];
    expect(run(['--db', join(dir, 'l.db'), '--now', NOW, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02'], cache).code).toBe(0);
    stackOf(one);
    expect(stackOf(one).length).toBeGreaterThan(0);
    const second = stackOf(two);
    expect(second.length).toBeGreaterThan(0);
    for (const line of second) expect(line).toContain(`${two}/dist/cli/`);
  });
});
