// Helpers for the runner's end-to-end tests: the built CLI (by `npm run build`), in-process or as a process, temp dirs, state.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliServer } from '../support/run-cli.js';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { atFileEnd } from '../support/at-file-end.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/runledger.js');
/** The morning after three days the scheduler missed (the story runledger was written for). */
export const NOW = '2026-11-05T01:00:00+07:00';

export type CliResult = { code: number; stdout: string; stderr: string };

/** A fresh temp dir, removed after the file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-runner-'));
  atFileEnd(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, RUNLEDGER_ACTOR: 'tester' };
  for (const key of Object.keys(base)) if (key.startsWith('RUNLEDGER_') && key !== 'RUNLEDGER_ACTOR') delete base[key];
  return { ...base, ...env };
}

/** Runs the built CLI to completion in `cwd`, in the test file's CLI server (see support/run-cli.ts). */
export function cli(cwd: string, args: string[], env: Record<string, string> = {}): CliResult {
  return cliServer().run({ argv: args, env: childEnv(env), cwd });
}

/** Starts the CLI without waiting; `done` resolves with its exit code (128+n for a signal) and output. */
export function cliAsync(cwd: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolveDone) =>
    child.on('close', (code, signal) => resolveDone({ code: code ?? (signal === 'SIGKILL' ? 137 : -1), stdout, stderr })),
  );
  return { child, done };
}

/**
 * Runs a command in-process against the ledger in `dir` (fast set-up and checks;
 * the runner itself is always exercised through the real binary).
 */
export async function inProcess(dir: string, args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    ['--db', join(dir, 'runledger.db'), ...args],
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_ACTOR: 'tester' }, clock: Date.now, isTTY: false },
    extraCommands,
  );
  return { code, stdout, stderr };
}

/** Defines the demo's pipeline in a new ledger in `dir`. */
export async function defineOrders(dir: string, extra: string[] = []): Promise<void> {
  const r = await inProcess(dir, ['--now', NOW, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta', ...extra]);
  if (r.code !== 0) throw new Error(`define failed: ${r.stderr}`);
}

export type StateRow = { date: string; status: string; attempt: number | null; attempts: number; runType: string | null; metrics: Record<string, unknown> | null; error: string | null; errorCode: string | null; stalled: boolean };

/** `state --json` rows by date. */
export async function stateOf(dir: string, now = NOW): Promise<Map<string, StateRow>> {
  const r = await inProcess(dir, ['--now', now, 'state', 'etl_orders', '--json']);
  if (r.code !== 0) throw new Error(`state failed: ${r.stderr}`);
  const view = JSON.parse(r.stdout) as { dates: StateRow[] };
  return new Map(view.dates.map((d) => [d.date, d]));
}

/**
 * Resolves once `path` exists (a child's "I started" marker), or rejects after `ms`: a hang guard, not a speed
 * check, so generous (test files run side by side, and a CLI start can take seconds on a loaded machine).
 */
export async function waitForFile(path: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
