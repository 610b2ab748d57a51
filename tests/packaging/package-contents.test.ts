import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

// What `npm pack` ships and what package.json promises (built by `npm test` before vitest starts).

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & {
  scripts: Record<string, string>;
  engines: { node: string };
};

let listed: string[] | undefined;
/** What `npm pack` would ship (one dry run per file, read by both describes). */
function packedFiles(): string[] {
  if (listed) return listed;
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  listed = (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
  return listed;
}

describe('npm pack ships what a user needs and nothing else', () => {
  const files = packedFiles();

  test('README and the guides it links, LICENSE, CHANGELOG, the binary, the compiled library with its types, and the examples', () => {
    for (const path of ['README.md', 'docs/web.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'bin/runledger.js', 'dist/cli/main.js', 'dist/cli/verify-worker.js', 'dist/cli/import-worker.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/testing/index.js', 'examples/orders/etl.mjs']) {
      expect(files, path).toContain(path);
    }
  });

  test('no bench, no tests, no TypeScript sources, and no source map without its source', () => {
    expect(files.filter((f) => f.startsWith('dist/bench/') || f.startsWith('bench/'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('tests/') || f.startsWith('dist/tests/'))).toEqual([]);
    const maps = files.filter((f) => f.endsWith('.map'));
    const orphans = maps.filter((map) => {
      const { sources = [] } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as { sources?: string[] };
      return sources.some((source) => !files.includes(join(map, '..', source)));
    });
    expect(orphans).toEqual([]);
  });
});

describe('the library docs users read (every .d.ts the package ships)', () => {
  const shipped = packedFiles().filter((f) => f.endsWith('.d.ts'));

  test('the package ships the public API\'s declarations', () => {
    expect(shipped).toContain('dist/src/index.d.ts');
    expect(shipped.length).toBeGreaterThan(50);
  });

  test('no shipped declaration cites an internal section number (S4, DESIGN §5): each says the rule itself', () => {
    const citing = shipped.flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .map((line, i) => `${path}:${i + 1}: ${line.trim()}`)
        .filter((line) => /\bS\d{1,2}\b|§|DESIGN/.test(line.slice(line.indexOf(': ') + 2))),
    );
    expect(citing).toEqual([]);
  });
});

describe('package.json', () => {
  test('says where the project lives, and the MIT licence it names is shipped', () => {
    expect(pkg['license']).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(pkg['repository']).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(pkg['homepage']).toMatch(/^https:\/\//);
    expect(pkg['bugs']).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    expect((pkg['keywords'] as string[]).length).toBeGreaterThan(3);
  });

  test('engines names the tested lines from the first release of each whose require() loads ES modules, and require() works', () => {
    expect(pkg.engines.node).toBe('^20.19.0 || ^22.13.0 || ^24.0.0');
    const r = spawnSync(process.execPath, ['-e', "const m = require(process.argv[1]); console.log(typeof m.openLedger, typeof m.LedgerError)", join(ROOT, 'dist/src/index.js')], { encoding: 'utf8' });
    expect(r.stderr).not.toMatch(/ERR_REQUIRE/);
    expect(r.stdout.trim()).toBe('function function');
  });

  // npm pack runs the real prepack (strip `prepare`, remove dist/, build) and postpack (restore) in a copy of the
  // checkout. The copy's `build` copies the dist/ that `npm test` built from scratch with the same script, instead
  // of compiling everything a second time (a minute of both cores); that the build works from an empty dist/ is
  // what every fresh clone's `npm ci` (prepare) and `npm test` show.
  test("a clone's npm ci builds (prepare), while the tarball has no install-time script for consumers to approve", () => {
    expect(pkg.scripts['prepare']).toBe('npm run build');
    expect(pkg.scripts['prepack']).toMatch(/pack-manifest\.mjs strip.*rmSync\('dist'.*npm run build$/);
    const copy = mkdtempSync(join(tmpdir(), 'runledger-pack-'));
    try {
      for (const name of ['bin', 'events', 'projections', 'src', 'bench', 'examples', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
        cpSync(join(ROOT, name), join(copy, name), { recursive: true });
      }
      const build = `node -e "require('node:fs').cpSync(process.argv[1], 'dist', { recursive: true })" ${JSON.stringify(join(ROOT, 'dist'))}`;
      const manifest = `${JSON.stringify({ ...pkg, scripts: { ...pkg.scripts, build } }, null, 2)}\n`;
      writeFileSync(join(copy, 'package.json'), manifest);
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
      // Left by an old build: prepack must remove it with the rest of dist/.
      mkdirSync(join(copy, 'dist/src'), { recursive: true });
      writeFileSync(join(copy, 'dist/src/left-by-an-old-build.js'), 'export {};\n');
      const r = spawnSync('npm', ['pack', '--pack-destination', copy], { cwd: copy, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const packed = spawnSync('tar', ['-xOzf', join(copy, 'runledger-0.1.0.tgz'), 'package/package.json'], { encoding: 'utf8' });
      const scripts = (JSON.parse(packed.stdout) as { scripts: Record<string, string> }).scripts;
      for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts, hook).not.toHaveProperty(hook);
      // postpack put the clone's package.json back as it was.
      expect(readFileSync(join(copy, 'package.json'), 'utf8')).toBe(manifest);
      // prepack removed dist/ and built it again; `files` leaves the bench and the maps out of the tarball.
      const listed = spawnSync('tar', ['-tzf', join(copy, 'runledger-0.1.0.tgz')], { encoding: 'utf8' }).stdout;
      expect(listed).toContain('package/dist/src/index.js');
      expect(listed).toContain('package/dist/cli/main.js');
      expect(listed).not.toMatch(/\.map$|dist\/bench/m);
      expect(listed).not.toContain('left-by-an-old-build');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 240_000);
});
