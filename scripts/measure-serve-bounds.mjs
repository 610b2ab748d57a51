#!/usr/bin/env node
// Measures, over a real socket against `node bin/runledger.js serve`, what one page view of a very long pipeline costs
// (time, HTML bytes, the server's RSS) and how fast bodies built to cost the server are refused while a health probe
// runs beside them, with the targets of issue 41 (the 1970 minutely pipeline's page in < 100 ms, < 1 MB of HTML, < 20 MB
// of extra RSS). Run after `npm run build`: node scripts/measure-serve-bounds.mjs [--baseline <another built checkout>]
// Timings depend on the machine's load: note `uptime` beside them, and compare with a baseline measured alongside.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../bin/runledger.js');
// `--baseline <checkout>`: the same page views measured first against another built checkout (e.g. main before a
// change), on the same machine at the same moment, printed beside this one's with the targets.
const baselineAt = process.argv.indexOf('--baseline');
const BASELINE = baselineAt === -1 ? null : resolve(process.argv[baselineAt + 1] ?? '.', 'bin/runledger.js');
const NOW = '2026-12-01T00:00:00Z';
const TOKEN = 'w-0123456789abcdef';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Starts `serve` of `bin` over a fresh ledger of the long pipelines; `run(server)` measures; the ledger is removed after. */
async function withServer(bin, run) {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-measure-'));
  const db = join(dir, 'ledger.db');
  const cli = (...args) => spawnSync(process.execPath, [bin, '--db', db, '--now', NOW, ...args], { encoding: 'utf8' });
  cli('define', 'p70', '--schedule', '* * * * *', '--start', '1970-01-01');
  cli('define', 'p24', '--schedule', '* * * * *', '--start', '2024-01-01');
  cli('define', 'p', '--schedule', '@daily', '--start', '2026-11-01');
  cli('define', 'pb', '--schedule', '* * * * *', '--start', '1970-01-01', '--tz', 'Europe/Berlin');
  const child = spawn(process.execPath, [bin, '--db', db, '--now', NOW, 'serve', '--port', '0', '--write-token', TOKEN], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const address = await new Promise((done, fail) => {
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
        const m = /serving (http:\/\/\S+)/.exec(err);
        if (m) done(m[1]);
      });
      child.on('exit', () => fail(new Error(err)));
    });
    const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
    const timed = async (path, init) => {
      const started = performance.now();
      const res = await fetch(`${address}${path}`, init);
      const bytes = (await res.arrayBuffer()).byteLength;
      return { status: res.status, ms: performance.now() - started, bytes };
    };
    return await run({ cli, timed, rssMb });
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.on('exit', done) : done()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The page views of the issue: each long pipeline's page built anew 7 times (an append between), then pages of the past and the audit. */
async function pageViews({ cli, timed, rssMb }) {
  await timed('/api/health');
  const out = { rssStart: rssMb() };
  // A small page first, so the long pipeline's RSS growth is its own, not the first page's code and caches.
  await timed('/pipelines/p');
  out.rssWarm = rssMb();
  for (const pipeline of ['p70', 'p24']) {
    const before = rssMb();
    const builds = [];
    let view;
    // Each round appends an event (a new head), so the page is built again, not answered from the kept copy.
    for (let i = 0; i < 7; i++) {
      cli('define', `q${pipeline}${i}`, '--schedule', '@daily', '--start', '2026-11-01');
      view = await timed(`/pipelines/${pipeline}`);
      builds.push(view.ms);
    }
    out[pipeline] = { status: view.status, first: builds[0], median: median(builds.slice(1)), kb: view.bytes / 1024, rss: rssMb() - before };
  }
  const junk = [];
  for (let i = 0; i < 20; i++) junk.push((await timed(`/pipelines/p70?x=${i}`)).ms);
  out.junk = median(junk);
  const past = await timed('/pipelines/p70?as_of=1');
  out.past = { status: past.status, ms: past.ms, kb: past.bytes / 1024 };
  const audit = await timed('/audit');
  out.audit = { status: audit.status, ms: audit.ms, kb: audit.bytes / 1024 };
  // A zone with transitions: one view, given up after 20 s (last: a server still building it answers nothing else).
  const berlin = await timed('/pipelines/pb', { signal: AbortSignal.timeout(20_000) }).catch(() => ({ status: 'timeout', ms: 20_000, bytes: 0 }));
  out.berlin = { status: berlin.status, ms: berlin.ms, kb: berlin.bytes / 1024 };
  // Once more after an append: the zone's offsets are known now (the first view reads them from Intl).
  cli('define', 'qb', '--schedule', '@daily', '--start', '2026-11-01');
  const again = await timed('/pipelines/pb', { signal: AbortSignal.timeout(20_000) }).catch(() => ({ status: 'timeout', ms: 20_000, bytes: 0 }));
  out.berlinAgain = { status: again.status, ms: again.ms, kb: again.bytes / 1024 };
  // The overview as of the first event (p70 alone), given up after 20 s: last, as a server walking its slots answers nothing else.
  const overviewPast = await timed('/?as_of=1', { signal: AbortSignal.timeout(20_000) }).catch(() => ({ status: 'timeout', ms: 20_000, bytes: 0 }));
  out.overviewPast = { status: overviewPast.status, ms: overviewPast.ms, kb: overviewPast.bytes / 1024 };
  out.rssEnd = rssMb();
  return out;
}

