// Bundles the CLI into dist/cli/ after tsc has compiled dist/src/ (`npm run build`). A Node start pays for every
// module it resolves and reads: the CLI as a few bundled files starts markedly faster than as the ~140 modules tsc
// emits. The library (dist/src/) stays as tsc emits it. Dependencies stay external (installed beside the package,
// better-sqlite3 is native anyway); the extra command groups stay separate chunks loaded on demand
// (src/cli/extra-command-loaders.ts), and the audit worker threads are entries of their own, beside the chunk that
// starts them (src/audit/compiled-worker.ts looks for them there).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { rolldown } from 'rolldown';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// commander is bundled: its 125 KB then start from the code cache with ours (bin/runledger.js), instead of being
// parsed and compiled on every start (a quarter of `node -e 0`). So is better-sqlite3's JavaScript (see
// bundledSqliteDriver); its addon stays where npm installed it.
const bundled = new Set(['commander', 'better-sqlite3']);
const external = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})].filter((name) => !bundled.has(name));
const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || external.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * The modules a command line loads before it knows its command (tsc's output, followed through its static imports):
 * one chunk of them, so a start reads one file for them instead of the dozens of small chunks that sharing with the
 * lazy command groups and the workers would otherwise make.
 */
function staticGraph(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm)) visit(join(dirname(file), target));
  };
  visit(entry);
  return seen;
}
// main.ts's own few modules stay out of it: `--version` answers from them alone.
const first = staticGraph(join(root, 'dist/src/main.js'));
const core = new Set([...staticGraph(join(root, 'dist/src/cli/run-command-line.js'))].filter((file) => !first.has(file)));
// The extra commands' loaders, which every extra command line loads, are a few lines: in the core chunk.
const loaders = join(root, 'dist/src/cli/extra-command-loaders.js');
core.add(loaders);

/**
 * `status`, the query run cold most (a prompt, a cron check, a dashboard), in one chunk with what it loads before it
 * runs and the core chunk lacks: it read six small files, a sixth of a million instructions each, where it now reads
 * one. Other commands that load some of those modules (serve, report, backfill) load this chunk for them; what a
 * worker thread loads stays out of it, so a worker never loads a command's chunk.
 */
function statusGroup() {
  const workers = new Set(['verify-worker', 'import-worker'].flatMap((name) => [...staticGraph(join(root, `dist/src/audit/${name}.js`))]));
  const own = new Set([...staticGraph(join(root, 'dist/src/cli/commands/status-commands.js'))].filter((file) => !core.has(file) && !first.has(file) && !workers.has(file)));
  return { name: 'status-commands', test: (id) => own.has(id), priority: 1 };
}

/**
 * commander requires node:child_process at load for the one thing it spawns (a subcommand that is an executable of its
 * own, which runledger has none of); loading it costs every start a sixth of `node -e 0`. Here it loads on first use.
 * A commander that no longer reads as expected fails the build instead of loading it silently again.
 */
function lazyChildProcess() {
  const eager = "const childProcess = require('node:child_process');";
  const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
  return {
    name: 'lazy-child-process',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').endsWith('/node_modules/commander/lib/command.js')) return null;
      const uses = [...code.matchAll(/childProcess\.(\w+)/g)].map((m) => m[1]);
      if (!code.includes(eager) || uses.some((name) => name !== 'spawn')) throw new Error(`build-cli: commander's use of node:child_process changed (${id}); see lazyChildProcess`);
      return { code: code.replace(eager, lazy), map: null };
    },
  };
}

/**
 * better-sqlite3's JavaScript (a dozen small CommonJS files) bundled with ours: Node resolving, reading and compiling
 * them, without a code cache, cost a cold `status` 18M instructions (a fifth of `node -e 0`). The bundled copy runs
 * only with the addon of the same version: open-sqlite-file.ts passes the addon it found (`nativeBinding`), and the
 * package.json beside that addon must name the version bundled here. Anything else (no addon found, which leaves the
 * driver to look for it, or another version installed) gets the installed driver, required as before.
 */
