#!/usr/bin/env node
// Measures, over a real socket against `node bin/runledger.js serve`, what one page view of a very long pipeline costs
// (time, HTML bytes, the server's RSS) and how fast bodies built to cost the server are refused while a health probe
// runs beside them. Run after `npm run build`: node scripts/measure-serve-bounds.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../bin/runledger.js');
const NOW = '2026-12-01T00:00:00Z';
const TOKEN = 'w-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'runledger-measure-'));
const db = join(dir, 'ledger.db');
const cli = (...args) => spawnSync(process.execPath, [BIN, '--db', db, '--now', NOW, ...args], { encoding: 'utf8' });

cli('define', 'p70', '--schedule', '* * * * *', '--start', '1970-01-01');
cli('define', 'p24', '--schedule', '* * * * *', '--start', '2024-01-01');
cli('define', 'p', '--schedule', '@daily', '--start', '2026-11-01');

const child = spawn(process.execPath, [BIN, '--db', db, '--now', NOW, 'serve', '--port', '0', '--write-token', TOKEN], { stdio: ['ignore', 'ignore', 'pipe'] });
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
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  await timed('/api/health');
  console.log(`server RSS at start: ${rssMb().toFixed(0)} MB`);
  for (const pipeline of ['p70', 'p24']) {
    const before = rssMb();
    const builds = [];
    let bytes = 0;
    // Each round appends an event (a new head), so the page is built again, not answered from the kept copy.
    for (let i = 0; i < 7; i++) {
      cli('define', `q${pipeline}${i}`, '--schedule', '@daily', '--start', '2026-11-01');
      const view = await timed(`/pipelines/${pipeline}`);
      builds.push(view.ms);
      bytes = view.bytes;
    }
    console.log(`GET /pipelines/${pipeline} (built anew): first ${builds[0].toFixed(0)} ms, median of the rest ${median(builds.slice(1)).toFixed(0)} ms; ${(bytes / 1024).toFixed(0)} KB of HTML; RSS ${before.toFixed(0)} -> ${rssMb().toFixed(0)} MB`);
  }
  const junk = [];
  for (let i = 0; i < 20; i++) junk.push((await timed(`/pipelines/p70?x=${i}`)).ms);
  console.log(`GET /pipelines/p70?x=1..20 (junk parameters, kept page): median ${median(junk).toFixed(1)} ms`);

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
  console.log(`server RSS at the end: ${rssMb().toFixed(0)} MB`);
} finally {
  child.kill('SIGTERM');
  await new Promise((done) => child.on('exit', done));
  rmSync(dir, { recursive: true, force: true });
}
