import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { renderReport } from '../../src/render/render-report.js';
import { createServer, CONTENT_SECURITY_POLICY } from '../../src/serve/create-server.js';
import { tempDir } from '../support/run-cli.js';

const XSS = '<img src=x onerror=alert(1)>';
const NOW = '2026-11-06T01:00:00+07:00';
let db: string;
let ledger: Ledger;
let app: FastifyInstance;
let failedRun: string;

beforeAll(async () => {
  db = join(tempDir('runledger-pages-'), 'ledger.db');
  ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'alice' });
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
  for (const date of ['2026-11-02', '2026-11-03', '2026-11-04']) {
    const run = await ledger.start({ pipeline: 'etl_orders', date });
    await ledger.succeed({ runId: run.runId, metrics: { rows: 42, note: `<b>${date}</b>` } });
  }
  const run = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-05' });
  failedRun = run.runId;
  await ledger.fail({ runId: run.runId, error: XSS });
  await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: `re-run <script>alert(2)</script>` });
  app = await createServer({ ledger, clock: () => Date.parse(NOW) });
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

/** The CLI's stdout for the same question, in-process, on the same ledger file and clock. */
async function cliJson(args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--db', db, '--now', NOW, ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: () => 0, isTTY: false }, extraCommands);
  return { code, json: stdout ? JSON.parse(stdout) : null, stderr };
}

