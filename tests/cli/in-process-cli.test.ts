// The suite runs most command lines in its CLI server (support/run-cli.ts) instead of a process each. That is only
// sound while both give the same answer: these command lines run both ways and must agree on exit code, stdout and
// stderr, byte for byte.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, cli, cliProcess, cliServer, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-05T01:00:00+07:00';

describe('in-process and process give the same result', () => {
  const dir = tempDir('runledger-inprocess-');
  const db = join(dir, 'ledger.db');
  // Set up once, in a process; every row below only reads, or fails without writing.
  const setup = cliProcess(['--db', db, '--now', NOW, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta']);

  test.each([
    { label: 'the version', argv: ['--version'], env: {} },
    { label: 'the help', argv: ['--help'], env: {} },
    { label: 'no command: the help, exit 2', argv: [], env: {} },
    { label: 'a typo: a suggestion, exit 2', argv: ['stat'], env: {} },
    { label: 'state on a fixed clock', argv: ['--db', db, '--now', NOW, 'state', 'etl_orders'], env: {} },
    { label: 'the clock from RUNLEDGER_NOW', argv: ['--db', db, 'pending', 'etl_orders', '--json'], env: { RUNLEDGER_NOW: NOW } },
    { label: 'the ledger from RUNLEDGER_DB', argv: ['log', '--json'], env: { RUNLEDGER_DB: db } },
    { label: 'a lazily loaded command (status)', argv: ['--db', db, '--now', NOW, 'status', '--json'], env: {} },
    { label: 'not found: exit 4', argv: ['--db', db, 'state', 'nope'], env: {} },
    { label: 'bad input: exit 2', argv: ['--db', db, '--now', 'yesterday', 'state', 'etl_orders'], env: {} },
    { label: 'an empty RUNLEDGER_DB is refused', argv: ['pipelines'], env: { RUNLEDGER_DB: '' } },
  ])('$label', ({ argv, env }) => {
    expect(setup.code, setup.stderr).toBe(0);
    const alone = cliProcess(argv, env);
    expect(cli(argv, env)).toEqual(alone);
  });

  test('a relative --db resolves against the cwd given', () => {
    const here = tempDir('runledger-inprocess-cwd-');
    const argv = ['--now', NOW, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-02'];
    const env = { ...(process.env as Record<string, string>), RUNLEDGER_ACTOR: 'tester' };
    expect(cliServer().run({ argv, env, cwd: here })).toMatchObject({ code: 0 });
    const listed = spawnSync(process.execPath, [BIN, '--db', 'runledger.db', 'pipelines', '--json'], { cwd: here, encoding: 'utf8', env });
    expect(listed.stdout).toContain('"p"');
    expect(cliServer().run({ argv: ['--db', 'runledger.db', 'pipelines', '--json'], env, cwd: here }).stdout).toBe(listed.stdout);
  });
});
