/**
 * serve's memory under a long mixed load: `runledger serve` on the big ledger
 * in a child process, writes through the HTTP write API at a steady rate
 * (start + succeed of dates never run), readers going round the read routes
 * without pause, the server's RSS sampled every second; the figure is its RSS
 * at the end beside its RSS when it had just started, with the peak.
 */
import type { Figure } from './report.js';
import { rssMb, startServe } from './serve-processes.js';

export type SoakInput = {
  /** dist/bench/serve-ledger.js */
  serveScript: string;
  db: string;
  label: string;
  /** The ledger's daily pipelines: writes start dates from the first one of their timetable upwards. */
  pipelines: string[];
  /** The first day of the pipelines' timetables, YYYY-MM-DD. */
  firstDay: string;
  seconds: number;
  /** start + succeed pairs per second. */
  writesPerSecond: number;
  readers: number;
  log: (line: string) => void;
};

const TOKEN = 'bench-soak-write-token-0123456789';
const DAY = 86_400_000;

export async function serveSoak(input: SoakInput): Promise<Figure> {
  const { seconds, log } = input;
  const server = await startServe(input.serveScript, input.db, TOKEN);
  const counts = { reads: 0, readFailures: 0, runs: 0, refused: 0, writeFailures: 0, skipped: 0 };
  try {
    const p = encodeURIComponent(input.pipelines[input.pipelines.length - 1] ?? '');
    const reads = ['/api/status', '/api/pipelines', '/metrics', `/api/pipelines/${p}/watermark`, '/', `/pipelines/${p}`, `/api/pipelines/${p}/state?limit=100`, '/api/log?limit=100', '/api/health'];
    // One read of each first, so "at start" is a server that has answered every route once.
    for (const path of reads) await (await fetch(`${server.url}${path}`)).arrayBuffer();
    const startRss = rssMb(server.pid);
    log(`serve soak on the ${input.label}: ${seconds} s, ${input.writesPerSecond} start + succeed per second through the write API, ${input.readers} readers without pause; RSS at start ${startRss.toFixed(0)} MB`);
    const samples: number[] = [];
    const until = Date.now() + seconds * 1000;
    const sampler = setInterval(() => samples.push(rssMb(server.pid)), 1000);
    const readLoop = async (offset: number) => {
      for (let i = offset; Date.now() < until; i++) {
        const path = reads[i % reads.length] as string;
        try {
          const response = await fetch(`${server.url}${path}`);
          await response.arrayBuffer();
          if (response.ok) counts.reads += 1;
          else counts.readFailures += 1;
        } catch {
          counts.readFailures += 1;
        }
      }
    };
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const firstMs = Date.parse(`${input.firstDay}T00:00:00Z`);
    let next = 0;
    let inFlight = 0;
    const writeOne = async () => {
      // Pipelines in turn, dates from the oldest of the timetable up: the bench ledger's runs cover the recent ones.
      const k = next++;
      const pipeline = input.pipelines[k % input.pipelines.length] as string;
      const date = new Date(firstMs + Math.floor(k / input.pipelines.length) * DAY).toISOString().slice(0, 10);
      inFlight += 1;
      try {
        const started = await fetch(`${server.url}/api/pipelines/${encodeURIComponent(pipeline)}/runs`, { method: 'POST', headers: auth, body: JSON.stringify({ date }) });
        const run = (await started.json()) as { runId?: string };
        if (started.status === 409) counts.refused += 1;
        else if (started.status !== 201 || run.runId === undefined) counts.writeFailures += 1;
        else {
          const done = await fetch(`${server.url}/api/runs/${encodeURIComponent(run.runId)}/succeed`, { method: 'POST', headers: auth, body: JSON.stringify({ metrics: { rows: k } }) });
          await done.arrayBuffer();
          if (done.ok) counts.runs += 1;
          else counts.writeFailures += 1;
        }
      } catch {
        counts.writeFailures += 1;
      } finally {
        inFlight -= 1;
      }
    };
    const writer = setInterval(() => {
      // A server too busy to keep up gets no pile of writes: past 4 in flight, a tick is skipped and counted.
      if (inFlight >= 4) counts.skipped += 1;
      else void writeOne();
    }, 1000 / input.writesPerSecond);
    await Promise.all(Array.from({ length: input.readers }, (_, i) => readLoop(i * 3)));
    clearInterval(writer);
    clearInterval(sampler);
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const finalRss = rssMb(server.pid);
    const peak = Math.max(finalRss, ...samples);
    return {
      id: 'serve-soak-rss',
      name: `serve RSS after ${seconds} s of mixed reads and writes on the ${input.label}`,
      value: finalRss,
      unit: 'MB',
      baseline: { name: 'the same server at start, after one read of each route', value: startRss, unit: 'MB' },
      ratio: finalRss / startRss,
      ratioMeaning: '× the RSS at start',
      target: seconds >= 600 ? '< 200 MB' : `< 200 MB (after 600 s; this run: ${seconds} s, BENCH_SOAK_SECONDS)`,
      // Only the ten-minute run answers the target; a shorter one (--quick) shows the trend.
      met: seconds >= 600 ? finalRss < 200 && peak < 200 : null,
      note: `peak ${peak.toFixed(0)} MB; ${counts.runs} runs written (start + succeed)${counts.refused ? `, ${counts.refused} starts refused` : ''}${counts.writeFailures ? `, ${counts.writeFailures} writes failed` : ''}${counts.skipped ? `, ${counts.skipped} write ticks skipped (4 in flight)` : ''}; ${counts.reads.toLocaleString('en')} reads by ${input.readers} readers${counts.readFailures ? `, ${counts.readFailures} failed` : ''}`,
    };
  } finally {
    await server.stop();
  }
}
