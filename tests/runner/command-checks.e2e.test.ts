import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkCommand } from '../../src/runner/check-command.js';
import { NOW, cli, defineOrders, stateOf, tempDir } from './cli-helpers.js';

// A backfill refuses a command it cannot run as asked before the first run starts: exit 2, one line, and the
// immutable history records nothing (it used to record a failed attempt per date, or pass {foo} on literally).

const RANGE = ['--from', '2026-11-02', '--to', '2026-11-04'];
const env = { PATH: process.env['PATH'] ?? '' };

describe('checkCommand', () => {
  test.each([
    ['an unknown placeholder', ['echo', '{date}', '{foo}'], /argument 3 \('\{foo\}'\) has the placeholder \{foo\}/],
    ['a misspelt placeholder inside an argument', ['echo', '--day={dat}'], /placeholder \{dat\}/],
    ['a program not on the PATH', ['no-such-command-xyz', '{date}'], /'no-such-command-xyz' is not an executable on the PATH/],
    ['a path that is not there', ['./missing.sh'], /'\.\/missing\.sh' is not an executable file/],
  ])('refuses %s', (_, argv, message) => {
    expect(() => checkCommand(argv, { env })).toThrow(message);
  });

  test.each([
    ['the four placeholders', ['echo', '{date}', '{start}', '{end}', '{runId}']],
    ["awk's braces", ['awk', '{print $1}']],
    ["find's {}", ['find', '.', '-exec', 'echo', '{}', '+']],
    ["a shell's ${HOME}", ['sh', '-c', 'echo ${HOME} {date}']],
    ['JSON', ['sh', '-c', `printf '{"rows": 7}'`]],
    ['an absolute program', [process.execPath, '-e', '0']],
  ])('accepts %s', (_, argv) => {
    expect(() => checkCommand(argv, { env })).not.toThrow();
  });

  test('a relative program is found from the cwd, and must be executable', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'etl.sh'), '#!/bin/sh\n');
    expect(() => checkCommand(['./etl.sh'], { env, cwd: dir })).toThrow(/not an executable file/);
    chmodSync(join(dir, 'etl.sh'), 0o755);
    expect(() => checkCommand(['./etl.sh'], { env, cwd: dir })).not.toThrow();
  });
});

describe('runledger backfill', () => {
  test('with {foo} in the command: one line naming it, exit 2, no run recorded', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = cli(dir, ['--now', NOW, 'backfill', 'etl_orders', ...RANGE, '--', 'sh', '-c', 'echo {date} {foo} >> out.txt']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^runledger: .*\{foo\}/)]);
    expect([...(await stateOf(dir)).values()].map((d) => d.status)).toEqual(['missing', 'missing', 'missing']);
  });
});
