import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { tempDir } from '../support/run-cli.js';

// Several processes creating the same new SQLite ledger at once (two `runledger define` started together by a
// scheduler on a fresh path): each must open the one ledger, none may fail with "table already exists".
// Needs the built library (`npm run build`).

const OPENER = resolve(import.meta.dirname, 'open-new-ledger.mjs');
const PROCESSES = 6;
const ROUNDS = 5;
const dir = tempDir('runledger-new-ledger-race-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(db: string, at: number): Promise<string> {
  return new Promise((done, fail) => {
    let out = '';
    const child = spawn(process.execPath, [OPENER, db, String(at)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', fail);
    child.on('close', () => done(out.trim()));
  });
}

test(`when ${PROCESSES} processes create the same new ledger at the same instant then every one opens it and it holds one schema`, { timeout: 60_000 }, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const db = join(dir, `ledger-${round}.db`);
    // Far enough ahead for every process to have loaded the library before the instant.
    const at = Date.now() + 1500;
    const answers = await Promise.all(Array.from({ length: PROCESSES }, () => open(db, at)));
    expect(answers).toEqual(Array(PROCESSES).fill('ok'));
    const ledger = new Database(db, { readonly: true });
    expect(ledger.prepare(`SELECT key, value FROM runledger_meta WHERE key = 'format'`).all()).toEqual([{ key: 'format', value: 'runledger' }]);
    ledger.close();
  }
});
