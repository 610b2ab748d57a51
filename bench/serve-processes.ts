/**
 * The processes of the serve figures: `runledger serve` and its fastify
 * baseline each in a child process of its own (the load generator, autocannon
 * in the bench's process, shares no event loop with them), the capture of
 * serve's answers for the baseline, and the child's RSS and CPU from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CapturedAnswer } from './serve-baseline.js';

/** A server in a child process: its address and a way to stop it. */
export type ServerProcess = { url: string; pid: number; stop: () => Promise<void> };

/** What one autocannon run gives back (the fields used here). */
export type LoadResult = {
  requests: { total: number };
  latency: { p50: number; p99: number; max: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
};
type LoadOptions = { url: string; connections: number; duration: number; headers?: Record<string, string> };
type Autocannon = (options: LoadOptions) => Promise<LoadResult>;

/** autocannon ships no types; it is called with the options above only. */
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Spawns `args` and resolves once a line of its `stream` matches `ready`, with the match's first group. */
function spawnUntil(args: string[], env: NodeJS.ProcessEnv, stream: 'stdout' | 'stderr', ready: RegExp): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench: ${args.join(' ')} did not start in 60 s: ${output.slice(-2000)}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      };
      resolve({ url: match[1], pid: child.pid as number, stop });
    };
    child.stdout?.on('data', stream === 'stdout' ? onData : () => undefined);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stream === 'stderr') onData(chunk);
      else output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench: ${args.join(' ')} exited ${code} before it listened: ${output.slice(-2000)}`));
    });
  });
}

/** `runledger serve` on `db` on a free loopback port (`script`: dist/bench/serve-ledger.js), writes allowed with `writeToken`. */
export function startServe(script: string, db: string, writeToken: string): Promise<ServerProcess> {
  return spawnUntil([script, db, writeToken], process.env, 'stderr', /serving (http:\/\/\S+)/);
}

/** The fastify baseline answering what `answersFile` holds. */
export function startBaseline(script: string, answersFile: string): Promise<ServerProcess> {
  return spawnUntil([script, answersFile], process.env, 'stdout', /listening (http:\/\/\S+)/);
}

/** Headers not copied to the baseline: per-connection or per-answer ones fastify sets itself. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** One GET of each path on `url`, kept as the baseline will send it back; writes them to `file`. */
export async function captureAnswers(url: string, paths: readonly string[], file: string): Promise<CapturedAnswer[]> {
  const answers: CapturedAnswer[] = [];
  for (const path of paths) {
    const response = await fetch(`${url}${path}`);
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!OWN_HEADERS.has(name)) headers[name] = value;
    });
    if (response.status !== 200) throw new Error(`bench: GET ${path} answered ${response.status}: ${body.toString().slice(0, 300)}`);
    answers.push({ path, status: response.status, headers, bodyBase64: body.toString('base64') });
  }
  writeFileSync(file, JSON.stringify(answers));
  return answers;
}

/** Resident set size of process `pid` in MB (Linux /proc), or NaN where there is no /proc. */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) of process `pid` in clock ticks, or null without /proc. */
function cpuTicks(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * Waits until process `pid` has stopped using CPU (under 5% over 200 ms), at
 * most `maxMs`: a load run that ends leaves requests the server is still
 * answering, and their CPU must not land on the next run.
 */
export async function waitIdle(pid: number, maxMs = 120_000): Promise<void> {
  const until = Date.now() + maxMs;
  let before = cpuTicks(pid);
  while (before !== null && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuTicks(pid);
    if (now === null || now - before <= 1) return;
    before = now;
  }
}
