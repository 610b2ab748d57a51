import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consoleBlocks, promptsOutsideConsole } from './console-blocks.js';
import { chainsOf } from './doc-files.js';
import { driftsOfChain, normalize, rewritten, terminalText } from './run-console-block.js';

// The harness that runs the docs' console blocks (console-blocks.test.ts) must fail when a block drifts, name the
// doc and line, and follow the convention of docs/contributing.md. Checked here on small Markdown texts.

const md = (...lines: string[]) => lines.join('\n') + '\n';
const chains = (text: string) => chainsOf(consoleBlocks('guide.md', text));

describe('reading console blocks', () => {
  test('commands, their output, continuation lines and here-documents (a `$ ` line in one is not a command)', () => {
    const [block] = consoleBlocks(
      'guide.md',
      md('# A guide', '', '```console', '$ echo a \\', '    b', 'a b', '$ cat > f <<\'EOF\'', '$ not a command', 'EOF', '$ wc -l < f', '1', '```'),
    );
    expect(block?.line).toBe(3);
    expect(block?.steps).toEqual([
      { command: 'echo a \\\n    b', output: 'a b', line: 4, outputLines: { from: 6, to: 7 } },
      { command: "cat > f <<'EOF'\n$ not a command\nEOF", output: '', line: 7, outputLines: { from: 10, to: 10 } },
      { command: 'wc -l < f', output: '1', line: 10, outputLines: { from: 11, to: 12 } },
    ]);
  });

  test('sh and text blocks are not tests; a console block inside a list item is', () => {
    const blocks = consoleBlocks('guide.md', md('```sh', 'runledger serve', '```', '- item', '', '  ```console', '  $ echo hi', '  hi', '  ```'));
    expect(blocks.map((b) => [b.line, b.indent, b.steps[0]?.output])).toEqual([[6, '  ', 'hi']]);
  });

  test('continue joins the block before; skip keeps its reason, and a block continuing a skipped one is skipped', () => {
    const found = chains(
      md('```console', '$ true', '```', '<!-- doc-test: continue -->', '```console', '$ true', '```', '<!-- doc-test: skip: a server that stays up -->', '```console', '$ serve', '```', '<!-- doc-test: continue -->', '```console', '$ curl', '```'),
    );
    expect(found.map((c) => [c.blocks.map((b) => b.line), c.skip])).toEqual([
      [[1, 5], undefined],
      [[9], 'a server that stays up'],
      [[13], 'continues the skipped block at line 9'],
    ]);
  });

  test('a prompt in a sh or unlabelled block is found: that example shows output nothing checks', () => {
    expect(promptsOutsideConsole('guide.md', md('```sh', 'runledger verify', '```', '```', '$ runledger verify', 'ok', '```', '```console', '$ true', '```'))).toEqual(['guide.md:5: $ runledger verify']);
  });

  test.each([
    [md('<!-- doc-test: contine -->', '```console', '$ true', '```'), "guide.md:1: unknown doc-test comment 'contine'"],
    [md('<!-- doc-test: skip -->', '```console', '$ true', '```'), "guide.md:1: unknown doc-test comment 'skip'"],
    [md('<!-- doc-test: continue -->', 'Some prose.', '```console', '$ true', '```'), 'guide.md:1: a doc-test comment must come right before'],
    [md('```console', 'output first', '$ true', '```'), 'guide.md:2: a ```console block starts with a `$ ` command'],
    [md('```console', '', '```'), 'guide.md:1: a ```console block has no `$ ` command'],
    [md('```console', '$ true'), 'guide.md:1: the ```console block is never closed'],
    [md('<!-- doc-test: continue -->', '```console', '$ true', '```'), 'guide.md:2: <!-- doc-test: continue --> before the first console block'],
  ])('a block it cannot read is refused with its line: %#', (text, message) => {
    expect(() => chains(text)).toThrow(message);
  });
});

