/**
 * serve under load: each route of `runledger serve`, 10 connections, beside a
 * fastify server answering the same bytes (status, headers, body captured
 * from serve first) from memory, alternating in rounds; then `/api/health`'s
 * p99 while 4 clients read `/api/status` without pause, beside the same on the
 * baseline. Both servers run in child processes of their own.
 */
import { join } from 'node:path';
import type { Figure } from './report.js';
import { autocannon, captureAnswers, type LoadResult, type ServerProcess, startBaseline, startServe, waitIdle } from './serve-processes.js';

export type ServeRoutesInput = {
  /** dist/bench/serve-ledger.js */
  serveScript: string;
  /** dist/bench/serve-baseline.js */
  baselineScript: string;
  db: string;
  /** e.g. "50,000-event ledger (50 pipelines)" */
  label: string;
  pipeline: string;
  dir: string;
  /** Seconds of each measured run. */
  seconds: number;
  rounds: number;
  log: (line: string) => void;
};

const CONNECTIONS = 10;
const HEALTH_READERS = 4;

/** The routes measured, each with its target as a fraction of the baseline's requests/s. */
function routes(pipeline: string): Array<{ path: string; what: string; target: number }> {
  const p = encodeURIComponent(pipeline);
  return [
    { path: '/api/status', what: '`GET /api/status`', target: 0.5 },
    { path: '/api/pipelines', what: '`GET /api/pipelines`', target: 0.5 },
    { path: '/metrics', what: '`GET /metrics`', target: 0.5 },
    { path: `/api/pipelines/${p}/watermark`, what: '`GET /api/pipelines/:p/watermark`', target: 0.5 },
    { path: '/', what: 'the overview page `GET /`', target: 0.25 },
    { path: `/pipelines/${p}`, what: 'the pipeline page `GET /pipelines/:p`', target: 0.25 },
  ];
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** One load run on `server`, then waits for it to finish what is still in flight. */
async function load(server: ServerProcess, path: string, connections: number, seconds: number): Promise<LoadResult> {
  const result = await autocannon({ url: `${server.url}${path}`, connections, duration: seconds });
  await waitIdle(server.pid);
  return result;
}

/** `/api/health` with one client while `readers` clients read `/api/status` without pause, for `seconds`. */
async function healthUnderLoad(server: ServerProcess, seconds: number): Promise<{ health: LoadResult; status: LoadResult }> {
  const [health, status] = await Promise.all([
    autocannon({ url: `${server.url}/api/health`, connections: 1, duration: seconds }),
    autocannon({ url: `${server.url}/api/status`, connections: HEALTH_READERS, duration: seconds }),
  ]);
  await waitIdle(server.pid);
  return { health, status };
}

/** Runs `a` and `b` alternately, `a` first in even rounds. */
async function alternate(rounds: number, a: () => Promise<void>, b: () => Promise<void>): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      await a();
      await b();
    } else {
      await b();
      await a();
    }
  }
}

function sum(results: LoadResult[]): { rate: number; p50: number; p99: number; failed: number; requests: number } {
  const requests = results.reduce((n, r) => n + r.requests.total, 0);
  const seconds = results.reduce((n, r) => n + r.duration, 0);
  return {
    rate: requests / seconds,
    requests,
    // The worst round's percentiles: a round on a loaded machine is the one the target is about.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    failed: results.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
  };
}

/** The serve figures on one ledger. */
export async function serveRouteFigures(input: ServeRoutesInput): Promise<Figure[]> {
  const { label, seconds, rounds, log } = input;
  const list = routes(input.pipeline);
  const ours = await startServe(input.serveScript, input.db, 'bench-serve-write-token-0123456789');
  let base: ServerProcess | null = null;
  const figures: Figure[] = [];
  try {
    log(`serve on the ${label}: capturing each route's answer for the fastify baseline`);
    const answersFile = join(input.dir, `serve-answers-${process.hrtime.bigint()}.json`);
    const answers = await captureAnswers(ours.url, [...list.map((r) => r.path), '/api/health'], answersFile);
    base = await startBaseline(input.baselineScript, answersFile);
    const baseline = base;
    for (const [i, route] of list.entries()) {
      log(`serve on the ${label}: ${route.path}, ${CONNECTIONS} connections, ${rounds} × ${seconds} s per side, alternating with the baseline`);
      const a: LoadResult[] = [];
      const b: LoadResult[] = [];
      await alternate(rounds, async () => void a.push(await load(ours, route.path, CONNECTIONS, seconds)), async () => void b.push(await load(baseline, route.path, CONNECTIONS, seconds)));
      const us = sum(a);
      const them = sum(b);
      const ratio = us.rate / them.rate;
      const bytes = Buffer.from(answers[i]?.bodyBase64 ?? '', 'base64').length;
      figures.push({
        id: `serve-${route.path === '/' ? 'overview' : route.path.replace(new RegExp(encodeURIComponent(input.pipeline), 'g'), 'p').replace(/\W+/g, '-').replace(/^-|-$/g, '')}-${label.replace(/\W+/g, '-')}`,
        name: `serve ${route.what}, ${CONNECTIONS} connections, on the ${label}`,
        value: us.rate,
        unit: 'requests/s',
        baseline: { name: 'fastify 5 answering the same bytes from memory, same run', value: them.rate, unit: 'requests/s' },
        ratio,
        ratioMeaning: "× the baseline's requests/s",
        target: `≥ ${route.target}× the baseline`,
        met: ratio >= route.target,
        note: `${bytes.toLocaleString('en')} bytes; p50 ${fmt(us.p50)} ms, p99 ${fmt(us.p99)} ms (baseline p99 ${fmt(them.p99)} ms); ${us.requests.toLocaleString('en')} requests${us.failed > 0 ? `, ${us.failed} failed` : ''}`,
      });
    }
    log(`serve on the ${label}: /api/health p99 while ${HEALTH_READERS} clients read /api/status, alternating with the baseline`);
    const a: Array<{ health: LoadResult; status: LoadResult }> = [];
    const b: Array<{ health: LoadResult; status: LoadResult }> = [];
    await alternate(rounds, async () => void a.push(await healthUnderLoad(ours, seconds)), async () => void b.push(await healthUnderLoad(baseline, seconds)));
    // A run in which health never answered says its p99 is at least the run's length.
    const p99 = (x: { health: LoadResult }) => (x.health.requests.total === 0 ? x.health.duration * 1000 : x.health.latency.p99);
    const us = { ...sum(a.map((x) => x.health)), p99: Math.max(...a.map(p99)) };
    const them = { ...sum(b.map((x) => x.health)), p99: Math.max(...b.map(p99)) };
    const statusRate = sum(a.map((x) => x.status));
    figures.push({
      id: `serve-health-p99-${label.replace(/\W+/g, '-')}`,
      name: `serve \`GET /api/health\` p99 while ${HEALTH_READERS} clients read \`/api/status\` without pause, on the ${label}`,
      value: us.p99,
      unit: 'ms p99',
      baseline: { name: 'the same load on the fastify baseline', value: them.p99, unit: 'ms p99' },
      ratio: us.p99 / them.p99,
      ratioMeaning: "× the baseline's p99",
      target: '≤ 20 ms p99',
      met: us.p99 <= 20,
      note: `worst of ${rounds} rounds; health answered ${us.requests.toLocaleString('en')} times, /api/status ${fmt(statusRate.rate)} requests/s meanwhile`,
    });
  } finally {
    await base?.stop();
    await ours.stop();
  }
  return figures;
}
