import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { defineOrders, NOW, tempDir } from './cli-helpers.js';

// With several dates running at once, a terminal shows which date each line of the commands' output belongs to.

async function backfill(dir: string, isTTY: boolean) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    ['--db', join(dir, 'runledger.db'), '--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-04', '--max-active-runs', '3', '--', 'sh', '-c', 'echo out {date}; echo err {date} >&2'],
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_ACTOR: 'tester', PATH: process.env['PATH'] ?? '' }, clock: Date.now, isTTY },
    extraCommands,
  );
  return { code, stdout, stderr };
}

describe('backfill output of the commands', () => {
  test('on a terminal each line of stdout and stderr starts with its date key', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = await backfill(dir, true);
    expect(r.code, r.stderr).toBe(0);
    for (const date of ['2026-11-02', '2026-11-03', '2026-11-04']) {
      expect(r.stdout).toContain(`${date} | out ${date}\n`);
      expect(r.stderr).toContain(`${date} | err ${date}\n`);
    }
  });

  test('off a terminal (pipes, files) the lines pass through unchanged', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = await backfill(dir, false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^out 2026-11-02$/m);
    expect(r.stdout).not.toContain(' | ');
  });
});
