import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../../src/cli/create-program.js';
import { registerAuditCommands } from '../../src/cli/commands/audit-commands.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import type { RawEvent } from '../../src/store/event-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { atFileEnd } from '../support/at-file-end.js';

export type Run = { code: number; stdout: string; stderr: string };

export const NOW = '2026-11-05T01:00:00+07:00';

/** Runs one command line in-process, as `main.ts` would, with the audit commands registered. */
export async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_NOW: NOW, RUNLEDGER_ACTOR: 'alice', ...env }, clock: () => Date.now(), isTTY: false },
    // The audit commands are the subject here; the e2e test checks the binary registers them.
    [...extraCommands.filter((r) => r !== registerAuditCommands), registerAuditCommands],
  );
  return { code, stdout, stderr };
}

/** A fresh temp dir, removed after the test file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-audit-'));
  atFileEnd(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Issue 2's acceptance session: define, succeed 11-04 and 11-02, fail then
 * redo 11-03, clear 11-04. Ten events; the clear is position 10.
 */
export async function acceptanceSession(db: string): Promise<void> {
  const ok = async (args: string[]): Promise<string> => {
    const r = await run(['--db', db, ...args]);
    if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout.trim();
  };
  await ok(['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta']);
  await ok(['succeed', await ok(['start', 'etl_orders', '2026-11-04']), '--metrics', '{"rows":7}']);
  await ok(['succeed', await ok(['start', 'etl_orders', '2026-11-02']), '--metrics', '{"rows":5}']);
  await ok(['fail', await ok(['start', 'etl_orders', '2026-11-03']), '--error', 'source late']);
  await ok(['succeed', await ok(['start', 'etl_orders', '2026-11-03'])]);
  await ok(['clear', 'etl_orders', '2026-11-04', '--reason', 'bad upstream file']);
}

/** A fresh temp dir whose `ledger.db` holds the acceptance session: the set-up of the files that read one such ledger. */
export async function acceptanceLedger(): Promise<{ dir: string; db: string }> {
  const dir = tempDir();
  const db = join(dir, 'ledger.db');
  await acceptanceSession(db);
  return { dir, db };
}

/** Opens the ledger file as any SQLite client could, without runledger's rules. */
export function rawDb(path: string): Database.Database {
  return new Database(path);
}

export function countEvents(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Every stored row of a SQLite ledger, in position order, as the store reads them. */
export async function rawRows(path: string): Promise<RawEvent[]> {
  const store = openSqliteStore({ path, create: false });
  const rows: RawEvent[] = [];
  for await (const batch of store.readRaw()) rows.push(...batch);
  await store.close();
  return rows;
}