const row = (label, target, format, pick, results) => console.log([label.padEnd(44), target.padEnd(12), ...results.map((r) => (r === null ? '' : format(pick(r))).padEnd(16))].join(' '));
const ms = (x) => `${x.toFixed(0)} ms`;
const statusMs = (x) => `${x.status} ${x.ms.toFixed(0)} ms ${x.kb.toFixed(0)} KB`;
const base = BASELINE === null ? null : await withServer(BASELINE, pageViews);
const mine = await withServer(BIN, pageViews);
const results = base === null ? [mine] : [base, mine];
console.log([''.padEnd(44), 'target'.padEnd(12), ...(base === null ? ['this checkout'] : ['baseline', 'this checkout']).map((h) => h.padEnd(16))].join(' '));
row('server RSS at start', '', (x) => `${x.toFixed(0)} MB`, (r) => r.rssStart, results);
row('  after one small page', '', (x) => `${x.toFixed(0)} MB`, (r) => r.rssWarm, results);
for (const p of ['p70', 'p24']) {
  row(`GET /pipelines/${p} first build`, p === 'p70' ? '< 100 ms' : '', ms, (r) => r[p].first, results);
  row(`  median of 6 more builds`, '', ms, (r) => r[p].median, results);
  row(`  HTML`, p === 'p70' ? '< 1024 KB' : '', (x) => `${x.toFixed(0)} KB`, (r) => r[p].kb, results);
  row(`  RSS growth over the 7 builds`, p === 'p70' ? '< 20 MB' : '', (x) => `+${x.toFixed(0)} MB`, (r) => r[p].rss, results);
}
// A parameter no page reads: the kept page in a checkout that drops it from the page's key, a 400 in one that refuses it.
row('GET /pipelines/p70?x=1..20 (kept or refused)', '', (x) => `${x.toFixed(1)} ms`, (r) => r.junk, results);
row('GET /?as_of=1 (overview of the past)', '', statusMs, (r) => r.overviewPast, results);
row('GET /pipelines/p70?as_of=1', '', statusMs, (r) => r.past, results);
row('GET /audit', '', statusMs, (r) => r.audit, results);
row('GET /pipelines/pb (Berlin, minutely, 1970)', '', statusMs, (r) => r.berlin, results);
row('  built again after an append', '', statusMs, (r) => r.berlinAgain, results);
row('server RSS at the end', '', (x) => `${x.toFixed(0)} MB`, (r) => r.rssEnd, results);

await withServer(BIN, async ({ timed, rssMb }) => {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const event = { eventType: 'START', eventTime: '2026-11-02T00:05:00Z', producer: 'https://x.example', run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e' }, job: { namespace: 'n', name: 'j' } };
  const bodies = [
    ['clear, 330,000 empty lists (1 MB)', '/api/pipelines/p/clear', { dates: Array.from({ length: 330_000 }, () => []) }],
    ['clear, 1,000 empty lists', '/api/pipelines/p/clear', { dates: Array.from({ length: 1_000 }, () => []) }],
    ['lineage, 160,000 empty inputs', '/api/v1/lineage', { ...event, inputs: Array.from({ length: 160_000 }, () => ({})) }],
    ['lineage, 9,000 empty facets', '/api/v1/lineage', { ...event, run: { ...event.run, facets: Object.fromEntries(Array.from({ length: 9_000 }, (_, i) => [`f${i}`, {}])) } }],
  ];
  for (const [label, path, body] of bodies) {
    const text = JSON.stringify(body);
    const rounds = [];
    for (let i = 0; i < 5; i++) {
      const answer = timed(path, { method: 'POST', headers, body: text });
      const health = timed('/api/health');
      rounds.push({ answer: await answer, health: await health });
    }
    console.log(`POST ${label}: ${rounds[0].answer.status}, median ${median(rounds.map((r) => r.answer.ms)).toFixed(1)} ms (max ${Math.max(...rounds.map((r) => r.answer.ms)).toFixed(1)}); health beside it median ${median(rounds.map((r) => r.health.ms)).toFixed(1)} ms (max ${Math.max(...rounds.map((r) => r.health.ms)).toFixed(1)})`);
  }
  console.log(`server RSS after the bodies: ${rssMb().toFixed(0)} MB`);
});
