import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { tempDir } from '../support/run-cli.js';

// A command that runs on a fixed clock says so on the terminal: an exported RUNLEDGER_NOW outlives its session.

async function run(argv: string[], env: Record<string, string>, isTTY: boolean) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_ACTOR: 'tester', ...env }, clock: () => Date.parse('2030-01-01T00:00:00Z'), isTTY });
  return { code, stdout, stderr };
}

describe('a fixed clock is announced on stderr at a terminal', () => {
  const db = join(tempDir(), 'l.db');
  const define = ['--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02'];

  test('by RUNLEDGER_NOW: one line naming the variable and how to get the real time back, before the output', async () => {
    const r = await run(define, { RUNLEDGER_NOW: '2026-11-05T01:00:00+07:00' }, true);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('runledger: the clock is fixed at 2026-11-05T01:00:00+07:00 by RUNLEDGER_NOW (unset it for the real time)\n');
  });

  test('by --now: said once, even when the command reads the clock several times', async () => {
    const r = await run(['--db', db, '--now', '2026-11-05T01:00:00+07:00', 'pending', 'etl'], {}, true);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('runledger: the clock is fixed at 2026-11-05T01:00:00+07:00 by --now\n');
  });

  test('on the real clock nothing is said; off a terminal stderr stays for errors', async () => {
    expect((await run(['--db', db, 'pending', 'etl'], {}, true)).stderr).toBe('');
    expect((await run(['--db', db, 'pending', 'etl'], { RUNLEDGER_NOW: '2026-11-05T01:00:00+07:00' }, false)).stderr).toBe('');
  });
});
