#!/usr/bin/env node
// Load check of serve's paged routes (reported, not asserted): a few routes of a ledger given as an argument, each
// for a few seconds with autocannon over loopback, printing requests per second, latency and the bytes of one
// answer. `node scripts/load-paging.mjs <ledger.db> <now> [dist dir]`; the dist dir (default ./dist) lets the
// same script measure another build, e.g. main's, side by side.
import { resolve } from 'node:path';
import autocannon from 'autocannon';

const [db, now, dist = 'dist'] = process.argv.slice(2);
if (!db || !now) {
  console.error('usage: load-paging.mjs <ledger.db> <now> [dist dir]');
  process.exit(2);
}
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const ROUTES = (process.env.LOAD_ROUTES ?? '/api/pipelines/scale_000/state?to=2040-01-01,/pipelines/scale_000').split(',');
const { openLedger } = await import(resolve(dist, 'src/ledger/ledger.js'));
const { createServer } = await import(resolve(dist, 'src/serve/create-server.js'));
const nowMs = Date.parse(now);
const ledger = await openLedger({ db, create: false, clock: () => nowMs });
const app = await createServer({ ledger, clock: () => nowMs });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
for (const route of ROUTES) {
  const first = await fetch(`${address}${route}`);
  const bytes = (await first.arrayBuffer()).byteLength;
  const result = await autocannon({ url: `${address}${route}`, connections: CONNECTIONS, duration: SECONDS });
  console.log(`${route}: ${first.status}, ${bytes.toLocaleString('en')} bytes; ${result.requests.average.toFixed(1)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
}
await app.close();
await ledger.close();
