import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { guide } from './console-blocks.js';
import { ROOT } from './doc-files.js';

// The README is the front door: the two set-up commands first, a first session, a map of the guides. What the
// first session prints is checked with every other console block (console-blocks.test.ts); this is its shape.

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('the README', () => {
  test('starts with the two set-up commands', () => {
    expect(README.split('\n').slice(0, 6).join('\n')).toBe(
      [
        '# runledger',
        '',
        '```sh',
        'npm ci && npx runledger demo     # install, build, and run the demo on the embedded SQLite ledger',
        'npm test                         # build and run the whole test suite',
        '```',
      ].join('\n'),
    );
  });

  test('stays a front door: about 300 lines, the rest in docs/', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(320);
  });

  test('its first session uses npx runledger and sets the clock per command, never exporting RUNLEDGER_NOW', () => {
    const lineOf = (heading: string) => README.slice(0, README.indexOf(`\n${heading}\n`)).split('\n').length;
    // One session: the README runs top to bottom in one shell.
    const readme = guide('README.md', README);
    expect(readme.mode).toBe('one shell');
    const session = readme.blocks.filter((b) => b.line > lineOf('## A first session') && b.line < lineOf('## Commands'));
    const commands = session.flatMap((b) => b.steps.map((s) => s.command));
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.join('\n')).not.toMatch(/RUNLEDGER_NOW/);
    for (const command of commands.filter((c) => /runledger/.test(c))) expect(command).toMatch(/^(RUN=\$\()?npx runledger --now \$NOW /);
  });
});
