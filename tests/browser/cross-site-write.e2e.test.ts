import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { BIN, servingAddress, tempDir } from '../support/run-cli.js';
import { haveBrowser, launchChromium } from '../support/chromium.js';

/**
 * A page served from another port on this machine is the same site as
 * `serve`, so a browser sends it `serve`'s SameSite=Strict cookie. It tries
 * to record a success with that cookie — by fetch and by a form, both with
 * an empty body so no content-type rule stops them — after the
 * user opened the ledger with the read token, and after the user (wrongly)
 * opened it with the write token in the address. Both must fail: writes take
 * the write token as a bearer header only.
 */

const NOW = '2026-11-05T01:00:00+07:00';
const READ = 'read-token-0123456789abcdef';
const WRITE = 'write-token-0123456789abcdef';

describe.skipIf(!haveBrowser)('a cross-site write from another loopback port', () => {
  let browser: Browser;
  let server: ChildProcess;
  let attacker: Server;
  let base = '';
  let attackerBase = '';
  let dir = '';
  let db = '';
  let runId = '';

  beforeAll(async () => {
    dir = tempDir('runledger-csrf-');
    db = join(dir, 'runledger.db');
    const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'setup' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
    runId = (await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02', leaseMs: 24 * 3600_000 })).runId;
    await ledger.close();
    server = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--token', READ, '--write-token', WRITE], { env: { ...process.env, RUNLEDGER_NOW: NOW } });
    base = await servingAddress(server);
    const target = `${base}/api/runs/${runId}/succeed`;
    const page = `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${target}" target="sink"></form>
<script>
  (async () => {
    const results = [];
    // An empty body passes any content-type rule: only the token rule stands between this page and a write.
    try {
      const res = await fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include' });
      results.push('fetch: ' + res.type);
    } catch (e) {
      results.push('fetch failed: ' + e.message);
    }
    document.querySelector('iframe').addEventListener('load', () => { document.title = 'done'; window.results = results; });
    document.getElementById('f').submit();
  })();
</script></body></html>`;
    attacker = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const address = attacker.address();
    attackerBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const runStatus = async () => {
    const res = await fetch(`${base}/api/pipelines/etl_orders/state`, { headers: { authorization: `Bearer ${READ}` } });
    const state = (await res.json()) as { dates: Array<{ date: string; status: string }> };
    return state.dates.find((d) => d.date === '2026-11-02')?.status;
  };

  test.each([
    ['the read token', READ, true],
    ['the write token (a mistake the server refuses)', WRITE, false],
  ])('after opening the ledger with %s in the address, the attacking page records nothing', async (_label, token, cookieSet) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/pipelines/etl_orders?token=${token}`);
      await page.goto(`${attackerBase}/`);
      await page.waitForFunction('document.title === "done"', undefined, { timeout: 15_000 });
      expect(await runStatus()).toBe('running');
      const cookies = await context.cookies(base);
      expect(cookies.some((c) => c.name === 'runledger_token')).toBe(cookieSet);
      if (cookieSet) expect(cookies.find((c) => c.name === 'runledger_token')).toMatchObject({ value: READ, httpOnly: true, sameSite: 'Strict', path: '/' });
    } finally {
      await context.close();
    }
  });
});
