#!/usr/bin/env node
// Architecture lint: the rules of docs/architecture.md that a typechecker cannot see.
// Prints one line per problem and exits 1 when there is any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

// The checkout to read: this one, or the folder named as the first argument (the lint's own test lints a copy).
const root = process.argv[2] ? resolve(process.argv[2]) : new URL('..', import.meta.url).pathname;
const problems = [];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts')) yield path;
  }
}

// The files that are a process's own entry point, and so may read process.argv and call process.exit: the CLI's
// main, and the runner's watchdog (group-reaper.ts holds the source of the small process it starts with node -e).
const PROCESS_ENTRY_POINTS = [join('src', 'main.ts'), join('src', 'runner', 'group-reaper.ts')];

const pureRules = [
  [/from ['"]node:|require\(/, 'imports a node: module'],
  [/from ['"](better-sqlite3|pg|fs|path|os|child_process|crypto)['"]/, 'imports a driver or I/O module'],
  [/Date\.now\(|Math\.random\(|new Date\(\)|performance\.now\(/, 'reads a clock or randomness'],
  [/\bprocess\./, 'touches process'],
  [/from ['"](\.\.\/)+src\//, 'imports from src/ (dependencies point src → projections → events)'],
];

for (const dir of ['events', 'projections', 'src']) {
  for (const path of files(join(root, dir))) {
    const rel = relative(root, path);
    const text = readFileSync(path, 'utf8');
    const base = path.split(sep).pop();
    if (!/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z]+)*\.ts$/.test(base)) problems.push(`${rel}: file names are kebab-case`);
    if (dir !== 'src') {
      for (const [pattern, what] of pureRules) if (pattern.test(text)) problems.push(`${rel}: ${what}; ${dir}/ must stay pure`);
      if (dir === 'events' && /from ['"](\.\.\/)+projections\//.test(text)) problems.push(`${rel}: events/ must not import projections/`);
    } else {
      if (/from ['"](better-sqlite3)['"]/.test(text) && !rel.startsWith(join('src', 'store', 'sqlite'))) problems.push(`${rel}: only the SQLite adapter imports better-sqlite3`);
      if (/from ['"](pg)['"]/.test(text) && !rel.startsWith(join('src', 'store', 'postgres'))) problems.push(`${rel}: only the PostgreSQL adapter imports pg`);
      if (/process\.(exit|argv)\b/.test(text) && !PROCESS_ENTRY_POINTS.includes(rel)) problems.push(`${rel}: only src/main.ts touches process.exit and process.argv`);
    }
    if (/:\s*any\b|as any\b|<any>/.test(text)) problems.push(`${rel}: uses 'any'`);
  }
}

// Layers: src/ imports point down this list (a file may import its own layer and any layer below it, never one
// above). A new folder or top-level file of src/ takes its place here; docs/architecture.md says what each holds.
const LAYERS = [
  ['errors.ts', 'duration.ts', 'runtime.ts', 'secrets.ts', 'stdout-writer.ts', 'first-issue-only.ts', 'node-crypto.ts'],
  ['timetable'],
  ['store'],
  ['format'],
  ['ledger'],
  ['audit', 'ingest'],
  ['ops'],
  ['runner'],
  ['scheduler'],
  ['open-ledger.ts'],
  ['views'],
  ['render'],
  ['serve'],
  ['cli'],
  ['testing', 'index.ts', 'main.ts'],
];
const layerOf = (path) => {
  const top = relative(join(root, 'src'), path).split(sep)[0];
  const rank = LAYERS.findIndex((names) => names.includes(top));
  return { top, rank };
};
for (const path of files(join(root, 'src'))) {
  const from = layerOf(path);
  const rel = relative(root, path);
  if (from.rank === -1) {
    problems.push(`${rel}: src/${from.top} has no place in the layer order; add it to LAYERS in scripts/lint.mjs`);
    continue;
  }
  const text = readFileSync(path, 'utf8');
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)\.js['"]/g)) {
    const target = join(path, '..', `${m[1]}.ts`);
    if (!target.startsWith(join(root, 'src') + sep)) continue;
    const to = layerOf(target);
    if (to.rank > from.rank) problems.push(`${rel}: imports ${relative(root, target)}, a layer above (src/${from.top} may import only src/${LAYERS.slice(0, from.rank + 1).flat().join(', src/')}); move the shared code down`);
  }
}

// No import cycles (type-only imports included): a module must not reach itself through the modules it imports.
const graph = new Map();
for (const dir of ['events', 'projections', 'src']) {
  for (const path of files(join(root, dir))) {
    const text = readFileSync(path, 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)\.js['"]/g)].map((m) => join(path, '..', `${m[1]}.ts`));
    graph.set(path, targets.filter((target) => target !== path));
  }
}
const done = new Set();
const cycles = new Set();
function visit(path, trail) {
  const at = trail.indexOf(path);
  if (at !== -1) {
    const cycle = trail.slice(at).map((p) => relative(root, p));
    const start = cycle.indexOf([...cycle].sort()[0]);
    cycles.add([...cycle.slice(start), ...cycle.slice(0, start)].join(' -> '));
    return;
  }
  if (done.has(path)) return;
  for (const next of graph.get(path) ?? []) visit(next, [...trail, path]);
  done.add(path);
}
for (const path of graph.keys()) visit(path, []);
for (const cycle of cycles) problems.push(`import cycle: ${cycle}`);

// The suite runs files without isolation (vitest.config.ts): a shared test helper is loaded once per worker, so a hook
// at its top level would serve the first file that imported it and leak the others' temp dirs and servers.
const HOOK_AT_TOP = /^(afterAll|afterEach|beforeAll|beforeEach)\(/m;
for (const path of existsSync(join(root, 'tests')) ? files(join(root, 'tests')) : []) {
  const rel = relative(root, path);
  if (/\.(test|load)\.ts$/.test(rel) || rel === join('tests', 'support', 'file-end-hook.ts')) continue;
  if (HOOK_AT_TOP.test(readFileSync(path, 'utf8'))) problems.push(`${rel}: a test helper registers a hook at its top level, which runs for the first file that loads it only; register clean-up with atFileEnd (tests/support/at-file-end.ts)`);
}

for (const problem of problems) console.log(problem);
if (problems.length > 0) {
  console.log(`lint: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log('lint: ok');
