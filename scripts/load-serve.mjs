#!/usr/bin/env node
// Load check of `serve` (reported, not asserted): 50 concurrent clients for 10 s on the overview of
// 100 pipelines, over loopback, with autocannon. Prints requests per second, latency, errors and the
// server's memory before, during and after. Run with `npm run load:serve` (it builds first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openLedger } from '../dist/src/open-ledger.js';
import { createServer } from '../dist/src/serve/create-server.js';

const PIPELINES = Number(process.env.LOAD_PIPELINES ?? 100);
const DAYS = Number(process.env.LOAD_DAYS ?? 30);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const NOW = Date.parse('2026-12-01T01:00:00Z');

const dir = mkdtempSync(join(tmpdir(), 'runledger-load-'));
const ledger = await openLedger({ db: join(dir, 'load.db'), clock: () => NOW, actor: 'load' });
const t0 = performance.now();
for (let p = 0; p < PIPELINES; p++) {
  const pipeline = `pipeline_${String(p).padStart(3, '0')}`;
  await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-01' });
  for (let d = 1; d <= DAYS; d++) {
    const date = `2026-11-${String(d).padStart(2, '0')}`;
    const run = await ledger.start({ pipeline, date, runType: 'backfill' });
    if ((p + d) % 17 === 0) await ledger.fail({ runId: run.runId, error: `exit 1 on ${date}` });
    else await ledger.succeed({ runId: run.runId, metrics: { rows: d * 10 } });
  }
}
const head = await ledger.store.head();
console.log(`ledger: ${PIPELINES} pipelines × ${DAYS} days, ${head.position} events, built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// The server's clock runs (from NOW), so the overview is rebuilt every second as it would be live.
const started = Date.now();
const app = await createServer({ ledger, clock: () => NOW + (Date.now() - started) });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
};
global.gc?.();
const before = memory();
const samples = [];
const sampler = setInterval(() => samples.push(memory()), 1000);
const result = await autocannon({ url: `${address}/`, connections: CONNECTIONS, duration: SECONDS });
clearInterval(sampler);
global.gc?.();
const after = memory();
await app.close();
await ledger.close();
rmSync(dir, { recursive: true, force: true });

console.log(`GET / (overview of ${PIPELINES} pipelines), ${CONNECTIONS} clients for ${SECONDS} s on loopback:`);
console.log(`  requests: ${result.requests.total} (${result.requests.average.toFixed(0)}/s average)`);
console.log(`  latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
console.log(`  errors: ${result.errors}, timeouts: ${result.timeouts}, non-2xx: ${result.non2xx}`);
console.log(`  memory: rss ${mb(before.rss)} before, ${mb(Math.max(...samples.map((s) => s.rss)))} peak, ${mb(after.rss)} after; heap used ${mb(before.heapUsed)} → ${mb(after.heapUsed)}`);
console.log(`  heap used each second: ${samples.map((s) => (s.heapUsed / 1024 / 1024).toFixed(0)).join(' ')} MB`);
