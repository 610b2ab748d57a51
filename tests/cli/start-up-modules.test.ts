import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/**
 * The modules a process loads before it runs any command: the static imports reachable from `from`, read from
 * each file's emitted JavaScript (so type-only imports drop out exactly as tsc drops them, and `import()` is not
 * followed). Packages are returned by name.
 */
function loadedAtStart(from: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(root, from)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: file,
    }).outputText;
    for (const [, specifier] of js.matchAll(/^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]/gm)) {
      const name = specifier as string;
      if (name.startsWith('.')) queue.push(resolve(dirname(file), name.replace(/\.js$/, '.ts')));
      else packages.add(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : (name.split('/')[0] as string));
    }
  }
  return { files: new Set([...files].map((f) => f.slice(root.length + 1))), packages };
}

test('a query loads no schema library, server, PostgreSQL driver or runner before its command runs (they cost start-up)', () => {
  // main.ts answers a lone --version itself and loads the command line (run-command-line.ts) for everything else.
  const main = loadedAtStart('src/main.ts');
  const commandLine = loadedAtStart('src/cli/run-command-line.ts');
  const files = new Set([...main.files, ...commandLine.files]);
  const packages = new Set([...main.packages, ...commandLine.packages]);
  // node:crypto and ulid (which loads it) come on first use: a query hashes nothing and makes no id. node:timers is
  // loaded by Node's own bootstrap before any script (process.moduleLoadList), so importing it costs nothing.
  expect([...packages].sort()).toEqual(['better-sqlite3', 'commander', 'node:fs', 'node:os', 'node:path', 'node:timers']);
  const heavy = [...files].filter((f) => /^src\/(runner|serve|render|audit|views|ingest\/openlineage\/(?!job-binding))/.test(f) || f === 'events/decode-event.ts');
  expect(heavy).toEqual([]);
  // The walk itself sees what it should: the CLI, the SQLite store and the event types.
  expect(files).toContain('src/store/sqlite/sqlite-event-store.ts');
  expect(files).toContain('events/event-types.ts');
});
