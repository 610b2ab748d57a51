import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cli, servingAddress, tempDir } from '../support/run-cli.js';
import { curl, installed, nodeFetch, pythonUrllib, type Client } from '../support/http-clients.js';

// The smaller rules of a server on a network, checked on `runledger serve` itself over a real socket: what it caches,
// what it logs, where write tokens come from, what a write in another type gets, and the authority of an absolute-form
// request line.

const SECRETS = { access_token: 'at-secret-0001', api_key: 'ak-secret-0002', key: 'k-secret-0003', password: 'pw-secret-0004', token: 't-secret-0005' };
const AIRFLOW = 'airflow-0123456789abcdef';
const CI = 'ci-token-0123456789abcdef';
const BEARER = 'bearer-secret-0123456789';

async function withServe<T>(args: string[], env: Record<string, string>, body: (address: string, child: ChildProcess, log: () => string, db: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  const db = join(dir, 'ledger.db');
  cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
  const child = spawn(process.execPath, [BIN, '--db', db, '--now', '2026-11-10T00:00:00Z', 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  try {
    const address = await servingAddress(child);
    return await body(address, child, () => stdout, db);
  } finally {
    const exit = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exit;
  }
}

/** `make` called once, on first use; later calls get its first answer. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The status line and body of a raw request line sent as is (fetch and curl always send origin-form). */
function rawRequest(address: string, line: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(`${line}\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
  });
}

describe('runledger serve over a real socket', () => {
  test('JSON answers, errors and pages carry Cache-Control: no-store; the assets may be kept', async () => {
    await withServe([], {}, async (address) => {
      for (const path of ['/api/health', '/api/pipelines', '/api/pipelines/p/state', '/api/nope', '/metrics', '/']) {
        const res = await fetch(`${address}${path}`);
        await res.arrayBuffer();
        expect(res.headers.get('cache-control'), path).toBe('no-store');
      }
      expect((await fetch(`${address}/assets/app.css`)).headers.get('cache-control')).toBe('no-cache');
    });
  });

  test('--log writes no credential-like query parameter and no Authorization header', async () => {
    await withServe(['--log', '--token', BEARER], {}, async (address, _child, log) => {
      const query = new URLSearchParams({ ...SECRETS, limit: '5' }).toString();
      for (const path of [`/api/pipelines?${query}`, `/pipelines/p?${query}`, `/api/nope?${query}`]) {
        const res = await fetch(`${address}${path}`, { headers: { authorization: `Bearer ${BEARER}`, cookie: `runledger_token=${BEARER}` }, redirect: 'manual' });
        await res.arrayBuffer();
      }
      // Until the three requests are logged (a line is written when its answer is done, so maybe after fetch returned).
      for (let i = 0; i < 1000 && (log().match(/limit=5/g) ?? []).length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const text = log();
      expect(text.match(/limit=5/g)).toHaveLength(3);
      expect(text).toContain('limit=5');
      expect(text).toContain('access_token=[redacted]');
      for (const secret of [...Object.values(SECRETS), BEARER]) expect(text, secret).not.toContain(secret);
    });
  });

  test('named write tokens come from a file or the environment, never the command line, and are recorded as http:NAME', async () => {
    const file = join(tempDir(), 'writers');
    writeFileSync(file, `# the writers of this ledger\nairflow=${AIRFLOW}\n\nci=${CI}\n`, { mode: 0o600 });
    const post = (address: string, token: string, date: string) =>
      fetch(`${address}/api/pipelines/p/runs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ date }) });
    for (const [args, env] of [[['--write-token-file', file], {}], [[], { RUNLEDGER_WRITE_TOKEN_FILE: file }], [[], { RUNLEDGER_WRITE_TOKEN: `airflow=${AIRFLOW} ci=${CI}` }]] as const) {
      await withServe([...args], { ...env }, async (address, child, _log, db) => {
        const statuses = [(await post(address, AIRFLOW, '2026-11-01')).status, (await post(address, CI, '2026-11-02')).status, (await post(address, 'wrong-token-0123456789', '2026-11-03')).status];
        expect(statuses, JSON.stringify(env)).toEqual([201, 201, 401]);
        const log = JSON.parse(cli(['--db', db, 'log', 'p', '--json']).stdout) as { events: Array<{ type: string; metadata: { actor: string } }> };
        expect(log.events.filter((e) => e.type === 'RunStarted').map((e) => e.metadata.actor)).toEqual(['http:airflow', 'http:ci']);
        expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).not.toContain(AIRFLOW);
      });
    }
  });

  test('a write token file with no token is refused with exit 2 and one line', () => {
    const file = join(tempDir(), 'writers');
    writeFileSync(file, '# nobody yet\n');
    const db = join(tempDir(), 'ledger.db');
    cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const r = cli(['--db', db, 'serve', '--port', '0', '--write-token-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('holds no token');
  });

  const writers: Client[] = [nodeFetch, ...(installed('python3') ? [pythonUrllib] : []), ...(installed('curl') ? [curl] : [])];
  // One server for every client: a refused write changes nothing, so each client finds the ledger as it was.
  let release: () => void = () => undefined;
  let serving: Promise<void> | undefined;
  const sharedServe = once(
    () =>
      new Promise<{ address: string; db: string }>((ready, fail) => {
        serving = withServe(['--write-token', CI], {}, (address, _child, _log, db) => {
          ready({ address, db });
          return new Promise<void>((done) => (release = done));
        });
        serving.catch(fail);
      }),
  );
  afterAll(async () => {
    release();
    await serving;
  });
  test.each(writers.map((c) => [c.name, c] as const))('a write in another content type is 415, as documented (%s)', async (_name, client) => {
    const { address, db } = await sharedServe();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await client.post({ url: `${address}/api/pipelines/p/runs`, headers: { authorization: `Bearer ${CI}`, 'content-type': type }, body: JSON.stringify({ date: '2026-11-02' }) });
      expect(res.status, type).toBe(415);
      expect(JSON.parse(res.body).error.code, type).toBe('input.unsupportedMediaType');
    }
    expect((JSON.parse(cli(['--db', db, 'log', 'p', '--json']).stdout) as { events: unknown[] }).events).toHaveLength(1);
  });

  test('an absolute-form request line naming another host is 421, as a Host header naming it is', async () => {
    await withServe([], {}, async (address) => {
      const { port } = new URL(address);
      for (const path of ['/api/health', '/api/pipelines', '/']) {
        const refused = await rawRequest(address, `GET http://evil.example${path} HTTP/1.1`);
        expect(refused.status, path).toBe(421);
        expect(JSON.parse(refused.body).error.code).toBe('auth.hostNotAllowed');
      }
      expect((await rawRequest(address, `GET http://user@evil.example:${port}/api/health HTTP/1.1`)).status).toBe(421);
      expect((await rawRequest(address, `GET http://127.0.0.1:${port}/api/health HTTP/1.1`)).status).toBe(200);
    });
  });
});
