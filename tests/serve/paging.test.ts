import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';
import { createServer } from '../../src/serve/create-server.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { redefineAsBefore } from '../support/redefine-as-before.js';

/**
 * Long answers of `serve` come a page at a time: the state and runs of the
 * API, the pipeline page's calendar and its runs table. Walking the next
 * links from the first page lists every row of the whole range exactly once,
 * and a limit over the documented cap is refused before anything is read.
 */
const NOW = Date.parse('2026-11-06T01:00:00+07:00');
let ledger: Ledger;
let app: FastifyInstance;

beforeAll(async () => {
  ledger = openMemoryLedger({ clock: () => NOW, actor: 'alice' });
  // Ten days of hours in Jakarta, some of them run (successes, a failure, a clear), and one off-schedule manual run.
  await ledger.define({ pipeline: 'hourly', schedule: '@hourly', start: '2026-10-27', timezone: 'Asia/Jakarta' });
  for (let i = 0; i < 34; i += 1) {
    const hour = new Date(Date.parse('2026-10-27T00:00:00+07:00') + i * 7 * 3_600_000);
    const run = await ledger.start({ pipeline: 'hourly', date: hour.toISOString(), runType: 'backfill' });
    if (i % 9 === 4) await ledger.fail({ runId: run.runId, error: `exit 1 at ${i}` });
    else await ledger.succeed({ runId: run.runId, metrics: { rows: i } });
  }
  await ledger.start({ pipeline: 'hourly', date: '2026-11-02T10:30:00+07:00', runType: 'manual' });
  // Seven years of days: 83 months of calendar.
  await ledger.define({ pipeline: 'daily', schedule: '@daily', start: '2020-01-01', timezone: 'Asia/Jakarta' });
  for (const date of ['2020-01-01', '2023-06-15', '2026-11-04']) {
    const run = await ledger.start({ pipeline: 'daily', date, runType: 'backfill' });
    await ledger.succeed({ runId: run.runId });
  }
  app = await createServer({ ledger, clock: () => NOW });
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

/** Follows `next` from `url` to the end; each page's items. */
async function walk<T>(url: string, items: (body: Record<string, unknown>) => T[]): Promise<{ items: T[]; pages: number }> {
  const all: T[] = [];
  let pages = 0;
  for (let next: string | null = url; next !== null; pages += 1) {
    const res = await app.inject({ url: next });
    expect(res.statusCode, `${next}: ${res.body.slice(0, 200)}`).toBe(200);
    const body = res.json() as Record<string, unknown> & { next: string | null };
    all.push(...items(body));
    next = body.next;
  }
  return { items: all, pages };
}

const dates = (body: Record<string, unknown>) => (body['dates'] as Array<{ date: string }>).map((d) => d.date);

describe('GET /api/pipelines/:p/state, page by page', () => {
  test('the next links walk the whole range exactly once, in order, whatever the page size', async () => {
    const whole = (await ledger.state({ pipeline: 'hourly', to: '2026-11-08' })).dates.map((d) => d.date);
    expect(whole.length).toBeGreaterThan(240);
    expect(whole).toContain('2026-11-02T10:30:00+07:00');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 120 }), async (limit) => {
        const { items, pages } = await walk(`/api/pipelines/hourly/state?to=2026-11-08&limit=${limit}`, dates);
        expect(items).toEqual(whole);
        expect(pages).toBe(Math.ceil(whole.length / limit));
      }),
      { numRuns: 12 },
    );
  });

  test.each(['memory', 'sqlite'] as const)('a pipeline whose keys were recorded under an earlier timetable pages exactly like its whole state (%s)', async (kind) => {
    const dir = tempDir('runledger-paging-');
    const moved = kind === 'memory' ? openMemoryLedger({ clock: () => NOW }) : await openLedger({ db: join(dir, 'ledger.db'), clock: () => NOW });
    await moved.define({ pipeline: 'moved', schedule: '@daily', start: '2026-10-20', timezone: 'America/New_York' });
    for (const date of ['2026-10-21', '2026-10-25', '2026-10-26', '2026-11-01']) {
      const run = await moved.start({ pipeline: 'moved', date });
      await moved.succeed({ runId: run.runId });
    }
    // The same keys now name UTC midnights, four or five hours before the recorded ones.
    await redefineAsBefore(moved, { pipeline: 'moved', schedule: '@daily', start: '2026-10-20', timezone: 'UTC' }, NOW);
    const whole = (await moved.state({ pipeline: 'moved' })).dates.map((d) => d.date);
    for (let limit = 1; limit <= whole.length + 1; limit += 1) {
      const listed: string[] = [];
      let from: string | undefined;
      for (let pages = 0; pages < 100; pages += 1) {
        const page = await moved.state({ pipeline: 'moved', limit, ...(from === undefined ? {} : { from }) });
        listed.push(...page.dates.map((d) => d.date));
        if (!page.nextFrom) break;
        from = page.nextFrom;
      }
      expect(listed, `limit ${limit}`).toEqual(whole);
    }
    await moved.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('without a limit one page holds 1,000 dates, and the next one starts where it ended', async () => {
    const first = await app.inject({ url: '/api/pipelines/hourly/state?to=2027-01-01' });
    const body = first.json() as { dates: Array<{ date: string }>; next: string };
    expect(body.dates).toHaveLength(1000);
    expect(body.next).toBe(`/api/pipelines/hourly/state?to=2027-01-01&from=${encodeURIComponent('2026-12-07T15:00:00+07:00')}`);
    expect(body.dates.at(-1)?.date).toBe('2026-12-07T14:00:00+07:00');
  });

  test('a limit over 10,000 is refused with 400 and the error body before anything is read', async () => {
    const res = await app.inject({ url: '/api/pipelines/no_such_pipeline/state?limit=10001' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'input.limitTooLarge', message: "limit must be at most 10000, not 10001; read the rest page by page with the answer's next link" } });
    expect((await app.inject({ url: '/api/pipelines/hourly/state?limit=0' })).json().error.code).toBe('input.invalidNumber');
  });

  test('the library pages the same way: nextFrom is the from of the next page', async () => {
    const page = await ledger.state({ pipeline: 'daily', limit: 2 });
    expect(page.dates.map((d) => d.date)).toEqual(['2020-01-01', '2020-01-02']);
    expect(page.nextFrom).toBe('2020-01-03');
    expect((await ledger.state({ pipeline: 'daily' })).nextFrom).toBeUndefined();
  });
});

