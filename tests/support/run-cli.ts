import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';

export const BIN = resolve(import.meta.dirname, '../../bin/runledger.js');

export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs the real binary (built by `npm test` before vitest starts). */
export function cli(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, RUNLEDGER_ACTOR: 'tester', ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
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

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp dir, removed after the test file's tests. */
export function tempDir(prefix = 'runledger-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
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
