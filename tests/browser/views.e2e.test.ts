import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { BIN, servingAddress, tempDir } from '../support/run-cli.js';
import { haveBrowser, launchChromium, screenshot } from '../support/chromium.js';

/**
 * The web view in Chromium at 1,400 and 390 px: calendars that align (an
 * off-schedule run, a fall-back DST day), one status everywhere, the chart's
 * axis, date pages, the whole-history strip of ~90,000 hourly slots, the task
 * × date grid, overview filters, narrow screens, long names and the zone
 * toggle. Screenshots go to test-output/screenshots/web-*.png with RUNLEDGER_TEST_SCREENSHOTS=1.
 */

const NOW = '2026-11-28T12:00:00+07:00';
const LONG = `warehouse_${'x'.repeat(90)}`;
const WIDTHS = [1400, 390] as const;

describe.skipIf(!haveBrowser)('the web view in Chromium: alignment, status, chart, date pages, strip, filters, narrow screens', () => {
  let browser: Browser;
  let server: ChildProcess;
  let base = '';
  let dir = '';
  let stalledRun = '';

  beforeAll(async () => {
    dir = tempDir('runledger-views-');
    const db = join(dir, 'runledger.db');
    let now = Date.parse('2026-11-20T12:00:00+07:00');
    const ledger = await openLedger({ db, clock: () => now, actor: 'setup' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-10-01', timezone: 'Asia/Jakarta' });
    const logPath = join(dir, 'etl_orders-2026-11-25.log');
    writeFileSync(logPath, 'reading raw/orders-2026-11-25.csv\nError: raw file missing\n');
    const sha256 = createHash('sha256').update('reading raw/orders-2026-11-25.csv\nError: raw file missing\n').digest('hex');
    now = Date.parse(NOW);
    for (let day = 1; day <= 27; day++) {
      const date = `2026-11-${String(day).padStart(2, '0')}`;
      const run = await ledger.start({ pipeline: 'etl_orders', date, runType: 'backfill', leaseMs: 3600_000 });
      if (day === 25) await ledger.fail({ runId: run.runId, error: 'raw file missing\n    at load (etl.py:12)', log: { path: logPath, sha256 } });
      else if (day === 27) stalledRun = run.runId;
      else await ledger.succeed({ runId: run.runId, metrics: { rows: day } });
    }
    await ledger.start({ pipeline: 'etl_orders', date: '2026-11-26T12:00:00+07:00', runType: 'manual', leaseMs: 24 * 3600_000 });
    await ledger.define({ pipeline: 'ny_hourly', schedule: '@hourly', start: '2016-08-01T00:00:00-04:00', timezone: 'America/New_York' });
    for (const date of ['2026-11-01T00:00:00-04:00', '2026-11-01T01:00:00-04:00', '2026-11-01T01:00:00-05:00', '2026-11-01T02:00:00-05:00']) {
      const run = await ledger.start({ pipeline: 'ny_hourly', date, runType: 'backfill' });
      await ledger.succeed({ runId: run.runId });
    }
    const failedHour = await ledger.start({ pipeline: 'ny_hourly', date: '2020-03-01T05:00:00-05:00', runType: 'backfill' });
    await ledger.fail({ runId: failedHour.runId, error: 'upstream API 500' });
    await ledger.define({ pipeline: 'tasks_demo', schedule: '@daily', start: '2026-11-20', timezone: 'UTC', tasks: [{ id: 'extract' }, { id: 'transform', upstream: ['extract'] }, { id: 'load', upstream: ['transform'] }] });
    for (const [date, states] of [['2026-11-25', ['success', 'success', 'success']], ['2026-11-26', ['success', 'failed', 'upstream_failed']], ['2026-11-27', ['success', 'running', null]]] as const) {
      const run = await ledger.start({ pipeline: 'tasks_demo', date, runType: 'backfill' });
      for (const [i, task] of ['extract', 'transform', 'load'].entries()) if (states[i]) await ledger.task({ runId: run.runId, taskId: task, state: states[i] as string, ...(states[i] === 'failed' ? { error: 'bad row 17' } : {}) });
    }
    await ledger.define({ pipeline: LONG, schedule: '@daily', start: '2026-11-20', timezone: 'UTC' });
    const longRun = await ledger.start({ pipeline: LONG, date: '2026-11-21', runType: 'backfill' });
    await ledger.fail({ runId: longRun.runId, error: 'a long error message that goes on and on about what went wrong in the warehouse load step' });
    await ledger.close();
    server = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0'], { env: { ...process.env, RUNLEDGER_NOW: '2026-11-28T14:00:00+07:00' } });
    base = await servingAddress(server);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(path: string, width: number, name: string, options: { timezoneId?: string } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}) });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
    });
    await page.goto(`${base}${path}`);
    await screenshot(page, `web-${name}-${width}.png`, { fullPage: true });
    // The first screen alone too: what a person sees before scrolling.
    await screenshot(page, `web-${name}-${width}-top.png`);
    expect(errors, 'no CSP violations or script errors').toEqual([]);
    return page;
  }
  const x = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())?.x ?? Number.NaN;

  test.each(WIDTHS)('9. at %i px a cell is under its day: the off-schedule run and the repeated hour are marked on their cells', async (width) => {
    const page = await open('/pipelines/etl_orders', width, 'calendar-daily');
    const november = page.locator('.cal-row', { has: page.locator('.lbl', { hasText: '2026-11' }) });
    expect(await november.locator('.c:not(.s-none)').count()).toBe(30);
    expect(await x(page, '.cal [data-date="2026-11-27"]')).toBe(await x(page, '.cal [data-date="2026-10-27"]'));
    expect(await page.locator('.cal [data-date="2026-11-26"] .x[data-extra="off-schedule"]').count()).toBe(1);
    await page.context().close();

    const ny = await open('/pipelines/ny_hourly', width, 'calendar-hourly-dst');
    const day = ny.locator('.cal-row', { has: ny.locator('.lbl', { hasText: '2026-11-01' }) });
    expect(await day.locator('.c:not(.s-none)').count()).toBe(24);
    expect(await x(ny, '.cal [data-date="2026-11-01T02:00:00-05:00"]')).toBe(await x(ny, '.cal [data-date="2026-11-02T02:00:00-05:00"]'));
    expect(await ny.locator('.cal [data-date="2026-11-01T01:00:00-04:00"] .x[data-extra="repeated-hour"]').count()).toBe(1);
    await ny.context().close();
  });

  test('10. a stalled run says stalled in the runs table; in flight agrees with the overview', async () => {
    const page = await open('/pipelines/etl_orders', 1400, 'status');
    const row = page.locator('table.runs tr', { has: page.locator(`a:text-is("${stalledRun}")`) });
    expect(await row.locator('.badge').textContent()).toBe('stalled');
    expect(await page.locator('.cal [data-date="2026-11-27"]').getAttribute('class')).toContain('s-stalled');
    const inFlight = await page.locator('.facts span', { hasText: 'In flight' }).textContent();
    await page.goto(`${base}/`);
    const overviewInFlight = await page.locator('tr[data-pipeline="etl_orders"] td').nth(7).textContent();
    expect(inFlight).toBe(`In flight ${overviewInFlight}`);
    expect(overviewInFlight).toBe('1');
    await page.context().close();
  });

  test('11. the chart runs along the logical date and its labels stay inside it', async () => {
    const page = await open('/pipelines/etl_orders', 1400, 'chart');
    const svg = await page.locator('svg.chart').boundingBox();
    expect(svg).not.toBeNull();
    for (const label of await page.locator('svg.chart text').all()) {
      const box = await label.boundingBox();
      expect(box && svg && box.x >= svg.x - 0.5 && box.x + box.width <= svg.x + svg.width + 0.5, await label.textContent() ?? '').toBe(true);
    }
    expect(await page.locator('svg.chart text.x-label').allTextContents()).toEqual(['2026-11-01', '2026-11-26']);
    await page.context().close();
  });

  test.each(WIDTHS)('12. at %i px a calendar cell leads to its date page: attempts, the log and the error', async (width) => {
    const page = await open('/pipelines/etl_orders', width, 'pending-errors');
    expect(await page.locator('table.pending th').allTextContents()).toContain('Error');
    expect(await page.locator('table.pending tr', { hasText: '2026-11-25' }).locator('.err').textContent()).toBe('raw file missing');
    await page.locator('.cal [data-date="2026-11-25"]').click();
    await page.waitForURL(/\/pipelines\/etl_orders\/dates\/2026-11-25$/);
    await screenshot(page, `web-date-page-${width}.png`, { fullPage: true });
    expect(await page.locator('h1').textContent()).toContain('2026-11-25');
    expect(await page.locator('pre.log').textContent()).toContain('Error: raw file missing');
    expect(await page.locator('table.runs .badge').first().textContent()).toBe('failed');
    await page.context().close();
  });

  test.each(WIDTHS)('12. at %i px the whole history of ~90,000 hourly slots fits one strip; a click narrows the calendar', async (width) => {
    const page = await open('/pipelines/ny_hourly', width, 'history-strip');
    const strip = page.locator('.hstrip');
    expect(Number(await strip.getAttribute('data-dates'))).toBeGreaterThan(89_000);
    expect(await strip.locator('a').count()).toBe(600);
    expect(await strip.locator('a.s-failed').count()).toBe(1);
    const box = await strip.boundingBox();
    expect(box && box.x + box.width <= width).toBe(true);
    // A column is under 2 px wide, too thin for a pointer to land on reliably in a test: click it as an element.
    expect(await strip.locator('a.s-failed').boundingBox()).not.toBeNull();
    await strip.locator('a.s-failed').dispatchEvent('click');
    await page.waitForURL(/from=/);
    await screenshot(page, `web-history-strip-narrowed-${width}.png`);
    expect(await page.locator('.range').textContent()).toContain('Showing 2020-');
    expect(await page.locator('.cal .s-failed[data-date="2020-03-01T05:00:00-05:00"]').count()).toBe(1);
    await page.context().close();
  });

  test('12. pipelines with tasks get a task × date grid', async () => {
    const page = await open('/pipelines/tasks_demo', 1400, 'task-grid');
    const rows = page.locator('table.tgrid tbody tr');
    expect(await rows.locator('th').allTextContents()).toEqual(['extract', 'transform', 'load']);
    expect(await page.locator('table.tgrid a[data-task="transform"][data-date="2026-11-26"]').getAttribute('class')).toBe('t t-failed');
    expect(await page.locator('table.tgrid a[data-task="load"][data-date="2026-11-26"]').getAttribute('class')).toBe('t t-upstream_failed');
    await page.context().close();
  });

  test('12. the overview filters by status and by name', async () => {
    const page = await open('/?status=failed', 1400, 'overview-filtered');
    expect((await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pipeline')))).sort()).toEqual(['etl_orders', 'ny_hourly', 'tasks_demo', LONG].sort());
    expect(await page.locator('tbody .badge').allTextContents()).toEqual(['failed', 'failed', 'failed', 'failed']);
    await page.fill('input[name="q"]', 'ny_');
    await page.click('form.filters button');
    await page.waitForURL(/q=ny_/);
    expect(await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pipeline')))).toEqual(['ny_hourly']);
    await page.context().close();
  });

  test.each(WIDTHS)('13. at %i px the overview shows status, lag and pending of every pipeline, and a long name does not push columns off', async (width) => {
    const page = await open('/', width, 'overview');
    for (const row of await page.locator('tbody tr').all()) {
      for (const cell of [row.locator('.badge').first(), row.locator('[data-fact="lag"]'), row.locator('[data-fact="pending"]')]) {
        const box = await cell.boundingBox();
        expect(box, await row.getAttribute('data-pipeline') ?? '').not.toBeNull();
        expect(box && box.x + box.width <= width + 0.5).toBe(true);
      }
    }
    if (width === 1400) {
      const header = await page.locator('th', { hasText: 'Last failure' }).boundingBox();
      expect(header && header.x + header.width <= 1400).toBe(true);
    }
    await page.context().close();
  });

  test('13. a toggle shows times in the browser zone and back', async () => {
    const page = await open('/pipelines/etl_orders', 1400, 'zone-toggle', { timezoneId: 'Europe/Paris' });
    const first = page.locator('table.runs time').first();
    const pipelineText = await first.textContent();
    expect(pipelineText).toMatch(/\+07:00$/);
    await page.click('#zone');
    expect(await first.textContent()).toMatch(/\+01:00$/);
    expect(await page.locator('#zone').textContent()).toBe('Times: Europe/Paris (yours)');
    await screenshot(page, 'web-zone-toggle-browser-1400.png');
    await page.click('#zone');
    expect(await first.textContent()).toBe(pipelineText);
    await page.context().close();
  });
});