describe('GET /api/pipelines/:p/runs, page by page', () => {
  test('each page is the runs before the last page, oldest first; the next links list every run once', async () => {
    const whole = (await ledger.runs({ pipeline: 'hourly' })).runs.map((r) => r.runId);
    const pages: string[][] = [];
    let next: string | null = '/api/pipelines/hourly/runs?limit=7';
    while (next !== null) {
      const body = (await app.inject({ url: next })).json() as { runs: Array<{ runId: string }>; next: string | null };
      pages.push(body.runs.map((r) => r.runId));
      next = body.next;
    }
    expect(pages.reverse().flat()).toEqual(whole);
    expect(pages).toHaveLength(Math.ceil(whole.length / 7));
    expect(pages[0]).toHaveLength(whole.length % 7 || 7);
  });

  test('the library pages the same way: limit keeps the last runs, before pages back', async () => {
    const whole = (await ledger.runs({ pipeline: 'hourly' })).runs.map((r) => r.runId);
    const last = await ledger.runs({ pipeline: 'hourly', limit: 3 });
    expect(last.runs.map((r) => r.runId)).toEqual(whole.slice(-3));
    const before = await ledger.runs({ pipeline: 'hourly', limit: 3, before: last.runs[0]?.runId ?? '' });
    expect(before.runs.map((r) => r.runId)).toEqual(whole.slice(-6, -3));
  });

  test('over 1,000 runs a page is refused; a before that names no run of the pipeline is 404', async () => {
    expect((await app.inject({ url: '/api/pipelines/hourly/runs?limit=1001' })).json().error.code).toBe('input.limitTooLarge');
    expect((await app.inject({ url: '/api/pipelines/hourly/runs?before=01NOSUCHRUN' })).statusCode).toBe(404);
  });
});

