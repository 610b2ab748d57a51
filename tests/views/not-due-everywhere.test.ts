import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { cli, tempDir } from '../support/run-cli.js';

// A date whose slot is not due yet is `not-due` in every view, never `missing` and never counted as missing:
// `state` (table, calendar, --json), the JSON API and the pages of `serve`, `report` and `status`. Pending already
// left them out; a range that reaches past now (`--to`, `?to=`) is where the other views used to call them missing.
// Asia/Bangkok daily from 2026-11-01, one success on 11-02, at 01:00 on 11-07: 11-01 and 11-03..11-06 are due and
// missing (5), 11-07 onwards is not due (11-07's slot runs after midnight on 11-08).

const NOW = '2026-11-07T01:00:00+07:00';
const MISSING = ['2026-11-01', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06'];
const NOT_DUE = ['2026-11-07', '2026-11-08', '2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12'];
let db: string;
let ledger: Ledger;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  db = join(tempDir('runledger-not-due-'), 'ledger.db');
  ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'alice' });
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-01', timezone: 'Asia/Bangkok' });
  const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02' });
  await ledger.succeed({ runId: run.runId });
  app = await createServer({ ledger, clock: () => Date.parse(NOW) });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

const run = (...args: string[]) => {
  const r = cli(['--db', db, '--now', NOW, ...args]);
  expect(r.stderr.replace(/^runledger: the clock is fixed.*\n/m, '').replace(/^wrote .*\n/m, ''), args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.stdout;
};

describe('state over a range past now', () => {
  test('the table says not-due for dates not due, missing only for due ones', () => {
    const table = run('state', 'etl_orders', '--to', '2026-11-12', '--table');
    for (const date of MISSING) expect(table).toMatch(new RegExp(`^${date} +missing `, 'm'));
    for (const date of NOT_DUE) expect(table).toMatch(new RegExp(`^${date} +not-due `, 'm'));
  });

  test('--json gives them status not-due', () => {
    const json = JSON.parse(run('state', 'etl_orders', '--to', '2026-11-12', '--json')) as { dates: Array<{ date: string; status: string }> };
    const status = Object.fromEntries(json.dates.map((d) => [d.date, d.status]));
    for (const date of MISSING) expect(status[date]).toBe('missing');
    for (const date of NOT_DUE) expect(status[date]).toBe('not-due');
  });

  test('the calendar draws them as not yet due and counts only the due dates as missing, over a whole year too', () => {
    const month = run('state', 'etl_orders', '--to', '2026-11-12', '--calendar');
    expect(month).toContain('2026-11 □ ■ □ □ □ □ · · · · · ·');
    expect(month).toContain('(1 success, 5 missing)');
    const year = run('state', 'etl_orders', '--calendar', '--from', '2026-01-01', '--to', '2026-12-31');
    expect(year).toMatch(/^2026-12 (· ){30}·/m);
    expect(year).toContain('(1 success, 5 missing)');
  });
});

describe('status and report', () => {
  test('status counts the five due dates as missing, nothing more', () => {
    const json = JSON.parse(run('status', '--json')) as { pipelines: Array<{ pending: { total: number; missing: number } }> };
    expect(json.pipelines[0]?.pending).toMatchObject({ total: 5, missing: 5 });
    expect(run('status')).toMatch(/ 5 \(5 missing\) /);
  });

  test('the report draws the rest of the month as not yet due', () => {
    const file = join(tempDir(), 'report.html');
    run('report', '--html', file);
    const html = readFileSync(file, 'utf8');
    for (const date of NOT_DUE) expect(html).toMatch(new RegExp(`class="c s-not-due" data-date="${date}"`));
    for (const date of NOT_DUE) expect(html).not.toMatch(new RegExp(`class="c s-missing[^"]*" data-date="${date}"`));
  });
});

describe('serve over a real socket', () => {
  test('the state API says not-due past now', async () => {
    const res = await fetch(`${base}/api/pipelines/etl_orders/state?to=2026-11-12`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { dates: Array<{ date: string; status: string }> };
    expect(body.dates.filter((d) => d.status === 'missing').map((d) => d.date)).toEqual(MISSING);
    expect(body.dates.filter((d) => d.status === 'not-due').map((d) => d.date)).toEqual(NOT_DUE);
  });

  test('the pipeline page draws future dates as not yet due, even when asked for a range past now', async () => {
    for (const path of ['/pipelines/etl_orders', '/pipelines/etl_orders?from=2026-11-01&to=2026-11-12']) {
      const page = await (await fetch(`${base}${path}`)).text();
      for (const date of NOT_DUE) expect(page, path).toMatch(new RegExp(`class="c s-not-due" data-date="${date}"`));
      for (const date of MISSING) expect(page, path).toMatch(new RegExp(`class="c s-missing" data-date="${date}"`));
    }
  });

  test('the date page of a future date says it is not due', async () => {
    const page = await (await fetch(`${base}/pipelines/etl_orders/dates/2026-11-10`)).text();
    expect(page).toContain('No run of this date yet; it is not due.');
    expect(page).not.toMatch(/s-missing/);
  });
});
