import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { tempDir } from '../support/run-cli.js';

// A page of `serve` costs its window, not the pipeline's history: a minutely pipeline started in 1970 (30 million
// slots) is one page of bounded size and shape, over a real socket. Sizes and counts only: how long a view takes is
// measured by scripts/measure-serve-bounds.mjs, not asserted here (a loaded machine makes any threshold flaky).

const NOW = Date.parse('2026-12-01T00:00:00Z');
const dir = tempDir('runledger-serve-window-');
let ledger: Ledger;
let app: FastifyInstance;
let address: string;

/** How many times `pattern` occurs in `text`. */
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
/** The markup of one `data-part` of a page (up to the next part). */
const part = (html: string, name: string) => html.slice(html.indexOf(`data-part="${name}"`), html.indexOf('data-part=', html.indexOf(`data-part="${name}"`) + 10));
const get = async (path: string) => {
  const res = await fetch(`${address}${path}`);
  return { status: res.status, text: await res.text() };
};

beforeAll(async () => {
  ledger = await openLedger({ db: join(dir, 'ledger.db'), clock: () => NOW, actor: 'test', checkpointAfter: 0 });
  await ledger.define({ pipeline: 'pm', schedule: '* * * * *', start: '1970-01-01' });
  for (const [at, outcome] of [['1970-01-01T00:00:00Z', 'succeed'], ['2025-06-01T12:00:00Z', 'fail'], ['2026-11-30T23:58:00Z', 'succeed']] as const) {
    const run = await ledger.start({ pipeline: 'pm', date: at });
    if (outcome === 'fail') await ledger.fail({ runId: run.runId, error: 'boom' });
    else await ledger.succeed({ runId: run.runId });
  }
  app = await createServer({ ledger, clock: () => NOW });
  address = await app.listen({ host: '127.0.0.1', port: 0 });
}, 30_000);

