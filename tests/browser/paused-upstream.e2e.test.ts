import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cli } from '../runner/cli-helpers.js';
import { BIN, servingAddress, tempDir } from '../support/run-cli.js';
import { haveBrowser, launchChromium, screenshot } from '../support/chromium.js';

/**
 * Issue 40 item 2 in headless Chromium against a real `runledger serve`: a paused upstream (raw) and the pipeline that
 * waits for it (daily). The overview and raw's page say "paused since … by … — reason"; daily's pending list names the
 * paused upstream as why its dates wait. Then `unpause` and `catchup --all` (the CLI) run both in order, and the pages
 * no longer say paused. Screenshots go to test-output/screenshots/paused-*.png with RUNLEDGER_TEST_SCREENSHOTS=1.
 */

const NOW = '2026-11-04T01:00:00Z';
const PAUSED = 'paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage';

describe.skipIf(!haveBrowser)('a paused upstream in Chromium', () => {
  let browser: Browser;
  let server: ChildProcess;
  let base = '';
  let dir = '';
  let run: (args: string[], actor?: string) => ReturnType<typeof cli>;

  beforeAll(async () => {
    dir = tempDir('runledger-browser-paused-');
    const env = (actor: string) => ({ RUNLEDGER_DB: join(dir, 'l.db'), RUNLEDGER_NOW: NOW, RUNLEDGER_ACTOR: actor });
    run = (args, actor = 'ana') => cli(dir, args, env(actor));
    // The fleet of tests/cli/pause-retire.e2e.test.ts: raw (daily), and daily that waits for raw, each appending to out.txt.
    expect(run(['define', 'raw', '--schedule', '@daily', '--start', '2026-11-02', '--command', '--', 'sh', '-c', 'echo raw {date} >> out.txt']).code).toBe(0);
    expect(run(['define', 'daily', '--schedule', '@daily', '--start', '2026-11-02', '--upstream', 'raw', '--command', '--', 'sh', '-c', 'echo daily {date} >> out.txt']).code).toBe(0);
    expect(run(['pause', 'raw', '--reason', 'vendor outage']).code).toBe(0);
    server = spawn(process.execPath, [BIN, '--db', join(dir, 'l.db'), 'serve', '--port', '0'], { env: { ...process.env, ...env('ana') } });
    base = await servingAddress(server);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const pausedLines = (page: Page, scope: string) => page.locator(`${scope} [data-fact="paused"]`).allTextContents();

  test('overview and pipeline page say who paused raw, when and why; daily waits for it; after unpause and catchup --all neither says paused', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/`);
    expect(await pausedLines(page, 'tr[data-pipeline="raw"]')).toEqual([PAUSED]);
    expect(await pausedLines(page, 'tr[data-pipeline="daily"]')).toEqual([]);
    await screenshot(page, 'paused-overview.png', { fullPage: true });

    await page.goto(`${base}/pipelines/raw`);
    expect(await pausedLines(page, 'body')).toEqual([PAUSED]);
    await screenshot(page, 'paused-pipeline.png', { fullPage: true });

    // daily is not paused itself; its pending dates wait for raw's, and say raw is paused.
    await page.goto(`${base}/pipelines/daily`);
    expect(await pausedLines(page, 'body')).toEqual([]);
    const details = await page.locator('td[data-detail="upstream"]').allTextContents();
    expect(details).toEqual([`waits for raw 2026-11-02 (missing; raw is ${PAUSED})`, `waits for raw 2026-11-03 (missing; raw is ${PAUSED})`]);
    await screenshot(page, 'paused-downstream.png', { fullPage: true });

    expect(run(['unpause', 'raw'], 'bo').stdout).toBe('raw: active\n');
    const both = run(['catchup', '--all']);
    expect(both.code, both.stderr).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('raw 2026-11-02\nraw 2026-11-03\ndaily 2026-11-02\ndaily 2026-11-03\n');

    await page.goto(`${base}/`);
    expect(await page.locator('[data-fact="paused"]').count()).toBe(0);
    await page.goto(`${base}/pipelines/raw`);
    expect(await page.locator('[data-fact="paused"]').count()).toBe(0);
    expect(await page.locator('body').textContent()).not.toContain('paused since');
    await page.goto(`${base}/pipelines/daily`);
    expect(await page.locator('td[data-detail="upstream"]').count()).toBe(0);
    expect(await page.locator('.cal [data-date="2026-11-03"]').getAttribute('class')).toMatch(/\bs-success\b/);
    await screenshot(page, 'paused-after-unpause.png', { fullPage: true });
    await page.close();
  }, 60_000);
});
