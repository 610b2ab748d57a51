import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { BIN, tempDir } from '../support/run-cli.js';

// main.ts leaves process.stderr's stream unmade until something asks for it (a pipe's stream loads net and the
// socket code): a command that writes nothing to stderr never makes it, and one that does still exits as before
// when stderr's reader is gone (EPIPE) or its device is full (ENOSPC).

const NOW = '2026-11-06T01:00:00Z';

async function smallLedger(): Promise<{ dir: string; db: string }> {
  const dir = tempDir('runledger-stderr-');
  const db = join(dir, 'ledger.db');
  const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'tester' });
  try {
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
  } finally {
    await ledger.close();
  }
  return { dir, db };
}

/** Runs the bin with stderr a pipe whose reader closed before the child started; its exit code and signal. */
function withStderrReaderGone(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.destroy();
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout }));
  });
}

describe('stderr made on demand', () => {
  test('a status whose stderr is a pipe never makes its stream (net stays unloaded), and prints as before', async () => {
    const { dir, db } = await smallLedger();
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(3, process.moduleLoadList.includes('NativeModule net') ? 'net' : 'no net'));\n");
    // stdout to a file (a pipe's stream would load net itself), stderr and the probe's fd 3 pipes.
    const out = join(dir, 'out.txt');
    const fd = openSync(out, 'w');
    try {
      const r = spawnSync(process.execPath, ['-r', probe, BIN, '--db', db, '--now', NOW, 'status'], { encoding: 'utf8', stdio: ['ignore', fd, 'pipe', 'pipe'] });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.output[3]).toBe('no net');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(out, 'utf8')).toMatch(/^PIPELINE +SCHEDULE/);
  }, 60_000);

  test('an error line to a stderr whose reader is gone exits with its own code, not a crash', async () => {
    const { db } = await smallLedger();
    expect(await withStderrReaderGone(['nosuchcommand'])).toEqual({ code: 2, signal: null, stdout: '' });
    expect(await withStderrReaderGone(['--db', db, '--now', NOW, 'status', 'no_such_pipeline'])).toMatchObject({ code: 4, signal: null });
    // Nothing written to stderr: the command's own output and exit code.
    const ok = await withStderrReaderGone(['--db', db, '--now', NOW, 'status']);
    expect(ok).toMatchObject({ code: 0, signal: null });
    expect(ok.stdout).toMatch(/^PIPELINE +SCHEDULE/);
  }, 60_000);

  test.runIf(process.platform === 'linux')('an error line to a full stderr (/dev/full) keeps the exit code', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [BIN, 'nosuchcommand'], { stdio: ['ignore', 'pipe', full] });
      expect({ status: r.status, signal: r.signal }).toEqual({ status: 2, signal: null });
    } finally {
      closeSync(full);
    }
  }, 60_000);
});
