// On Node 20, bin/runledger.js sets two V8 flags (the interrupt budget, the code cache's checksum) through the v8
// binding rather than node:v8, which would load Node's streams stack with it. Asking for that binding makes Node 20
// warn that process.binding is deprecated: the warning is silenced for that call alone, so no command prints it or,
// under --throw-deprecation, dies of it; where the binding is refused (the permission model), node:v8 sets them.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, tempDir } from '../support/run-cli.js';

const run = (nodeArgs: string[], args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { encoding: 'utf8', env: { ...process.env, RUNLEDGER_ACTOR: 'tester', ...env } });

describe('V8 flags set without node:v8', () => {
  test('no deprecation warning reaches stderr, under --throw-deprecation, --pending-deprecation or --no-deprecation (read-only then) alike', () => {
    const db = join(tempDir('runledger-v8-flags-'), 'ledger.db');
    for (const options of ['', '--throw-deprecation', '--pending-deprecation', '--no-deprecation']) {
      const define = run([], ['--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02'], { NODE_OPTIONS: options });
      expect(define.status, define.stderr).toBe(0);
      expect(define.stderr).toBe('');
      const status = run([], ['--db', db, '--now', '2026-11-05T00:00:00Z', 'status'], { NODE_OPTIONS: options });
      expect(status.status, status.stderr).toBe(0);
      expect(status.stderr).toBe('');
      expect(status.stdout).toMatch(/^PIPELINE +SCHEDULE[^\n]*\netl +@daily/);
    }
  });

  test('--no-deprecation given to node itself: every command runs', () => {
    const db = join(tempDir('runledger-v8-flags-'), 'ledger.db');
    const define = run(['--no-deprecation'], ['--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02']);
    expect(define.status, define.stderr).toBe(0);
    const status = run(['--no-deprecation'], ['--db', db, '--now', '2026-11-05T00:00:00Z', 'status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^PIPELINE +SCHEDULE[^\n]*\netl +@daily/);
  });

  test('a process.noDeprecation that is read-only and false (a preload froze it): the command runs', () => {
    const dir = tempDir('runledger-v8-flags-');
    const preload = join(dir, 'frozen.cjs');
    writeFileSync(preload, "Object.defineProperty(process, 'noDeprecation', { value: false, writable: false, configurable: true });\n");
    const define = run(['--require', preload], ['--db', join(dir, 'ledger.db'), 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02']);
    expect(define.status, define.stderr).toBe(0);
    expect(define.stderr).toBe('');
  });

  test.runIf(process.versions.node.startsWith('20.'))('where the permission model refuses the binding, node:v8 sets the flags and the command runs', () => {
    const help = run(['--experimental-permission', '--allow-fs-read=*', '--allow-fs-write=*', '--no-warnings'], ['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: runledger/);
    expect(help.stderr).toBe('');
  });
});