describe('serve: pages', () => {
  test.each(['/', '/pipelines/etl_orders', '/audit', '/verify'])('%s is HTML with the strict CSP, one same-origin script and stylesheet, nothing inline', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.body.match(/<script[^>]*>/g)).toEqual(['<script src="/assets/app.js" defer>']);
    expect(res.body).not.toMatch(/<style|<[^>]*\s(style|on[a-z]+)=["']/i);
    expect(res.body).not.toMatch(/(src|href)="https?:/);
  });

  test('a run page shows its task grid section and its events', async () => {
    const res = await app.inject({ url: `/pipelines/etl_orders/runs/${failedRun}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('declares no tasks');
    expect(res.body).toContain('RunFailed');
  });

  test('instants are shown in the pipeline\'s zone with its offset, as the CLI tables show them', async () => {
    // Every event here was recorded at NOW, 2026-11-05T18:00:00Z, which is 01:00 the next day in Asia/Jakarta.
    const local = '2026-11-06T01:00:00+07:00';
    const utcCell = /<td class="mono">2026-11-05T18:00:00(\.000)?Z<\/td>/;
    const pipeline = (await app.inject({ url: '/pipelines/etl_orders' })).body;
    expect(pipeline).toMatch(new RegExp(`<td class="mono">${local.replace(/\+/g, '\\+')}</td>`));
    expect(pipeline).not.toMatch(utcCell);
    const run = (await app.inject({ url: `/pipelines/etl_orders/runs/${failedRun}` })).body;
    expect(run).toContain(`<b>Started</b> ${local}`);
    expect(run).toContain(`<b>Finished</b> ${local}`);
    expect(run).not.toMatch(utcCell);
    const audit = (await app.inject({ url: '/audit' })).body;
    expect(audit).toContain(`<td class="mono">${local}</td>`);
    expect(audit).not.toMatch(utcCell);
  });

  test('an error holding <img src=x onerror=alert(1)> is shown as text on every page that shows it', async () => {
    for (const url of ['/', '/pipelines/etl_orders', `/pipelines/etl_orders/runs/${failedRun}`]) {
      const body = (await app.inject({ url })).body;
      expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(body).not.toContain('<img');
    }
    const audit = (await app.inject({ url: '/audit' })).body;
    expect(audit).toContain('re-run &lt;script&gt;alert(2)&lt;/script&gt;');
    expect(audit).not.toContain('<script>alert');
  });

  test('the pipeline page shows the calendar cells, the watermark and complete-through', async () => {
    const body = (await app.inject({ url: '/pipelines/etl_orders' })).body;
    expect(body).toMatch(/class="c s-success ct" data-date="2026-11-02"/);
    expect(body).toMatch(/class="c s-cleared" data-date="2026-11-03"/);
    expect(body).toMatch(/class="c s-success wm" data-date="2026-11-04"/);
    expect(body).toMatch(/class="c s-failed" data-date="2026-11-05" title="2026-11-05: failed · &lt;img/);
    expect(body).toContain('data-fact="watermark">2026-11-04<');
    expect(body).toContain('data-fact="complete-through">2026-11-02<');
    expect(body).not.toContain('This page shows the past');
    expect(body).toContain('data-live="1"');
    // The navigation reaches the dependency graph too.
    expect(body).toContain('<a href="/graph">Graph</a>');
  });

  test('?as_of= shows the past, says so, and does not go live', async () => {
    const position = (await app.inject({ url: '/api/log?pipeline=etl_orders&type=RunSucceeded' })).json().events[2].position as number;
    const body = (await app.inject({ url: `/pipelines/etl_orders?as_of=${position}` })).body;
    expect(body).toContain('This page shows the past');
    expect(body).toContain('data-live="0"');
    expect(body).toMatch(/class="c s-success" data-date="2026-11-03"/);
    expect(body).not.toContain('s-failed" data-date="2026-11-05"');
    const overview = (await app.inject({ url: `/?as_of=${encodeURIComponent('2026-11-01T00:00:00Z')}` })).body;
    expect(overview).toContain('This page shows the past');
    expect(overview).toContain('No pipelines yet');
  });

  test('a bad as_of is a 400 with the one-line message; an unknown pipeline a 404', async () => {
    const bad = await app.inject({ url: '/pipelines/etl_orders?as_of=yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('input.invalidInstant');
    const beyond = await app.inject({ url: '/?as_of=9999' });
    expect(beyond.statusCode).toBe(400);
    const missing = await app.inject({ url: '/pipelines/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('notFound.pipeline');
  });

  test('the assets are the one stylesheet and the one script', async () => {
    const css = await app.inject({ url: '/assets/app.css' });
    expect(css.headers['content-type']).toContain('text/css');
    expect(css.body).toContain('.s-success');
    const js = await app.inject({ url: '/assets/app.js' });
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.body).toContain("new EventSource('/api/stream");
  });
});

describe('serve: the JSON API answers exactly as the CLI --json', () => {
  test.each([
    ['pipelines', '/api/pipelines', ['pipelines', '--json']],
    ['state', '/api/pipelines/etl_orders/state', ['state', 'etl_orders', '--json']],
    ['state with a range', '/api/pipelines/etl_orders/state?from=2026-11-03&to=2026-11-04', ['state', 'etl_orders', '--from', '2026-11-03', '--to', '2026-11-04', '--json']],
    ['state as of', '/api/pipelines/etl_orders/state?as_of=4', ['state', 'etl_orders', '--as-of', '4', '--json']],
    ['pending', '/api/pipelines/etl_orders/pending', ['pending', 'etl_orders', '--json']],
    ['runs', '/api/pipelines/etl_orders/runs', ['runs', 'etl_orders', '--json']],
    ['runs of a date', '/api/pipelines/etl_orders/runs?date=2026-11-05', ['runs', 'etl_orders', '--date', '2026-11-05', '--json']],
    ['watermark', '/api/pipelines/etl_orders/watermark', ['watermark', 'etl_orders', '--json']],
    ['log', '/api/log?pipeline=etl_orders&type=RunCleared,RunFailed&limit=5', ['log', 'etl_orders', '--type', 'RunCleared,RunFailed', '--limit', '5', '--json']],
    ['verify', '/api/verify', ['verify', '--json']],
  ])('%s', async (_label, url, args) => {
    const res = await app.inject({ url });
    const cli = await cliJson(args);
    expect(cli.code).toBe(0);
    expect(res.statusCode).toBe(200);
    // The paged listings add the address of their next page: null, as these fit one page.
    const paged = /\/(state|runs)(\?|$)/.test(url);
    expect(res.json()).toEqual(paged ? { ...(cli.json as object), next: null } : cli.json);
  });

  test('a run task grid matches runs --run', async () => {
    const res = await app.inject({ url: `/api/pipelines/etl_orders/runs/${failedRun}` });
    expect(res.json()).toEqual((await cliJson(['runs', 'etl_orders', '--run', failedRun, '--json'])).json);
  });

  test('errors carry the CLI message (less its library hint) and the status of its exit code', async () => {
    const res = await app.inject({ url: '/api/pipelines/nope/state' });
    const cli = await cliJson(['state', 'nope', '--json']);
    expect(cli.code).toBe(4);
    expect(res.statusCode).toBe(404);
    expect(`runledger: ${res.json().error.message} (library: ledger.define)\n`).toBe(cli.stderr);
  });
});

describe('serve: live updates', () => {
  test('the event stream announces an append made through another connection to the ledger', async () => {
    const live = await createServer({ ledger, clock: () => Date.parse(NOW), watchIntervalMs: 50 });
    await live.listen({ host: '127.0.0.1', port: 0 });
    const { port } = live.server.address() as AddressInfo;
    const before = (await ledger.store.head()).position;
    const other = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'bob' });
    try {
      const received = new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: `/api/stream?after=${before}` }, (res) => {
          expect(res.headers['content-type']).toContain('text/event-stream');
          expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes('event: append')) {
              resolve(text);
              req.destroy();
            }
          });
          // Appended only once the stream is open, so the event can only come from the watcher.
          void other.clear({ pipeline: 'etl_orders', dates: ['2026-11-04'], reason: 'from another process' });
        });
        req.on('error', reject);
        req.end();
      });
      const text = await received;
      const data = JSON.parse(/event: append\ndata: (.*)\n/.exec(text)?.[1] ?? 'null') as { position: number };
      expect(data.position).toBe(before + 1);
    } finally {
      await other.close();
      await live.close();
    }
  });
});

describe('report --html', () => {
  test('one self-contained file: styles inlined, no script, nothing fetched from anywhere, strings escaped', async () => {
    const text = await renderReport(ledger);
    expect(text).toContain('<style>');
    expect(text).not.toMatch(/<script/i);
    expect(text).not.toMatch(/<link|(src|href)="(https?:)?\/\//);
    expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(text).not.toContain('<img');
    expect(text).toContain('id="pipeline-etl_orders"');
    expect(text).toContain('chain intact');
  });
});

describe('serve: a token-protected server', () => {
  test('pages, the API and the event stream need the token; the stylesheet and script do not', async () => {
    const guarded = await createServer({ ledger, clock: () => Date.parse(NOW), readToken: 's3cret' });
    try {
      for (const url of ['/', '/pipelines/etl_orders', '/api/pipelines', '/api/stream']) expect((await guarded.inject({ url })).statusCode).toBe(401);
      for (const url of ['/assets/app.css', '/assets/app.js']) expect((await guarded.inject({ url })).statusCode).toBe(200);
      const page = await guarded.inject({ url: '/pipelines/etl_orders', headers: { cookie: 'runledger_token=s3cret' } });
      expect(page.statusCode).toBe(200);
      const login = await guarded.inject({ url: '/pipelines/etl_orders?token=s3cret' });
      expect(login.statusCode).toBe(303);
      expect(login.headers.location).toBe('/pipelines/etl_orders');
    } finally {
      await guarded.close();
    }
  });
});
