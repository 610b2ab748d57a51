// The web view of dependencies: /graph (server-rendered SVG under the strict CSP), /api/graph = `graph --json`,
// and blocked cells on a pipeline's calendar.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { createServer, CONTENT_SECURITY_POLICY } from '../../src/serve/create-server.js';
import { tempDir } from '../support/run-cli.js';

const NOW = '2026-11-03T03:00:00Z';
let db: string;
let ledger: Ledger;
let app: FastifyInstance;

beforeAll(async () => {
  db = join(tempDir('runledger-graph-'), 'ledger.db');
  ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'alice' });
  await ledger.define({ pipeline: 'orders_raw', schedule: '@daily', start: '2026-11-01', timezone: 'Asia/Jakarta' });
  await ledger.define({ pipeline: 'sales_report', schedule: '@daily', start: '2026-11-01', upstreams: [{ pipeline: 'orders_raw', mapping: 'overlap' }] });
  await ledger.define({ pipeline: 'finance_pack', schedule: '@daily', start: '2026-11-01', upstreams: [{ pipeline: 'sales_report', mapping: 'previous' }] });
  for (const date of ['2026-11-01', '2026-11-02']) {
    const run = await ledger.start({ pipeline: 'orders_raw', date });
    if (date === '2026-11-02') await ledger.fail({ runId: run.runId, error: 'file <missing>' });
    else await ledger.succeed({ runId: run.runId });
  }
  app = await createServer({ ledger, clock: () => Date.parse(NOW) });
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

describe('the dependency graph on the web', () => {
  test('/api/graph is exactly the document of runledger graph --json', async () => {
    const res = await app.inject({ url: '/api/graph' });
    expect(res.statusCode).toBe(200);
    let stdout = '';
    const code = await runCli(['--db', db, '--now', NOW, 'graph', '--json'], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, clock: () => 0, isTTY: false }, extraCommands);
    expect(code).toBe(0);
    expect(res.json()).toEqual(JSON.parse(stdout));
    expect(res.json()).toMatchObject({
      edges: [
        { from: 'sales_report', to: 'finance_pack', mapping: 'previous' },
        { from: 'orders_raw', to: 'sales_report', mapping: 'overlap' },
      ],
    });
    const nodes = (res.json() as { nodes: Array<{ pipeline: string; status: string; layer: number }> }).nodes;
    expect(nodes.map((n) => [n.pipeline, n.status, n.layer])).toEqual([
      ['orders_raw', 'failed', 0],
      ['sales_report', 'blocked', 1],
      ['finance_pack', 'blocked', 2],
    ]);
  });

  test('/graph draws a box per pipeline and an arrow per upstream, with the strict CSP and nothing inline', async () => {
    const res = await app.inject({ url: '/graph' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.body.match(/<script[^>]*>/g)).toEqual(['<script src="/assets/app.js" defer>']);
    expect(res.body).not.toMatch(/<style|<[^>]*\s(style|on[a-z]+)=["']/i);
    expect(res.body.match(/<a href="\/pipelines\/[^"]+" class="node s-node-(\w+)">/g)).toEqual([
      '<a href="/pipelines/orders_raw" class="node s-node-failed">',
      '<a href="/pipelines/sales_report" class="node s-node-blocked">',
      '<a href="/pipelines/finance_pack" class="node s-node-blocked">',
    ]);
    expect(res.body.match(/<g class="edge">/g)).toHaveLength(2);
    expect(res.body).toContain('<title>finance_pack waits for sales_report (previous)</title>');
  });

  test("a blocked date's calendar cell is marked and says what it waits for", async () => {
    const res = await app.inject({ url: '/pipelines/sales_report' });
    expect(res.statusCode).toBe(200);
    // The cell links to its date page (web's date pages), and keeps the blocked mark and what it waits for.
    expect(res.body).toContain('<a class="c s-missing blocked" data-date="2026-11-02" title="2026-11-02: missing · waits for orders_raw 2026-11-02 (failed)" data-extras="0" href="/pipelines/sales_report/dates/2026-11-02"></a>');
  });
});