afterAll(async () => {
  await app?.close();
  await ledger?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the page of a minutely pipeline since 1970, over a real socket', () => {
  test('is one window: a strip of 228 quarters, one day of calendar, 200 pending listed of all, well under 1 MB', async () => {
    const { status, text } = await get('/pipelines/pm');
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(400_000);
    const strip = part(text, 'strip');
    expect(count(strip, /<a class="s-/)).toBe(57 * 4);
    expect(strip).toContain('title="2025 Q2 (131,040 dates): worst failed');
    expect(strip).toContain('href="/pipelines/pm?from=2025-04-01&amp;to=2025-06-30"');
    expect(strip).toContain('a quarter a column');
    const calendar = part(text, 'calendar');
    // One day row of 24 hours, each hour's 59 other minutes counted on one tooltip line; the older days paged.
    expect(count(calendar, /<div class="cal-row">/)).toBe(1);
    expect(count(calendar, /also 59 more slots in this hour/)).toBe(24);
    expect(calendar).toContain('20787 older days not shown: show them');
    const pending = part(text, 'pending');
    expect(count(pending, /<tr><td class="mono">/)).toBe(200);
    const minutes = (Date.parse('2026-11-30T23:59:00Z') - Date.parse('1970-01-01T00:00:00Z')) / 60_000 + 1;
    expect(pending).toContain(`The oldest 200 of ${minutes - 2} pending dates`);
  });

  test("a strip column's link is a page of that quarter's dates, its calendar paged inside it", async () => {
    const { status, text } = await get('/pipelines/pm?from=2025-04-01&to=2025-06-30');
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(400_000);
    expect(text).toContain('Showing 2025-06-30T00:00:00+00:00 … 2025-06-30T23:59:00+00:00');
    const calendar = part(text, 'calendar');
    expect(count(calendar, /<div class="cal-row">/)).toBe(1);
    // The older days of the quarter, never before its first.
    expect(calendar).toContain('90 older days not shown');
    expect(calendar).toContain('from=2025-04-01');
  });

  test('as of an earlier event, the same window from one fold of its events: no refusal of its 30 million slots', async () => {
    // Position 5 is the failure of 2025-06-01; the run of 2026-11-30 came after it.
    const { status, text } = await get('/pipelines/pm?as_of=5');
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(400_000);
    const strip = part(text, 'strip');
    expect(count(strip, /<a class="s-/)).toBe(57 * 4);
    expect(count(strip, /<a class="s-failed"/)).toBe(1);
    expect(strip).toContain('href="/pipelines/pm?from=2025-04-01&amp;to=2025-06-30&amp;as_of=5"');
    expect(count(part(text, 'calendar'), /<div class="cal-row">/)).toBe(1);
    const pending = part(text, 'pending');
    expect(count(pending, /<tr><td class="mono">/)).toBe(200);
    const minutes = (Date.parse('2026-11-30T23:59:00Z') - Date.parse('1970-01-01T00:00:00Z')) / 60_000 + 1;
    expect(pending).toContain(`The oldest 200 of ${minutes - 1} pending dates`);
  });

  test('the overview as of an earlier event answers with its row counted, not refused for its 30 million slots', async () => {
    const { status, text } = await get('/?as_of=5');
    expect(status).toBe(200);
    const minutes = (Date.parse('2026-11-30T23:59:00Z') - Date.parse('1970-01-01T00:00:00Z')) / 60_000 + 1;
    // The first minute is done, the failure of 2025-06-01 is one pending date, every other minute is missing.
    const row = text.slice(text.indexOf('href="/pipelines/pm?as_of=5"'));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain(`${minutes - 2} missing`);
    expect(row.slice(0, row.indexOf('</tr>'))).toContain('1 failed');
  });

  test('a query parameter no route reads is a 400 naming it and the ones the route takes, before any work', async () => {
    for (const [path, named, takes] of [
      ['/pipelines/pm?x=1', "'x'", 'as_of, from, to, until, limit, runs_before'],
      ['/pipelines/pm?as_off=5&utm_source=mail', "'as_off', 'utm_source'", 'as_of, from'],
      ['/?as_off=5', "'as_off'", 'as_of, status, q'],
      ['/api/status?as_of=5', "'as_of'", 'takes pipeline'],
      ['/audit?page=2', "'page'", 'as_of, before'],
    ] as const) {
      const res = await fetch(`${address}${path}`, { headers: { accept: 'application/json' } });
      const text = await res.text();
      expect(res.status, path).toBe(400);
      expect(text).toContain(`unknown query parameter`);
      expect(text).toContain(named);
      expect(text).toContain(takes);
    }
    // The parameters a route reads, and the read token's, still answer.
    expect((await get('/pipelines/pm?limit=1&token=x')).status).toBe(200);
    expect((await get('/api/status?pipeline=pm')).status).toBe(200);
  });

  test('an old calendar page costs its rows: a day of 1970, and a limit over the cap refused before any work', async () => {
    const old = await get('/pipelines/pm?to=1970-01-02');
    expect(old.status).toBe(200);
    expect(count(part(old.text, 'calendar'), /<div class="cal-row">/)).toBe(1);
    const capped = await get('/pipelines/pm?limit=241');
    expect(capped.status).toBe(400);
    expect(capped.text.split('\n').length).toBe(1);
  });
});

describe('the audit timeline, over a real socket', () => {
  test('is paged newest first: 500 entries a page, the older link continues where the page ends, each entry once', async () => {
    for (let i = 0; i < 540; i++) await ledger.define({ pipeline: `p${String(i).padStart(3, '0')}`, schedule: '@daily', start: '2026-11-01' });
    const first = await get('/audit');
    expect(first.status).toBe(200);
    const rows = (html: string) => [...html.matchAll(/<a href="\/pipelines\/(p\d{3}|pm)"/g)].map((m) => m[1]);
    const newest = rows(first.text);
    expect(newest.length).toBe(500);
    expect(newest[0]).toBe('p539');
    const older = /href="(\/audit\?before=\d+)" rel="prev"/.exec(first.text)?.[1];
    expect(older).toBeDefined();
    const second = await get(older ?? '');
    const rest = rows(second.text);
    // The 40 older definitions and pm's own.
    expect(rest.length).toBe(41);
    expect(rest.at(-1)).toBe('pm');
    expect(new Set([...newest, ...rest]).size).toBe(541);
    expect(second.text).not.toContain('rel="prev"');
    expect(second.text).toContain('data-page="latest"');
  }, 60_000);
});
