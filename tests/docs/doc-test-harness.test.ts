import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consoleBlocks, guide, promptsOutsideConsole } from './console-blocks.js';
import { chainsOf } from './doc-files.js';
import { driftsOfChain, normalize, rewritten, terminalText } from './run-console-block.js';

// The harness that runs the docs' console blocks (console-blocks.test.ts) must fail when a block drifts, name the
// doc and line, and follow the convention of docs/contributing.md. Checked here on small Markdown texts.

const FRESH = ['<!-- doc-test: fresh directory per block -->', 'Each example starts in a new empty directory.', ''];
const ONE_SHELL = ['<!-- doc-test: one shell -->', 'Run the examples top to bottom in one shell.', ''];
/** A guide whose blocks start in fresh directories, unless the lines given declare otherwise. */
const md = (...lines: string[]) => [...(lines.some((l) => l.includes('doc-test: one shell') || l.includes('doc-test: fresh')) ? [] : FRESH), ...lines].join('\n') + '\n';
const chains = (text: string) => chainsOf(guide('guide.md', text));
/** The line numbers in `md(...)` texts are shifted by the declaration it adds. */
const at = (line: number) => line + FRESH.length;

describe('reading console blocks', () => {
  test('commands, their output, continuation lines and here-documents (a `$ ` line in one is not a command)', () => {
    const [block] = consoleBlocks(
      'guide.md',
      md('# A guide', '', '```console', '$ echo a \\', '    b', 'a b', '$ cat > f <<\'EOF\'', '$ not a command', 'EOF', '$ wc -l < f', '1', '```'),
    );
    expect(block?.line).toBe(at(3));
    expect(block?.steps).toEqual([
      { command: 'echo a \\\n    b', output: 'a b', line: at(4), outputLines: { from: at(6), to: at(7) } },
      { command: "cat > f <<'EOF'\n$ not a command\nEOF", output: '', line: at(7), outputLines: { from: at(10), to: at(10) } },
      { command: 'wc -l < f', output: '1', line: at(10), outputLines: { from: at(11), to: at(12) } },
    ]);
  });

  test('sh and text blocks are not tests; a console block inside a list item is', () => {
    const blocks = consoleBlocks('guide.md', md('```sh', 'runledger serve', '```', '- item', '', '  ```console', '  $ echo hi', '  hi', '  ```'));
    expect(blocks.map((b) => [b.line, b.indent, b.steps[0]?.output])).toEqual([[at(6), '  ', 'hi']]);
  });

  test('a guide of fresh directories runs each block alone; skip keeps its reason', () => {
    const found = chains(md('```console', '$ true', '```', '<!-- doc-test: skip: a server that stays up -->', '```console', '$ serve', '```', '```console', '$ curl', '```'));
    expect(found.map((c) => [c.blocks.map((b) => b.line), c.skip])).toEqual([
      [[at(1)], undefined],
      [[at(5)], 'a server that stays up'],
      [[at(8)], undefined],
    ]);
    expect(guide('guide.md', md('```console', '$ true', '```')).mode).toBe('fresh directory per block');
  });

  test('a guide run in one shell is one chain, top to bottom; a skipped block is left out of it and listed', () => {
    const found = chains(md(...ONE_SHELL, '```console', '$ true', '```', '<!-- doc-test: skip: a server that stays up -->', '```console', '$ serve', '```', '```console', '$ curl', '```'));
    expect(found.map((c) => [c.blocks.map((b) => b.line), c.skip])).toEqual([
      [[4, 11], undefined],
      [[8], 'a server that stays up'],
    ]);
    expect(guide('guide.md', md(...ONE_SHELL, '```console', '$ true', '```')).mode).toBe('one shell');
  });

  test('a prompt in a sh or unlabelled block is found: that example shows output nothing checks', () => {
    expect(promptsOutsideConsole('guide.md', md('```sh', 'runledger verify', '```', '```', '$ runledger verify', 'ok', '```', '```console', '$ true', '```'))).toEqual([`guide.md:${at(5)}: $ runledger verify`]);
  });

  test.each([
    [md('<!-- doc-test: contine -->', '```console', '$ true', '```'), `guide.md:${at(1)}: unknown doc-test comment 'contine'`],
    [md('<!-- doc-test: skip -->', '```console', '$ true', '```'), `guide.md:${at(1)}: unknown doc-test comment 'skip'`],
    [md('<!-- doc-test: skip: why -->', 'Some prose.', '```console', '$ true', '```'), `guide.md:${at(1)}: a doc-test comment must come right before`],
    [md('```console', 'output first', '$ true', '```'), `guide.md:${at(2)}: a \`\`\`console block starts with a \`$ \` command`],
    [md('```console', '', '```'), `guide.md:${at(1)}: a \`\`\`console block has no \`$ \` command`],
    [md('```console', '$ true'), `guide.md:${at(1)}: the \`\`\`console block is never closed`],
    [md('```console', '$ true', '```', '<!-- doc-test: continue -->', '```console', '$ true', '```'), `guide.md:${at(4)}: <!-- doc-test: continue --> is gone: a guide runs top to bottom in one shell`],
    // How the blocks run is declared once, at the top, and told to the reader.
    [['# Guide', '```console', '$ true', '```'].join('\n'), 'guide.md:1: the guide has console blocks but does not say how they run'],
    [['# Guide', '## Part', ...ONE_SHELL, '```console', '$ true', '```'].join('\n'), 'guide.md:3: <!-- doc-test: one shell --> goes at the top of the guide'],
    [['```console', '$ true', '```', ...FRESH].join('\n'), 'guide.md:4: <!-- doc-test: fresh directory per block --> goes at the top of the guide'],
    [[...ONE_SHELL, ...FRESH, '```console', '$ true', '```'].join('\n'), 'guide.md:4: the guide already says how its blocks run at line 1'],
    [['<!-- doc-test: one shell -->', 'Examples below.', '', '```console', '$ true', '```'].join('\n'), 'guide.md:1: the paragraph after <!-- doc-test: one shell --> must tell the reader so'],
    [['<!-- doc-test: fresh directory per block -->', '```console', '$ true', '```'].join('\n'), 'guide.md:1: the paragraph after <!-- doc-test: fresh directory per block --> must tell the reader so'],
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
    expect(await driftsOfChain(chain!)).toEqual({ drifts: [], deprecations: [] });
    expect(readdirSync(root)).toEqual([]);
  });

  test('a drifted block fails, naming the doc, the line of the command and the difference', async () => {
    const [chain] = chains(md('# Guide', '', '```console', '$ echo one', 'one', '$ echo two', 'three', '```'));
    const [drift, ...more] = (await driftsOfChain(chain!)).drifts;
    expect(more).toEqual([]);
    expect(drift?.where).toBe(`guide.md:${at(6)}: the console block at line ${at(3)} prints something else than the doc shows, first at \`$ echo two\``);
    expect(drift?.expected).toBe('$ echo one\none\n$ echo two\nthree');
    expect(drift?.actual).toBe('$ echo one\none\n$ echo two\ntwo');
    // The test of a doc asserts exactly this, so vitest prints the location and a line diff.
    expect(() => expect(drift?.actual, drift?.where).toBe(drift?.expected)).toThrow(new RegExp(`^guide\\.md:${at(6)}: .*expected '\\$ echo one`));
    expect(readdirSync(root)).toEqual([]);
  });

  test('in a terminal: stdout and stderr merged in order, the CLI of this checkout as npx runledger and runledger', async () => {
    const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;
    const [chain] = chains(md('```console', '$ test -t 1 && echo on a terminal; echo to stderr >&2; echo back', 'on a terminal', 'to stderr', 'back', '$ npx runledger --version', version, '$ runledger --version', version, '```'));
    expect(await driftsOfChain(chain!)).toEqual({ drifts: [], deprecations: [] });
  });

  test('a runledger command prints what its own process would: the shell\'s directory, variables, terminal, redirections and exit code', async () => {
    const now = '--now 2026-11-05T00:00:00Z';
    const [chain] = chains(
      md(
        ...ONE_SHELL,
        '```console',
        '$ mkdir sub && cd sub && export RUNLEDGER_DB=./here.db',
        `$ runledger ${now} define p --schedule @daily --start 2026-11-03 > /dev/null; echo "exit $?"; ls`,
        'runledger: the clock is fixed at 2026-11-05T00:00:00Z by --now',
        'exit 0',
        'here.db',
        '$ RUN=$(RUNLEDGER_NOW=2026-11-05T00:00:00Z npx runledger start p 2026-11-03); echo "${#RUN} characters"',
        'runledger: the clock is fixed at 2026-11-05T00:00:00Z by RUNLEDGER_NOW (unset it for the real time)',
        'started p 2026-11-03 attempt 1 (scheduled); data interval 2026-11-03T00:00:00+00:00 .. 2026-11-04T00:00:00+00:00',
        '26 characters',
        '$ runledger succeed nope 2> err.txt; echo "exit $?"; cat err.txt',
        'exit 4',
        'runledger: no run nope in this ledger; list runs with `runledger runs <pipeline>`',
        `$ runledger ${now} state p 2>/dev/null | head -n 2`,
        'DATE        STATUS   ATTEMPT  TYPE       RUN                         FINISHED  DETAIL',
        '2026-11-03  running  1        scheduled  01M6KVFG80GBHFVAXB9VY34HVY  -',
        `$ runledger ${now} state p 2>/dev/null`,
        'day     1       5         10        15        20        25        30',
        '2026-11     ▶ □ · · · · · · · · · · · · · · · · · · · · · · · · · ·',
        '',
        '■ success  – skipped  ✗ failed  ↻ up for retry  ▶ running  ! stalled (lease expired)  ‖ interrupted  ○ cleared  □ missing  · not yet due',
        'p: watermark none, complete through none (1 running, 1 missing)',
        '```',
      ),
    );
    // The doc CLI server (the default), and a process per command (as a package's bin runs): the same transcript.
    expect(await driftsOfChain(chain!)).toEqual({ drifts: [], deprecations: [] });
    expect(await driftsOfChain(chain!, { processes: true })).toEqual({ drifts: [], deprecations: [] });
  });

  test('in a guide of fresh directories each block starts in a new empty directory and a new shell', async () => {
    const found = chains(md('```console', '$ ls; touch made-here; X=set', '```', '```console', '$ ls; echo "[$X]"', '[]', '```'));
    expect(found).toHaveLength(2);
    for (const chain of found) expect(await driftsOfChain(chain)).toEqual({ drifts: [], deprecations: [] });
  });

  test('a guide run in one shell runs every block in the same bash: files, the directory, variables and functions carry on', async () => {
    const found = chains(
      md(...ONE_SHELL, '```console', '$ mkdir sub && cd sub; touch f; X=kept; hi() { echo "hi $1"; }', '```', 'Prose between.', '', '```console', '$ basename "$PWD"; ls; echo "$X"; hi there', 'sub', 'f', 'kept', 'hi there', '```'),
    );
    expect(found).toHaveLength(1);
    expect(await driftsOfChain(found[0]!)).toEqual({ drifts: [], deprecations: [] });
  });

  test('a new directory from mktemp -d is made under the run\'s own temp dir, and removed with it', async () => {
    const [chain] = chains(md(...ONE_SHELL, '```console', '$ cd "$(mktemp -d)" && touch x && ls', 'x', '```'));
    expect(await driftsOfChain(chain!)).toEqual({ drifts: [], deprecations: [] });
    expect(readdirSync(root)).toEqual([]);
  });

  test('a DeprecationWarning from any Node.js process of a block is reported with its command, even with stderr hidden', async () => {
    const warn = (type: string) => `node -e "process.emitWarning('old form', { type: '${type}', code: 'X_OLD' })" 2>/dev/null`;
    const [chain] = chains(md('```console', `$ ${warn('DeprecationWarning')}`, `$ ${warn('ExperimentalWarning')}`, '$ echo done', 'done', '```'));
    expect(await driftsOfChain(chain!)).toEqual({ drifts: [], deprecations: [`guide.md:${at(2)}: \`$ ${warn('DeprecationWarning')}\` printed DeprecationWarning: [X_OLD] old form`] });
  });

  test('DOC_TEST_WRITE rewrites only the drifted outputs, keeping the indentation of a block in a list', async () => {
    const text = md('- step', '', '  ```console', '  $ echo one', '  old', '', '  $ echo two', '  two', '  $ true', '  ```', 'After.');
    const [chain] = chains(text);
    const { drifts } = await driftsOfChain(chain!);
    expect(rewritten(text, drifts)).toBe(md('- step', '', '  ```console', '  $ echo one', '  one', '  $ echo two', '  two', '  $ true', '  ```', 'After.'));
  });
});