function bundledSqliteDriver() {
  const driverId = '\0runledger:better-sqlite3';
  const manifestPath = createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json');
  const driver = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const libIndex = join(dirname(manifestPath), driver.main);
  const libDir = dirname(libIndex);
  return {
    name: 'bundled-sqlite-driver',
    resolveId(source, importer) {
      if (source === 'better-sqlite3' && importer !== undefined && !importer.includes('/node_modules/')) return driverId;
      // Only the driver's own search for its addon asks for it, which the bundled copy never reaches.
      if (source === 'bindings' && importer?.startsWith(libDir)) return { id: 'bindings', external: true };
      return null;
    },
    load(id) {
      if (id !== driverId) return null;
      return `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Bundled from ${JSON.stringify(libIndex)};
const VERSION = ${JSON.stringify(driver.version)};
const sameVersion = new Map();
let installed;
/** better-sqlite3's Database: the bundled copy with an addon of its version, else the installed driver. */
export default function Database(filename, options) {
  const addon = options?.nativeBinding;
  if (typeof addon === 'string') {
    let same = sameVersion.get(addon);
    if (same === undefined) {
      try {
        same = JSON.parse(readFileSync(join(addon, '..', '..', '..', 'package.json'), 'utf8')).version === VERSION;
      } catch {
        same = false;
      }
      sameVersion.set(addon, same);
    }
    if (same) return new Bundled(filename, options);
  }
  installed ??= process.getBuiltinModule('node:module').createRequire(import.meta.url)('better-sqlite3');
  return new installed(filename, options);
}
`;
    },
  };
}

const out = join(root, 'dist/cli');
rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: {
    // bin/runledger.js loads main; the tests' CLI server loads run-command-line (the same code, without the process).
    main: join(root, 'dist/src/main.js'),
    'run-command-line': join(root, 'dist/src/cli/run-command-line.js'),
    'verify-worker': join(root, 'dist/src/audit/verify-worker.js'),
    'import-worker': join(root, 'dist/src/audit/import-worker.js'),
  },
  external: isExternal,
  plugins: [lazyChildProcess(), bundledSqliteDriver()],
  platform: 'node',
  logLevel: 'warn',
});
// CommonJS, not ES modules: V8 keeps a code cache of a script (bin/runledger.js hands it one on Node 20, which has no
// compile cache for ES modules), so a start skips most of the parsing and compiling of the core chunk.
await bundle.write({
  dir: out,
  format: 'cjs',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  sourcemap: false,
  // The JSDoc tsc kept (a quarter of the core chunk) is for readers of dist/src/; a start reads, copies and pages in every
  // byte of a chunk it loads (a cold `status` 2% faster in wall time without it). Legal comments stay.
  comments: { legal: true, annotation: false, jsdoc: false },
  codeSplitting: {
    groups: [
      { name: 'start', test: (id) => first.has(id) && !id.endsWith('/dist/src/main.js'), priority: 2 },
      { name: 'core', test: (id) => core.has(id), priority: 1 },
      statusGroup(),
    ],
  },
});
await bundle.close();
// Every character past ASCII written as its \u escape (they sit in strings, templates, regular expressions and
// comments, where the escape means the same). V8 keeps ASCII source as one byte a character; a single `…` makes the
// whole core chunk two bytes a character, decoded from UTF-8 on every start (bin/runledger.js reads ASCII files as
// such). After the write: rolldown prints the strings of a chunk again after its renderChunk hooks. An escape after a
// backslash would change the meaning: that fails the build.
for (const name of readdirSync(out).filter((n) => n.endsWith('.js'))) {
  const file = join(out, name);
  const code = readFileSync(file, 'utf8');
  const ascii = code.replace(/[^\0-\x7f]/g, (char, at) => {
    if (code[at - 1] === '\\') throw new Error(`build-cli: ${name} escapes a non-ASCII character with a backslash at ${at}`);
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  writeFileSync(file, wrapped(ascii));
}
/**
 * A chunk's code as the function Node's CommonJS loader would wrap it in, written out: bin/runledger.js compiles the file
 * as it is (a script whose value is that function) instead of joining the wrapper to 750 KB of text, which V8 then
 * copied whole before compiling it (a cold `status` paged in and copied the core chunk's text once more). Under Node's
 * own loader (Node 22 and later, the workers, the tests' CLI server) the file is a module like any other: `arguments` are
 * its wrapper's, and the function runs with them at once.
 */
function wrapped(code) {
  return `(typeof arguments === 'object' ? (f) => f.apply(this, arguments) : (f) => f)(function (exports, require, module, __filename, __dirname) {${code}\n});\n`;
}

// The package is "type": "module"; the folder says its .js files are CommonJS (for the workers and the tests' CLI server,
// which Node loads itself).
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