describe('the pipeline page, page by page', () => {
  const rowLabels = (text: string) => [...text.matchAll(/<div class="cal-row"><span class="lbl">([^<]+)<\/span>/g)].map((m) => m[1] ?? '');
  const link = (text: string, name: string) => [...text.matchAll(/<a href="([^"]+)"[^>]*data-page="([a-z-]+)"/g)].find((m) => m[2] === name)?.[1]?.replaceAll('&amp;', '&');

  test('the older link under a calendar leads, page by page, through every month once, back to the first', async () => {
    const seen: string[] = [];
    let url: string | undefined = '/pipelines/daily?limit=12';
    let pages = 0;
    for (; url !== undefined; pages += 1) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      seen.unshift(...rowLabels(res.body));
      url = link(res.body, 'older');
    }
    const months: string[] = [];
    for (let y = 2020; y <= 2026; y += 1) for (let m = 1; m <= 12 && (y < 2026 || m <= 11); m += 1) months.push(`${y}-${String(m).padStart(2, '0')}`);
    expect(seen).toEqual(months);
    expect(pages).toBe(Math.ceil(months.length / 12));
  });

  test('the first page says how many older months it leaves out, and an older page links back to the newer ones', async () => {
    const latest = (await app.inject({ url: '/pipelines/daily?limit=12' })).body;
    expect(latest).toContain('71 older months not shown: show them');
    expect(link(latest, 'newer')).toBeUndefined();
    const older = (await app.inject({ url: link(latest, 'older') ?? '' })).body;
    expect(rowLabels(older)).toEqual(['2024-12', '2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11']);
    expect(link(older, 'latest')).toBe('/pipelines/daily?limit=12');
    // The page after it is the latest one.
    expect(link(older, 'newer')).toBe('/pipelines/daily?limit=12');
    const oldest = (await app.inject({ url: link(older, 'older') ?? '' })).body;
    expect(rowLabels(oldest)[0]).toBe('2023-12');
    expect(link(oldest, 'newer')).toBe('/pipelines/daily?to=2025-11-30&limit=12');
  });

  test('an hourly calendar pages by days, and to= picks the days shown', async () => {
    const res = await app.inject({ url: '/pipelines/hourly?to=2026-11-02&limit=3' });
    expect(rowLabels(res.body)).toEqual(['2026-10-31', '2026-11-01', '2026-11-02']);
    // The off-schedule run of 10:30 is on its day's row: since the merge with web, it shares the 10:00 cell (aligned calendars).
    expect(res.body).toMatch(/data-date="2026-11-02T10:00:00\+07:00" title="[^"]*also 2026-11-02T10:30:00\+07:00[^"]*off-schedule run"/);
    expect(link(res.body, 'older')).toBe('/pipelines/hourly?to=2026-10-30&limit=3');
  });

  test('a history-strip range (from and to) is paged inside: older pages keep its from, none goes before it', async () => {
    // The strip links a bucket as ?from=&to=; the calendar shows the rows up to `to`, `limit` at a time, never before `from`.
    const res = await app.inject({ url: '/pipelines/hourly?from=2026-10-29&to=2026-11-02&limit=3' });
    expect(res.statusCode).toBe(200);
    expect(rowLabels(res.body)).toEqual(['2026-10-31', '2026-11-01', '2026-11-02']);
    expect(res.body).toContain('<p class="range">Showing 2026-10-31T00:00:00+07:00 … 2026-11-02T23:00:00+07:00.');
    expect(res.body).toContain('data-part="strip"');
    expect(link(res.body, 'older')).toBe('/pipelines/hourly?from=2026-10-29&to=2026-10-30&limit=3&until=2026-11-02');
    const older = (await app.inject({ url: link(res.body, 'older') ?? '' })).body;
    expect(rowLabels(older)).toEqual(['2026-10-29', '2026-10-30']);
    expect(link(older, 'older')).toBeUndefined();
    expect(link(older, 'newer')).toBe('/pipelines/hourly?from=2026-10-29&to=2026-11-02&limit=3');
    // A strip column's own link: from and to the same slot shows that slot's day.
    const one = (await app.inject({ url: '/pipelines/hourly?from=2026-10-28T04%3A00%3A00%2B07%3A00&to=2026-10-28T04%3A00%3A00%2B07%3A00' })).body;
    expect(rowLabels(one)).toEqual(['2026-10-28']);
    expect(link(one, 'older')).toBeUndefined();
    expect(one).toContain('<p class="range">Showing 2026-10-28T04:00:00+07:00 … 2026-10-28T04:00:00+07:00.');
  });

  test('paging older then newer inside a strip range ending mid-day comes back to the range end, never past it', async () => {
    const end = encodeURIComponent('2026-11-01T05:00:00+07:00');
    const res = (await app.inject({ url: `/pipelines/hourly?from=2026-10-28&to=${end}&limit=2` })).body;
    expect(res).toContain('… 2026-11-01T05:00:00+07:00.');
    const older = (await app.inject({ url: link(res, 'older') ?? '' })).body;
    expect(rowLabels(older)).toEqual(['2026-10-29', '2026-10-30']);
    let newer = link(older, 'newer') ?? '';
    expect(newer).toBe(`/pipelines/hourly?from=2026-10-28&to=${end.replace(/%3A/g, '%3A')}&limit=2`);
    const back = (await app.inject({ url: newer })).body;
    expect(rowLabels(back)).toEqual(['2026-10-31', '2026-11-01']);
    expect(back).toContain('… 2026-11-01T05:00:00+07:00.');
    expect(link(back, 'newer')).toBeUndefined();
    // Two pages back, the newer links walk forward page by page and stop at the range's end.
    const oldest = (await app.inject({ url: link(older, 'older') ?? '' })).body;
    newer = link(oldest, 'newer') ?? '';
    expect(newer).toContain('until=');
    const middle = (await app.inject({ url: newer })).body;
    expect(rowLabels(middle)).toEqual(['2026-10-29', '2026-10-30']);
    expect(link(middle, 'newer')).toBe(link(older, 'newer'));
  });

  test('the runs table shows the newest runs and links the older ones, each run once', async () => {
    const whole = (await ledger.runs({ pipeline: 'hourly' })).runs.map((r) => r.runId).reverse();
    const listed: string[] = [];
    let url: string | undefined = '/pipelines/hourly';
    for (; url !== undefined; ) {
      const body = (await app.inject({ url })).body;
      listed.push(...[...body.matchAll(/<a href="\/pipelines\/hourly\/runs\/([^"]+)">/g)].map((m) => m[1] ?? ''));
      url = link(body, 'older-runs');
    }
    expect(listed).toEqual(whole);
  });

  test('a calendar of more than 240 rows is refused before anything is read', async () => {
    const res = await app.inject({ url: '/pipelines/nope?limit=241' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('input.limitTooLarge');
  });
});
