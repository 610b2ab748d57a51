import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { codeLines, promptsOutsideConsole } from './console-blocks.js';
import { chainsOfFile, docFiles, ROOT, type BlockChain } from './doc-files.js';
import { BLOCK_TIMEOUT_MS, driftsOfChain, rewritten, type Drift } from './run-console-block.js';

// Every ```console block of README.md and docs/*.md is run as the doc says, in a terminal, and must print what the
// doc shows (docs/contributing.md, "Console blocks are tests"). A guide says at its top how its blocks run: top to
// bottom in one shell, or each in a fresh temp dir (so with a fresh ledger) unless it continues the block before it.
// A DeprecationWarning from any command of a doc fails its test: the docs show only the current forms.

const title = (chain: BlockChain) => {
  const [first, ...rest] = chain.blocks;
  const more = rest.length > 0 ? ` (continued at ${rest.map((b) => b.line).join(', ')})` : '';
  return `${first?.file}:${first?.line}${more}${chain.skip !== undefined ? ` skipped: ${chain.skip}` : ''}`;
};

const files = docFiles();
// DOC_TEST_WRITE=1 writes what each drifted block printed into its doc (and still fails the run): for a change
// that meant to change the output. Review `git diff` before committing it.
const WRITE = process.env['DOC_TEST_WRITE'] === '1';

test('the doc files are README.md and docs/*.md, and they hold console blocks', () => {
  expect(files[0]).toBe('README.md');
  expect(files.some((f) => f.startsWith('docs/'))).toBe(true);
  expect(files.flatMap((f) => chainsOfFile(f)).length).toBeGreaterThan(10);
});

test('an example with a `$ ` prompt is a console block, so it runs (```sh holds commands without output)', () => {
  expect(files.flatMap((f) => promptsOutsideConsole(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
});

/**
 * The library's old forms, which print a DeprecationWarning or are gone: no code block of the docs may show them (the
 * prose that names them as replaced may).
 */
const OLD_FORMS: Array<[RegExp, string]> = [
  [/\bwithRun\(\s*(?!\{)[^)\s]/, 'withRun({ pipeline, date, ...options }, fn)'],
  [/\b(catchup|backfill|withRun)\(\s*ledger\b/, 'ledger.catchup(options, fn) / ledger.backfill(options, fn) / ledger.withRun(options, fn)'],
  [/\b(leaseMs|freshnessMs)\b/, "lease: '1h' / freshness: '1d'"],
];

test('the docs\' code shows only the current forms of the library', () => {
  expect(OLD_FORMS.flatMap(([old]) => codeLines('Prose `withRun(p, d, fn)` is kept.\n```ts\nawait ledger.withRun(\'p\', d, fn);\nawait ledger.withRun({ pipeline: \'p\', date: d }, fn);\n```\n').filter((l) => old.test(l.text)))).toHaveLength(1);
  const found = files.flatMap((file) =>
    codeLines(readFileSync(join(ROOT, file), 'utf8')).flatMap(({ line, text }) =>
      OLD_FORMS.filter(([old]) => old.test(text)).map(([, instead]) => `${file}:${line}: ${text.trim()} (write ${instead})`),
    ),
  );
  expect(found).toEqual([]);
});

for (const file of files) {
  const chains = chainsOfFile(file);
  if (chains.length === 0) continue;
  describe(file, () => {
    const drifted: Drift[] = [];
    afterAll(() => {
      if (WRITE && drifted.length > 0) writeFileSync(join(ROOT, file), rewritten(readFileSync(join(ROOT, file), 'utf8'), drifted));
    });
    for (const chain of chains) {
      if (chain.skip !== undefined) {
        test.skip(title(chain), () => {});
        continue;
      }
      // The blocks of a chain run in one shell: the test's time is the blocks' hang guards together.
      test.concurrent(title(chain), async ({ expect }) => {
        const { drifts, deprecations } = await driftsOfChain(chain);
        for (const drift of drifts) {
          drifted.push(drift);
          expect.soft(drift.actual, drift.where).toBe(drift.expected);
        }
        expect.soft(deprecations, 'a command of the doc printed a DeprecationWarning: show the current form').toEqual([]);
      }, BLOCK_TIMEOUT_MS * chain.blocks.length + 10_000);
    }
  });
}