describe('what counts as the same output', () => {
  test('what a terminal shows: no escape sequences, a redrawn line as last drawn, no trailing spaces or blank lines', () => {
    expect(terminalText('\u001b[32mok\u001b[39m  \r\n\rprogress 1/2\r\u001b[2Kdone\r\n\r\n')).toBe('ok\ndone');
  });

  test('run ids, sha256 hashes and elapsed seconds are normalized, nothing else', () => {
    expect(normalize(`run 01M6KVFG80GBHFVAXB9VY34HVY head 5:${'ab'.repeat(32)} at 2026-11-05T01:00:00+07:00 in 0.31s, lease 1h, 17.1 s`)).toBe(
      'run <ULID> head 5:<HASH> at 2026-11-05T01:00:00+07:00 in <ELAPSED>, lease 1h, 17.1 s',
    );
  });
});

describe('running blocks', () => {
  let root: string;
  const saved = process.env['TMPDIR'];
  beforeAll(() => {
    // The harness's own temp dirs go under this root, so the test can see they are gone.
    root = mkdtempSync(join(tmpdir(), 'runledger-doc-harness-'));
    process.env['TMPDIR'] = root;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
    rmSync(root, { recursive: true, force: true });
  });

  test('a block that prints what it shows passes; ids may differ', async () => {
    const [chain] = chains(md('```console', '$ echo 01M6KVFG80GBHFVAXB9VY34HVY; echo same', '01M8S3X0JJYHSB9YA6B91NMX37', 'same', '```'));
    expect(await driftsOfChain(chain!)).toEqual([]);
    expect(readdirSync(root)).toEqual([]);
  });

  test('a drifted block fails, naming the doc, the line of the command and the difference', async () => {
    const [chain] = chains(md('# Guide', '', '```console', '$ echo one', 'one', '$ echo two', 'three', '```'));
    const [drift, ...more] = await driftsOfChain(chain!);
    expect(more).toEqual([]);
    expect(drift?.where).toBe('guide.md:6: the console block at line 3 prints something else than the doc shows, first at `$ echo two`');
    expect(drift?.expected).toBe('$ echo one\none\n$ echo two\nthree');
    expect(drift?.actual).toBe('$ echo one\none\n$ echo two\ntwo');
    // The test of a doc asserts exactly this, so vitest prints the location and a line diff.
    expect(() => expect(drift?.actual, drift?.where).toBe(drift?.expected)).toThrow(/^guide\.md:6: .*expected '\$ echo one/);
    expect(readdirSync(root)).toEqual([]);
  });

  test('in a terminal: stdout and stderr merged in order, the CLI of this checkout as npx runledger and runledger', async () => {
    const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;
    const [chain] = chains(md('```console', '$ test -t 1 && echo on a terminal; echo to stderr >&2; echo back', 'on a terminal', 'to stderr', 'back', '$ npx runledger --version', version, '$ runledger --version', version, '```'));
    expect(await driftsOfChain(chain!)).toEqual([]);
  });

  test('each block starts in a fresh empty directory, unless it continues the one before (files and shell variables)', async () => {
    const [first, second] = chains(
      md('```console', '$ ls; touch made-here; X=kept; export Y=too', '```', '<!-- doc-test: continue -->', '```console', '$ ls; echo "$X $Y"', 'made-here', 'kept too', '```', '```console', '$ ls', '```'),
    );
    expect(await driftsOfChain(first!)).toEqual([]);
    expect(await driftsOfChain(second!)).toEqual([]);
  });

  test('DOC_TEST_WRITE rewrites only the drifted outputs, keeping the indentation of a block in a list', async () => {
    const text = md('- step', '', '  ```console', '  $ echo one', '  old', '', '  $ echo two', '  two', '  $ true', '  ```', 'After.');
    const [chain] = chains(text);
    const drifts = await driftsOfChain(chain!);
    expect(rewritten(text, drifts)).toBe(md('- step', '', '  ```console', '  $ echo one', '  one', '  $ echo two', '  two', '  $ true', '  ```', 'After.'));
  });
});
