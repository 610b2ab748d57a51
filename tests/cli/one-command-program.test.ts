import type { Command } from 'commander';
import { expect, test } from 'vitest';
import { createProgram, runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { runCommandLine } from '../../src/cli/run-command-line.js';

// A command line that names its command builds only that command (runCommandLine); every other line, and runCli
// given its commands, builds them all. Both must print the same: help, usage errors, suggestions, exit codes.

async function outcome(run: typeof runCommandLine, argv: string[]) {
  let stdout = '';
  let stderr = '';
  const deps = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env: {}, clock: () => 0, isTTY: false };
  const code = await run(argv, deps);
  return { code, stdout, stderr };
}

const whole = (argv: string[], deps: Parameters<typeof runCommandLine>[1]) => runCli(argv, deps, extraCommands);

const noop = () => {};
const program = createProgram({ stdout: noop, stderr: noop, env: {}, clock: () => 0, isTTY: false }, extraCommands);
const paths = (command: Command, path: string[]): string[][] => [path, ...command.commands.flatMap((sub) => paths(sub, [...path, sub.name()]))];
const commandPaths = program.commands.flatMap((command) => paths(command, [command.name()]));

test('there are commands to compare', () => expect(commandPaths.length).toBeGreaterThan(25));

// Only lines that commander refuses or answers with help: none of them runs a command (or opens a ledger).
test.each(commandPaths.map((path) => [path.join(' '), path] as const))('runledger %s: help and usage errors as with every command built', async (_, path) => {
  for (const argv of [
    [...path, '--help'],
    [...path, '-h'],
    ['--db', 'x.db', '--max-clock-skew=5m', ...path, '--help'],
    [...path, '--bogus'],
    [...path, '--jsn'],
    [...path, '--db'],
    ['--bogus', ...path],
    ['--max-clock-skew', ...path, '--help'],
    [...path, 'bogus-word', '--help'],
    ['help', ...path],
  ]) {
    expect(await outcome(runCommandLine, argv), argv.join(' ')).toEqual(await outcome(whole, argv));
  }
});

test.each([[['bogus']], [['stat']], [['--help']], [['--version']], [['--db', 'x.db', '--version']], [[]], [['--db', 'x.db']], [['-V', 'state']], [['openlineage']]])(
  'runledger %j: as with every command built',
  async (argv) => {
    expect(await outcome(runCommandLine, argv)).toEqual(await outcome(whole, argv));
  },
);
