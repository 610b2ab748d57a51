import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
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

  test.each([
    ['--token a --write-token a', ['--token', 'a', '--write-token', 'a'], '--token is 1 character long; use at least 16'],
    ["--token ' '", ['--token', ' '], '--token holds spaces'],
    ['a write token equal to the read token', ['--token', 'same-token-0123456789', '--write-token', 'ci=same-token-0123456789'], '--write-token ci=… is the read token'],
  ])('refuses weak tokens (%s) with exit 2 and one line', (_label, args, message) => {
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const r = cli(['--db', db, 'serve', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
  });

  test('answers only the names it is bound to and each --allowed-host; a named writer is recorded as http:NAME', async () => {
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const token = 'ci-token-0123456789abcdef';
    const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--allowed-host', 'ledger.example.com', '--write-token', `ci=${token}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const address = await servingAddress(child);
      const { port } = new URL(address);
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path: '/api/health', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await status(`127.0.0.1:${port}`)).toBe(200);
      expect(await status(`localhost:${port}`)).toBe(200);
      expect(await status(`ledger.example.com`)).toBe(200);
      expect(await status(`evil.example:${port}`)).toBe(421);
      const started = await fetch(`${address}/api/pipelines/p/runs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ date: '2026-11-01' }) });
      expect(started.status).toBe(201);
    } finally {
      const exit = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exit;
    }
    const log = JSON.parse(cli(['--db', db, 'log', 'p', '--json']).stdout) as { events: Array<{ type: string; metadata: { actor: string } }> };
    expect(log.events.at(-1)).toMatchObject({ type: 'RunStarted', metadata: { actor: 'http:ci' } });
  });

  test('refuses a port out of range', () => {
    const r = cli(['--db', join(tempDir(), 'l.db'), 'serve', '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--port must be at most 65535');
  });

  test('refuses a body limit that is not a size, or outside 1KB to 64MB', () => {
    for (const limit of ['lots', '512', '65MB']) {
      const r = cli(['--db', join(tempDir(), 'l.db'), 'serve', '--port', '0', '--body-limit', limit]);
      expect(r.code, limit).toBe(2);
      expect(r.stderr.trim().split('\n'), limit).toHaveLength(1);
      expect(r.stderr, limit).toContain('--body-limit');
    }
  });

  test('a success whose metrics pass 1 MB is refused with 413 by default, and taken under --body-limit 4MB', async () => {
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01', '--max-metrics-bytes', '4MB']);
    const body = JSON.stringify({ metrics: { blob: 'x'.repeat(2 * 1024 * 1024) } });
    for (const [args, status] of [[[], 413], [['--body-limit', '4MB'], 200]] as const) {
      const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--write-token', 'w-0123456789abcdef', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        const address = await servingAddress(child);
        const headers = { authorization: 'Bearer w-0123456789abcdef', 'content-type': 'application/json' };
        const started = await fetch(`${address}/api/pipelines/p/runs`, { method: 'POST', headers, body: JSON.stringify({ date: '2026-11-01', type: 'manual', lease: '1h' }) });
        expect(started.status).toBe(201);
        const { runId } = (await started.json()) as { runId: string };
        if (status === 413) {
          // Refused on its Content-Length alone, before any of the body is read; the server then closes the
          // connection, so a client still writing the body may see the close before the answer (as fetch does).
          const refused = await answerToHeaders(`${address}/api/runs/${runId}/succeed`, headers, Buffer.byteLength(body));
          expect(refused.status).toBe(413);
          expect((JSON.parse(refused.body) as { error: { code: string } }).error.code).toBe('input.bodyTooLarge');
          await fetch(`${address}/api/runs/${runId}/fail`, { method: 'POST', headers, body: JSON.stringify({ error: 'too large' }) });
        } else {
          const done = await fetch(`${address}/api/runs/${runId}/succeed`, { method: 'POST', headers, body });
          expect(done.status, args.join(' ')).toBe(status);
        }
      } finally {
        const exit = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        await exit;
      }
    }
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

/** A POST's answer to its headers alone (the body announced by Content-Length, never sent). */
function answerToHeaders(url: string, headers: Record<string, string>, length: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(length) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
