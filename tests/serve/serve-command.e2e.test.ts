import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, cli, tempDir, servingAddress } from '../support/run-cli.js';

describe('runledger serve', () => {
  test('refuses an address off this machine without a token, and writes nothing', () => {
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const r = cli(['--db', db, 'serve', '--host', '0.0.0.0', '--port', '0'], { RUNLEDGER_TOKEN: '' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--host 0.0.0.0 lets other machines in; give --token');
  });

  test('refuses a port out of range', () => {
    const r = cli(['--db', join(tempDir(), 'l.db'), 'serve', '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--port must be at most 65535');
  });

  test('a missing ledger is not found (exit 4), not created', () => {
    const r = cli(['--db', join(tempDir(), 'none.db'), 'serve', '--port', '0']);
    expect(r.code).toBe(4);
  });

  test('serves until SIGTERM, then exits 0', async () => {
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const address = await servingAddress(child);
    const health = await (await fetch(`${address}/api/health`)).json();
    expect(health).toMatchObject({ ok: true, head: { position: 1 } });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
