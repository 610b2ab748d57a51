import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { createProgram, runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { BIN } from '../support/run-cli.js';

// Help and usage errors read well: no internal section numbers, text wrapped once, one line per error.

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const deps = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env: {}, clock: () => 0, isTTY: false };
  const code = await runCli(argv, deps, extraCommands);
  return { code, stdout, stderr };
}

const noop = () => {};
const commands = createProgram({ stdout: noop, stderr: noop, env: {}, clock: () => 0, isTTY: false }, extraCommands).commands.map((c) => c.name());

/**
 * The lines of a help's description (between the usage line and the first "Arguments:"/"Options:" heading) that
 * end mid-sentence although the next line's first word would have fit: text broken by hand, then wrapped again.
 */
function twiceWrapped(help: string, width = 80): string[] {
  const all = help.split('\n');
  const start = all.findIndex((line) => line.trim() === '') + 1;
  const end = all.findIndex((line, i) => i >= start && /^[A-Z][A-Za-z ]*:$/.test(line));
  const lines = all.slice(start, end === -1 ? undefined : end);
  const found: string[] = [];
  lines.forEach((line, i) => {
    const next = lines[i + 1];
    if (!next || line.trim() === '' || /[.:;)]$/.test(line) || /^\s/.test(next)) return;
    const firstWord = next.split(' ')[0] ?? '';
    if (/^[a-z]/.test(firstWord) && line.length + 1 + firstWord.length <= width) found.push(`${line} / ${next}`);
  });
  return found;
}

describe('--help of every command', () => {
  test('there are commands to check', () => expect(commands.length).toBeGreaterThan(15));

  test.each(['', ...commands])("runledger %s --help says the rules themselves, not section numbers, and is wrapped once", async (command) => {
    const r = await run(command === '' ? ['--help'] : [command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: runledger/);
    expect(r.stdout).not.toMatch(/\(S\d+\)|\bS\d{1,2}\b|§|DESIGN/);
    expect(twiceWrapped(r.stdout)).toEqual([]);
  });

  test('the double-wrap detector finds what it is for', () => {
    expect(twiceWrapped('Usage: runledger define\n\nOn a pipeline that exists, only the options\nyou give change;\nthe rest keep their values.\n\nOptions:\n')).toEqual(['On a pipeline that exists, only the options / you give change;']);
  });
});

describe('usage errors', () => {
  test.each([
    [['bogus'], /^runledger: unknown command 'bogus'; see runledger --help$/],
    [['stat'], /^runledger: unknown command 'stat' \(did you mean one of start, state\?\); see runledger --help$/],
    [['define', 'p', '--bogus'], /^runledger: unknown option '--bogus'; see runledger define --help$/],
    [['state'], /^runledger: missing required argument 'pipeline'; see runledger state --help$/],
  ])('runledger %s: one line on stderr, exit 2', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
  });

  test('a bare runledger (or only global options) prints the help on stdout and exits 2, as git and npm print it on stdout and fail', async () => {
    for (const argv of [[], ['--db', 'x.db'], ['--now=2026-11-05T01:00:00Z']]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^Usage: runledger/);
      expect(r.stdout).toMatch(/Exit codes:/);
    }
  });

  test('the real binary: runledger bogus is one line, exit 2', () => {
    const r = spawnSync(process.execPath, [BIN, 'bogus'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("runledger: unknown command 'bogus'; see runledger --help\n");
  });
});
