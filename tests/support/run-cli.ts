import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { atFileEnd } from './at-file-end.js';

export const BIN = resolve(import.meta.dirname, '../../bin/runledger.js');

export type CliResult = { code: number; stdout: string; stderr: string };

/**
 * Runs one command line of the built CLI (built by `npm test` before vitest starts) and returns what its process
 * would: exit code, stdout, stderr. It runs in the test file's CLI server, a process that loaded the CLI once, with
 * the child's environment (`process.env`, `RUNLEDGER_ACTOR=tester`, then `env`), no terminal and the real clock: a
 * process start costs more than most commands. Use `cliProcess` when the process is what the test is about (exit on
 * a closed pipe, signals, a terminal, the package's bin).
 */
export function cli(args: string[], env: Record<string, string> = {}): CliResult {
  return cliServer().run({ argv: args, env: childEnv(env) });
}

/** Runs the real binary in a process of its own and waits for it. */
export function cliProcess(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: childEnv(env) });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function childEnv(env: Record<string, string>): Record<string, string> {
  return { ...(process.env as Record<string, string>), RUNLEDGER_ACTOR: 'tester', ...env };
}

/** One command line for the CLI server: its arguments, its whole environment, and its cwd (default: the test's). */
export type CliRequest = { argv: string[]; env: Record<string, string | undefined>; cwd?: string };

type CliServer = { run(request: CliRequest): CliResult; stop(): Promise<void> };
let server: CliServer | undefined;

/**
 * The test file's CLI server (tests/support/cli-server.mjs), started on first use and stopped after the file. The
 * caller blocks on a shared flag, as it blocked on spawnSync, while a thread (cli-bridge.mjs) talks to the server;
 * a command line that takes more than the two minutes of vitest.config.ts's hang guard fails its test.
 */
export function cliServer(): CliServer {
  if (server) return server;
  const shared = new SharedArrayBuffer(4);
  const flag = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const thread = new Worker(new URL('./cli-bridge.mjs', import.meta.url), { workerData: { port: port2, shared }, transferList: [port2] });
  thread.unref();
  port1.unref();
  const started: CliServer = {
    run(request) {
      Atomics.store(flag, 0, 0);
      port1.postMessage(request);
      const what = `runledger ${request.argv.join(' ')}`;
      if (Atomics.wait(flag, 0, 0, 120_000) === 'timed-out') {
        void started.stop();
        throw new Error(`${what} did not finish in two minutes`);
      }
      const answer = receiveMessageOnPort(port1);
      if (!answer) throw new Error(`${what}: the CLI server gave no answer`);
      const result = answer.message as CliResult;
      if (result.code === -1) server = undefined;
      return result;
    },
    async stop() {
      if (server === started) server = undefined;
      port1.postMessage('stop');
      // The bridge answers once the server is gone; then the thread can go.
      Atomics.wait(flag, 0, 0, 5_000);
      await thread.terminate();
    },
  };
  server = started;
  atFileEnd(() => (server === started ? started.stop() : undefined));
  return started;
}

/** Starts the real binary without waiting, for races. */
export function cliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, RUNLEDGER_ACTOR: 'tester', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/** A fresh temp dir, removed after the test file's tests. */
export function tempDir(prefix = 'runledger-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  atFileEnd(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** How many events a SQLite ledger holds (0 when the file has no ledger). */
export function eventCount(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The address a `runledger serve` child says it listens on (it picks the port with `--port 0`); rejects if it exits first. */
export function servingAddress(child: ChildProcess): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /serving (http:\/\/\S+)/.exec(stderr);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}
