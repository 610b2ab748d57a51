import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { BIN, cli, servingAddress, tempDir } from '../support/run-cli.js';
import { haveBrowser, launchChromium, screenshot } from '../support/chromium.js';

/**
 * The statuses run control adds, in headless Chromium against a real `runledger serve` and in `report --html`:
 * a date marked skipped and one waiting for its retry, each with its own colour, legend entry and tooltip, and
 * the pending list saying "attempt 2 of 3, next at …" and "waiting for previous". Screenshots go to
 * test-output/screenshots/run-control-*.png with RUNLEDGER_TEST_SCREENSHOTS=1.
 */

const NOW = '2026-11-08T01:00:00+07:00';
const env = { RUNLEDGER_NOW: NOW, RUNLEDGER_ACTOR: 'bob' };

describe.skipIf(!haveBrowser)('run-control statuses in Chromium', () => {
  let browser: Browser;
  let server: ChildProcess;
  let base = '';
  let dir = '';
  let db = '';

  beforeAll(async () => {
    dir = tempDir('runledger-browser-rc-');
    db = join(dir, 'runledger.db');
    const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'alice' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', dependsOnPast: true });
    const ok = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
    await ledger.succeed({ runId: ok.runId, metrics: { rows: 7 } });
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: 'holiday: the shop was closed' });
    const flaky = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-04' });
    await ledger.fail({ runId: flaky.runId, error: 'source not ready', retry: { attempt: 2, maxAttempts: 3, delayMs: 300_000 } });
    await ledger.close();
    server = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0'], { env: { ...process.env, ...env } });
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

  test('the pipeline page draws skipped and up for retry in their own colours, with the mark and the retry in the tooltip and the pending list', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/pipelines/etl_orders`);
    const cell = (date: string) => page.locator(`.cal [data-date="${date}"]`);
    expect(await cell('2026-11-02').getAttribute('class')).toMatch(/\bs-success\b/);
    expect(await cell('2026-11-03').getAttribute('class')).toMatch(/\bs-skipped\b/);
    expect(await cell('2026-11-04').getAttribute('class')).toMatch(/\bs-up_for_retry\b/);
    expect(await cell('2026-11-03').getAttribute('title')).toBe('2026-11-03: skipped · complete through · marked skipped by alice: holiday: the shop was closed');
    expect(await cell('2026-11-04').getAttribute('title')).toBe('2026-11-04: up for retry · attempt 2 of 3, next at 2026-11-08T01:05:00+07:00 · source not ready');
    const colour = (date: string) => cell(date).evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
    // Each status its own colour: skipped pink, up for retry orange, apart from success, failed and missing.
    expect(await colour('2026-11-03')).toBe('rgb(232, 90, 173)');
    expect(await colour('2026-11-04')).toBe('rgb(240, 140, 0)');
    expect(await page.locator('.legend').textContent()).toContain('skipped');
    expect(await page.locator('.legend').textContent()).toContain('up for retry');
    expect(await page.locator('[data-fact="complete-through"]').textContent()).toBe('2026-11-03');
    expect(await page.locator('td[data-detail="up_for_retry"]').textContent()).toBe('attempt 2 of 3, next at 2026-11-08T01:05:00+07:00');
    // The error has its own column, as in the CLI's pending table.
    expect(await page.locator('table.pending tr', { has: page.locator('td[data-detail="up_for_retry"]') }).locator('.err').textContent()).toBe('source not ready');
    expect(await page.locator('td[data-detail="waitingForPrevious"]').first().textContent()).toBe('waits for 2026-11-04');
    expect(await page.locator('.badge.b-other', { hasText: 'waiting for previous' }).count()).toBeGreaterThan(0);
    expect(await page.locator('.runs [data-retry="2"]').textContent()).toBe('retried: attempt 2 of 3');
    await screenshot(page, 'run-control-pipeline.png', { fullPage: true });
    await page.goto(`${base}/`);
    expect(await page.locator('tr[data-pipeline="etl_orders"] .strip .s-skipped').count()).toBe(1);
    expect(await page.locator('tr[data-pipeline="etl_orders"] .strip .s-up_for_retry').count()).toBe(1);
    expect(await page.locator('tr[data-pipeline="etl_orders"]').textContent()).toContain('1 up for retry');
    await screenshot(page, 'run-control-overview.png', { fullPage: true });
    await page.close();
  });

  test('report --html shows the same statuses, offline', async () => {
    const out = join(dir, 'report.html');
    expect(cli(['--db', db, 'report', '--html', out], env).code).toBe(0);
    const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`file://${out}`);
    expect(await page.locator('#pipeline-etl_orders .cal [data-date="2026-11-03"]').getAttribute('class')).toMatch(/\bs-skipped\b/);
    expect(await page.locator('#pipeline-etl_orders .cal [data-date="2026-11-04"]').getAttribute('class')).toMatch(/\bs-up_for_retry\b/);
    await screenshot(page, 'run-control-report.png', { fullPage: true });
    await context.close();
  });

  test('the terminal calendar has a glyph and a legend entry for each', () => {
    const r = cli(['--db', db, 'state', 'etl_orders', '--calendar'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^2026-11 .*■ – ↻ □ □ □/m);
    expect(r.stdout).toContain('– skipped');
    expect(r.stdout).toContain('↻ up for retry');
    expect(r.stdout).toContain('(1 success, 1 skipped, 1 up for retry, 3 missing)');
  });
});
